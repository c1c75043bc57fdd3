import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

const LINEAGE = {
  checkpoint: 11,
  step: 40,
  run: { id: 3, number: 1 },
  experiment: { id: 7, name: "sort-grpo" },
  config_hash: "abcdef0123456789",
  model: "tiny-digits",
  pool_versions: [{ id: 4, family: "digits", number: 2 }],
  verifier_versions: [{ id: 5, verifier: "exact-sort", number: 1 }],
  promotion: null,
};
const FORMAT = {
  chat_template: null,
  add_special_tokens: false,
  families: [{ family: "digits", prompt_template: "sort {digits}=", extract: "full_text", pool_version: 4, verifier_version: 5 }],
};

function version(id: number, number: number, promoted: boolean, aliases: string[] = []) {
  return {
    id,
    team: "core",
    model: 9,
    model_name: "sorter",
    number,
    checkpoint: 10 + id,
    base_model: "",
    lineage: LINEAGE,
    format: FORMAT,
    aliases,
    promotion: promoted
      ? { id: 1, report: 5, report_version: 2, overrides: [{ reviewer: "grace", reason: "add traded for format", families: ["add"] }] }
      : null,
    production_refusal: promoted
      ? null
      : `production needs a promoted checkpoint; checkpoint ${10 + id} of sorter v${number} is not promoted (promote it on an approved report first)`,
    description: "",
    created_by: "ada",
    created_at: "2026-01-01T00:00:00Z",
  };
}

const MODEL = {
  id: 9,
  team: "core",
  name: "sorter",
  description: "digit sorting",
  aliases: [{ alias: "candidate", version: 2, number: 2, updated_by: "ada", updated_at: "2026-01-01T00:00:00Z" }],
  latest_version: 2,
  created_by: "ada",
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

describe("Models pages", () => {
  it("lists the team's registered models with their aliases and names a new one", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/registered-models/": { body: paginated([MODEL]) },
      "POST /api/v1/registered-models/": { status: 201, body: { ...MODEL, id: 10, name: "solver", aliases: [] } },
    });
    renderApp("/registry");
    const table = await screen.findByRole("table", { name: "Registered models" }, { timeout: 4000 });
    expect(within(table).getByRole("link", { name: "sorter" })).toHaveAttribute("href", "/registry/9");
    expect(within(table).getByLabelText("Aliases of sorter")).toHaveTextContent("candidate → v2");
    expect(screen.getByRole("link", { name: "Models" })).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText("Model name"), { target: { value: "solver" } });
    fireEvent.click(screen.getByRole("button", { name: "New model" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({ team: "core", name: "solver", description: "" }),
    );
  });

  it("shows each version's lineage, format and promotion, and greys out production until promoted", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/registered-models/9/": {
        body: { ...MODEL, versions: [version(2, 2, false, ["candidate"]), version(1, 1, true)] },
      },
      "POST /api/v1/model-versions/1/alias/": {
        body: { alias: "production", version: 1, number: 1, updated_by: "ada", updated_at: "2026-01-01T00:00:00Z" },
      },
      "DELETE /api/v1/model-versions/2/alias/": { status: 204 },
    });
    renderApp("/registry/9");
    const newest = await screen.findByRole("listitem", { name: "Version 2" }, { timeout: 4000 });
    expect(within(newest).getByRole("link", { name: "run 1" })).toHaveAttribute("href", "/runs/3/checkpoints");
    expect(within(newest).getByRole("link", { name: "sort-grpo" })).toHaveAttribute("href", "/experiments/7");
    expect(within(newest).getByLabelText("Lineage")).toHaveTextContent("pools digits v2");
    expect(within(newest).getByLabelText("Training format")).toHaveTextContent("raw prompt, no chat template");
    expect(within(newest).getByLabelText("Training format")).toHaveTextContent("sort {digits}=");
    expect(within(newest).getByText("not promoted")).toBeInTheDocument();
    const refused = within(newest).getByRole("option", { name: "production (not promoted)" });
    expect(refused).toBeDisabled();
    expect(within(newest).getByText(/production: production needs a promoted checkpoint/)).toBeInTheDocument();

    const promoted = screen.getByRole("listitem", { name: "Version 1" });
    expect(within(promoted).getByRole("link", { name: "report v2" })).toHaveAttribute("href", "/reports/5");
    expect(within(promoted).getByRole("list", { name: "Regression overrides" })).toHaveTextContent(
      "grace approved over the regression of add: add traded for format",
    );
    expect(within(newest).queryByRole("list", { name: "Regression overrides" })).toBeNull();
    expect(within(promoted).getByRole("option", { name: "production" })).not.toBeDisabled();
    fireEvent.click(within(promoted).getByRole("button", { name: "Set alias" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({ alias: "production" }),
    );

    fireEvent.click(within(newest).getByRole("button", { name: "Remove alias candidate" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "DELETE")?.body).toEqual({ alias: "candidate" }),
    );
  });

  it("shows the server's refusal when an alias is refused", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/registered-models/9/": { body: { ...MODEL, versions: [version(2, 2, false)] } },
      "POST /api/v1/model-versions/2/alias/": {
        status: 409,
        body: { errors: [{ field: "alias", code: "alias_refused", message: "production needs a promoted checkpoint" }] },
      },
    });
    renderApp("/registry/9");
    const row = await screen.findByRole("listitem", { name: "Version 2" }, { timeout: 4000 });
    fireEvent.change(within(row).getByLabelText("Alias for v2"), { target: { value: "__other__" } });
    fireEvent.change(within(row).getByLabelText("Other alias for v2"), { target: { value: "staging" } });
    fireEvent.click(within(row).getByRole("button", { name: "Set alias" }));
    expect(await within(row).findByRole("alert")).toHaveTextContent("production needs a promoted checkpoint");
  });

  it("points an empty registry and an empty model at the pickers, not at the API", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/registered-models/": { body: paginated([]) },
      "GET /api/v1/registered-models/9/": { body: { ...MODEL, versions: [] } },
      "GET /api/v1/runs/": { body: paginated([]) },
    });
    const { unmount } = renderApp("/registry");
    const empty = await screen.findByText("No registered models yet", {}, { timeout: 4000 });
    expect(empty.parentElement).toHaveTextContent("“Register a version”");
    expect(empty.parentElement).not.toHaveTextContent("/api/v1/");
    unmount();
    renderApp("/registry/9");
    const none = await screen.findByText("No versions yet", {}, { timeout: 4000 });
    expect(none.parentElement).toHaveTextContent("Pick a run and one of its checkpoints above");
    expect(none.parentElement).not.toHaveTextContent("by its id");
  });

  it("registers a checkpoint as the next version", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/registered-models/9/": { body: { ...MODEL, versions: [] } },
      "POST /api/v1/model-versions/": { status: 201, body: version(3, 3, false) },
      "GET /api/v1/runs/": { body: paginated([{ id: 3, experiment_name: "sorting", number: 1, state: "succeeded" }]) },
      "GET /api/v1/runs/3/checkpoints/": {
        body: [
          { id: 13, step: 20, name: "step-000020", promotion: null },
          { id: 14, step: 40, name: "step-000040", promotion: { report: 7 } },
        ],
      },
    });
    renderApp("/registry/9");
    const checkpoint = await screen.findByLabelText("Checkpoint", { exact: true }, { timeout: 4000 });
    expect(checkpoint).toBeDisabled(); // a run first
    await screen.findByRole("option", { name: "sorting · run 1 (succeeded)" });
    fireEvent.change(screen.getByLabelText("Run", { exact: true }), { target: { value: "3" } });
    const newest = await screen.findByRole("option", { name: "step 40 (step-000040) · promoted" });
    const options = within(checkpoint).getAllByRole("option").map((o) => o.textContent);
    expect(options).toEqual(["Choose a checkpoint…", "step 40 (step-000040) · promoted", "step 20 (step-000020)"]);
    expect(newest).toHaveValue("14");
    fireEvent.change(checkpoint, { target: { value: "14" } });
    fireEvent.click(screen.getByRole("button", { name: "Register" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({ model: 9, checkpoint: 14 }),
    );
  });

  it("checks a serving format against the training format and lists the drift", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/registered-models/9/": { body: { ...MODEL, versions: [version(1, 1, true)] } },
      "POST /api/v1/model-versions/1/check-format/": {
        body: {
          matches: false,
          differences: ["chat format differs: trained on the raw prompt (no chat template), served with chat template 'chatml'"],
        },
      },
    });
    renderApp("/registry/9");
    const row = await screen.findByRole("listitem", { name: "Version 1" }, { timeout: 4000 });
    const form = within(row).getByRole("form", { name: "Check a serving format for v1" });
    fireEvent.change(within(form).getByLabelText("Chat format"), { target: { value: "named" } });
    fireEvent.change(within(form).getByLabelText("Chat template"), { target: { value: "chatml" } });
    fireEvent.change(within(form).getByLabelText("Answer extraction"), { target: { value: "full_text" } });
    fireEvent.click(within(form).getByRole("button", { name: "Check" }));
    expect(await within(row).findByRole("status", { name: "Format check" })).toHaveTextContent("chat format differs");
    expect(requests.find((r) => r.path.endsWith("check-format/"))?.body).toEqual({ chat_template: "chatml", extract: "full_text" });
  });
});
