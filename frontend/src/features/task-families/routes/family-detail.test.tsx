import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { ARITHMETIC, FAMILY, VERSION } from "../testing/fixtures";

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

  it("shows each rejected row of an upload in a table", async () => {
    const { fetchMock } = familyApi({
      "POST /api/v1/families/3/versions/upload/": {
        status: 400,
        body: {
          errors: [
            { field: "file", code: "rejected", message: "2 invalid row(s); nothing was imported" },
            { field: "rows[2].answer", code: "invalid_row", message: "is required" },
            { field: "rows[3]._row", code: "invalid_row", message: "invalid JSON at column 1" },
          ],
        },
      },
    });
    renderApp("/task-families/3");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("tab", { name: "Upload" }, { timeout: 5000 }));
    expect(screen.getByLabelText("answer")).toHaveValue("answer");
    await user.clear(screen.getByLabelText("prompt"));
    await user.type(screen.getByLabelText("prompt"), "question");
    const file = new File(['{"question": "1+1"}\n'], "tasks.jsonl", { type: "application/jsonl" });
    await user.upload(screen.getByLabelText("File"), file);
    await user.click(screen.getByRole("button", { name: "Upload and freeze" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("2 invalid row(s); nothing was imported");
    const table = screen.getByRole("table", { name: "Rejected rows" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual(["2answeris required", "3whole rowinvalid JSON at column 1"]);

    const init = fetchMock.mock.calls.at(-1)?.[1] as RequestInit;
    const form = init.body as FormData;
    expect(form.get("format")).toBe("jsonl");
    expect(JSON.parse(String(form.get("mapping")))).toMatchObject({ prompt: "question", answer: "answer" });
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
