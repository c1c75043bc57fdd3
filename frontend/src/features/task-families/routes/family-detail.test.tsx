import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { Family } from "../api/types";
import { ARITHMETIC, FAMILY, VERSION } from "../testing/fixtures";

const SUMMARY = {
  format: "csv",
  columns: ["question", "answer", "level"],
  rows_read: 43,
  sample: [{ question: "What is 1 + 1?", answer: "2", level: "easy" }],
  labels: { level: ["easy", "hard"] },
  fields: ["prompt", "answer", "difficulty", "source_id"],
  required_fields: ["prompt", "answer"],
  suggested_mapping: { answer: "answer" },
};

const UPLOAD_PREVIEW = {
  rows_read: 4,
  dedup: { total: 4, kept: 2, exact_duplicates: 2, near_duplicates: 0, removed: [{ row: 1, duplicate_of: -1, kind: "exact", similarity: 1 }] },
  version: { content_hash: "x", task_count: 7, train_count: 6, held_out_count: 1, difficulty_histogram: { "1": 5, "5": 2 } },
  changes: { mode: "append", previous: 5, added: 2, removed: 0, kept: 5, duplicates_dropped: 2 },
  base: 2,
  samples: [
    { prompt: "Compute What is 10 + 10?.", expected: { answer: "20" }, difficulty: 5, split: "train", content_hash: "n1" },
  ],
};

/** The form last posted to a path ending with `suffix`. */
function formSentTo(fetchMock: ReturnType<typeof mockApi>["fetchMock"], suffix: string): FormData {
  const call = fetchMock.mock.calls.filter(([url]) => String(url).endsWith(suffix)).at(-1);
  return (call?.[1] as RequestInit).body as FormData;
}

function renderFamilyWith(family: () => typeof FAMILY | Record<string, unknown>) {
  familyApi({
    "GET /api/v1/families/3/": () => ({ body: family() }),
    "POST /api/v1/families/3/versions/inspect/": { body: SUMMARY },
  });
  return renderApp("/task-families/3");
}

function familyApi(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/family-kinds/": { body: [ARITHMETIC] },
    "GET /api/v1/families/3/": { body: FAMILY },
    "GET /api/v1/families/3/versions/": { body: paginated([VERSION]) },
    ...extra,
  });
}

describe("Family detail", () => {
  it("previews a generated pool, then freezes it", async () => {
    const { requests } = familyApi({
      "POST /api/v1/families/3/preview/": {
        body: {
          rows_read: 4,
          dedup: { total: 4, kept: 3, exact_duplicates: 1, near_duplicates: 0, removed: [] },
          version: { content_hash: "x", task_count: 3, train_count: 2, held_out_count: 1, difficulty_histogram: { "1": 2, "2": 1 } },
          samples: [{ prompt: "Compute 1 + 2.", expected: { answer: "3" }, difficulty: 1, split: "train", content_hash: "h1" }],
        },
      },
      "POST /api/v1/families/3/versions/generate/": { status: 200, body: VERSION },
    });
    renderApp("/task-families/3");
    const user = userEvent.setup();

    expect(await screen.findByRole("list", { name: "Versions" }, { timeout: 5000 })).toHaveTextContent("vs v1: +5 −2 =15");
    await user.clear(screen.getByLabelText("Level 3"));
    await user.click(screen.getByRole("button", { name: "Preview" }));

    expect(await screen.findByText("Compute 1 + 2.")).toBeInTheDocument();
    const chart = screen.getByRole("img", { name: "Previewed tasks per level" });
    expect(chart.querySelectorAll("rect.chart-bar")).toHaveLength(2);
    expect(requests.find((r) => r.path.endsWith("/preview/"))?.body).toEqual({
      counts: { "1": 50, "2": 50 },
      seed: 0,
      near_duplicates: true,
    });

    await user.click(screen.getByRole("button", { name: "Freeze version" }));
    expect(await screen.findByText(/identical to the latest version/)).toHaveAttribute("role", "status");
  });

  it("reads a file's columns, previews what freezing adds and removes, then freezes exactly that", async () => {
    const { fetchMock } = familyApi({
      "POST /api/v1/families/3/versions/inspect/": { body: SUMMARY },
      "POST /api/v1/families/3/versions/upload/preview/": { body: UPLOAD_PREVIEW },
      "POST /api/v1/families/3/versions/upload/": { status: 201, body: { ...VERSION, id: 12, number: 3 } },
    });
    renderApp("/task-families/3");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("tab", { name: "Upload" }, { timeout: 5000 }));
    await user.upload(screen.getByLabelText("File"), new File(["question,answer\n"], "sums.csv"));

    const mapping = await screen.findByRole("table", { name: "Field mapping" });
    expect(within(mapping).getByLabelText("answer")).toHaveValue("answer");
    expect(within(mapping).getByLabelText("prompt")).toHaveValue("");
    expect(within(screen.getByLabelText("prompt")).getAllByRole("option").map((o) => o.textContent)).toEqual([
      "— not in the file —",
      "question",
      "answer",
      "level",
    ]);
    expect(screen.getByRole("button", { name: "Preview" })).toBeDisabled();
    expect(screen.getByLabelText("Prompt template")).toHaveTextContent("Compute {question}.");
    expect(screen.getByRole("radio", { name: "Add these tasks to v2’s (duplicates dropped)" })).toBeChecked();
    expect(screen.getByRole("checkbox", { name: "Remove near-duplicates" })).toBeChecked();
    expect(screen.getByRole("button", { name: "Freeze version" })).toBeDisabled();

    await user.selectOptions(screen.getByLabelText("prompt"), "question");
    await user.selectOptions(screen.getByLabelText("difficulty"), "level");
    await user.selectOptions(screen.getByLabelText("hard"), "3");
    await user.selectOptions(screen.getByLabelText("easy"), "1");
    await user.click(screen.getByRole("button", { name: "Preview" }));

    const changes = await screen.findByRole("status", { name: "What freezing does" });
    expect(changes).toHaveTextContent("Freezing makes v3 with 7 tasks: the 5 tasks of v2 and the file’s new ones.");
    expect(changes).toHaveTextContent("+2 added−0 removed5 kept2 duplicates dropped");
    expect(screen.getByText("2 new of 4 rows")).toBeInTheDocument();
    expect(screen.getByRole("table", { name: "Sample tasks" })).toHaveTextContent("Compute What is 10 + 10?.");
    const sent = formSentTo(fetchMock, "/versions/upload/preview/");
    expect(JSON.parse(String(sent.get("mapping")))).toEqual({ prompt: "question", answer: "answer", difficulty: "level" });
    expect(JSON.parse(String(sent.get("difficulty_labels")))).toEqual({ hard: 3, easy: 1 });
    expect([sent.get("mode"), sent.get("prompt_mode"), sent.get("near_duplicates")]).toEqual(["append", "template", "true"]);

    await user.click(screen.getByRole("button", { name: "Freeze version" }));
    expect(await screen.findByText(/Froze version/)).toHaveAttribute("role", "status");
    const frozen = formSentTo(fetchMock, "/versions/upload/");
    expect(frozen.get("base")).toBe("2");
    expect(JSON.parse(String(frozen.get("difficulty_labels")))).toEqual({ hard: 3, easy: 1 });
  });

  it("follows the server's default mode once the family has its first version", async () => {
    let family: Family = { ...FAMILY, latest_version: null, version_count: 0, version_defaults: { ...FAMILY.version_defaults, mode: "replace" } };
    const { queryClient } = renderFamilyWith(() => family);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("tab", { name: "Upload" }, { timeout: 5000 }));
    await user.upload(screen.getByLabelText("File"), new File(["x"], "sums.csv"));
    await screen.findByRole("table", { name: "Field mapping" });
    expect(screen.queryByRole("radio", { name: /Add these tasks/ })).not.toBeInTheDocument();
    family = { ...FAMILY };
    await queryClient.invalidateQueries({ queryKey: ["families"] });
    expect(await screen.findByRole("radio", { name: "Add these tasks to v2’s (duplicates dropped)" })).toBeChecked();
  });

  it("asks for a new preview when a setting changes after one", async () => {
    familyApi({
      "POST /api/v1/families/3/versions/inspect/": { body: { ...SUMMARY, suggested_mapping: { prompt: "question", answer: "answer" } } },
      "POST /api/v1/families/3/versions/upload/preview/": { body: UPLOAD_PREVIEW },
    });
    renderApp("/task-families/3");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("tab", { name: "Upload" }, { timeout: 5000 }));
    await user.upload(screen.getByLabelText("File"), new File(["x"], "sums.csv"));
    await user.click(await screen.findByRole("button", { name: "Preview" }));
    expect(await screen.findByRole("button", { name: "Freeze version" })).toBeEnabled();
    await user.click(screen.getByRole("radio", { name: "Replace v2’s tasks with these" }));
    expect(screen.getByRole("button", { name: "Freeze version" })).toBeDisabled();
    expect(screen.getByText("The settings changed since this preview.")).toBeInTheDocument();
  });

  it("shows a missing column at its mapping field and each rejected row in a table", async () => {
    let reply = {
      status: 400,
      body: {
        errors: [
          {
            field: "mapping.answer",
            code: "invalid_mapping",
            message: "the file has no column 'answer'; its columns are: question, answer, level",
          },
        ],
      },
    };
    familyApi({
      "POST /api/v1/families/3/versions/inspect/": { body: { ...SUMMARY, suggested_mapping: { prompt: "question", answer: "answer" } } },
      "POST /api/v1/families/3/versions/upload/preview/": () => reply,
    });
    renderApp("/task-families/3");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("tab", { name: "Upload" }, { timeout: 5000 }));
    await user.upload(screen.getByLabelText("File"), new File(["x"], "tasks.jsonl"));
    await user.click(await screen.findByRole("button", { name: "Preview" }));
    expect(await screen.findByText(/the file has no column 'answer'/)).toHaveAttribute("id", "map-answer-error");
    expect(screen.getByLabelText("answer")).toHaveAttribute("aria-invalid", "true");

    reply = {
      status: 400,
      body: {
        errors: [
          { field: "file", code: "rejected", message: "2 invalid row(s); nothing was imported" },
          { field: "rows[2].answer", code: "invalid_row", message: "is required" },
          { field: "rows[3]._row", code: "invalid_row", message: "invalid JSON at column 1" },
        ] as never,
      },
    };
    await user.click(screen.getByRole("button", { name: "Preview" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("2 invalid row(s); nothing was imported");
    const table = screen.getByRole("table", { name: "Rejected rows" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual(["2answeris required", "3whole rowinvalid JSON at column 1"]);
  });

  it("says before removing a pinned family that it is archived and why, then restores it", async () => {
    let family = { ...FAMILY };
    const { requests } = familyApi({
      "GET /api/v1/families/3/": () => ({ body: family }),
      "GET /api/v1/families/3/removal/": {
        body: {
          action: "archive",
          message: "It will be archived, not deleted: it is pinned by curriculum 'Ramp' (v1).",
          versions: 2,
          tasks: 40,
          pins: [{ kind: "curriculum", id: 4, name: "Ramp", versions: [1], reason: "pinned by curriculum 'Ramp' (v1)" }],
        },
      },
      "DELETE /api/v1/families/3/": () => {
        family = { ...family, archived_at: "2026-01-05T10:00:00Z" };
        return { body: { action: "archive" } };
      },
      "POST /api/v1/families/3/restore/": () => {
        family = { ...family, archived_at: null };
        return { body: family };
      },
    });
    renderApp("/task-families/3");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Delete" }, { timeout: 5000 }));
    const dialog = await screen.findByRole("alertdialog", { name: "Archive “Arith”?" });
    expect(dialog).toHaveTextContent("pinned by curriculum 'Ramp' (v1)");
    await user.click(within(dialog).getByRole("button", { name: "Archive family" }));

    expect(await screen.findByText(/Archived: this family is hidden from lists/)).toBeInTheDocument();
    expect(screen.queryByRole("tab", { name: "Upload" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Edit settings" })).not.toBeInTheDocument();
    expect(requests.filter((r) => r.method === "DELETE")).toHaveLength(1);

    await user.click(screen.getByRole("button", { name: "Restore" }));
    expect(await screen.findByRole("tab", { name: "Upload" })).toBeInTheDocument();
  });

  it("says before deleting a family nothing pins that its versions go too", async () => {
    familyApi({
      "GET /api/v1/families/3/removal/": {
        body: { action: "delete", message: "It will be deleted and its 2 version(s) (40 tasks). This cannot be undone.", versions: 2, tasks: 40, pins: [] },
      },
      "DELETE /api/v1/families/3/": { status: 204 },
      "GET /api/v1/families/": { body: paginated([]) },
    });
    const { router } = renderApp("/task-families/3");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Delete" }, { timeout: 5000 }));
    const dialog = await screen.findByRole("alertdialog", { name: "Delete “Arith”?" });
    expect(dialog).toHaveTextContent("deleted and its 2 version(s) (40 tasks)");
    await user.click(within(dialog).getByRole("button", { name: "Delete family" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/task-families"));
  });

  it("starts the near-duplicate choice where the server's default is", async () => {
    const { requests } = familyApi({
      "GET /api/v1/families/3/": { body: { ...FAMILY, version_defaults: { ...FAMILY.version_defaults, near_duplicates: false } } },
      "POST /api/v1/families/3/preview/": { status: 400, body: { errors: [{ field: null, code: "x", message: "stop" }] } },
    });
    renderApp("/task-families/3");
    const user = userEvent.setup();
    expect(await screen.findByRole("checkbox", { name: "Remove near-duplicates" }, { timeout: 5000 })).not.toBeChecked();
    await user.click(screen.getByRole("button", { name: "Preview" }));
    await screen.findByText("stop");
    expect(requests.find((r) => r.path.endsWith("/preview/"))?.body).toMatchObject({ near_duplicates: false });
  });

  it("saves changed settings with PATCH and shows a parameter error at its field", async () => {
    let current = FAMILY;
    const { requests } = familyApi({
      "GET /api/v1/families/3/": () => ({ body: current }),
      "PATCH /api/v1/families/3/": (request) => {
        const body = request.body as { params?: { ops?: string[] } };
        if (body.params?.ops?.length === 0) {
          return {
            status: 400,
            body: { errors: [{ field: "params.ops", code: "invalid", message: "choose at least one operation" }] },
          };
        }
        current = { ...current, ...body } as typeof FAMILY;
        return { body: current };
      },
    });
    renderApp("/task-families/3");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Edit settings" }, { timeout: 5000 }));
    const form = screen.getByRole("form", { name: "Family settings" });
    expect(within(form).getByLabelText("Kind")).toBeDisabled();
    await user.clear(within(form).getByLabelText("Name"));
    await user.type(within(form).getByLabelText("Name"), "Sums");
    await user.clear(within(form).getByLabelText("Held-out fraction"));
    await user.type(within(form).getByLabelText("Held-out fraction"), "0.2");
    await user.click(within(form).getByRole("checkbox", { name: "+" }));
    await user.click(within(form).getByRole("button", { name: "Save settings" }));

    expect(await within(form).findByText("choose at least one operation")).toHaveClass("field-error");
    expect(within(form).getByRole("group", { name: "Ops" })).toHaveAccessibleDescription("choose at least one operation");
    expect(requests.find((r) => r.method === "PATCH")?.body).toEqual({
      name: "Sums",
      held_out_fraction: 0.2,
      params: { ops: [], allow_negative: true },
    });

    await user.click(within(form).getByRole("checkbox", { name: "*" }));
    await user.click(within(form).getByRole("button", { name: "Save settings" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Settings saved.");
    expect(requests.filter((r) => r.method === "PATCH").at(-1)?.body).toEqual({
      name: "Sums",
      held_out_fraction: 0.2,
      params: { ops: ["*"], allow_negative: true },
    });
    expect(screen.getByRole("heading", { level: 1, name: "Sums" })).toBeInTheDocument();
  });
});
