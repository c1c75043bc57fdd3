import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { renderApp } from "@/testing/render";

import { suitesApi } from "../testing/fixtures";

describe("New evaluation", () => {
  it("starts an evaluation of a checkpoint from a suite", async () => {
    const { requests } = suitesApi({ "POST /api/v1/evaluations/": { status: 202, body: { id: 9 } } });
    const { router } = renderApp("/evaluations/new?checkpoint=12");
    const user = userEvent.setup();

    const suite = await screen.findByLabelText("Evaluation suite", {}, { timeout: 5000 });
    expect(suite).toHaveValue("3");
    expect(screen.getByText(/digits v2 \(threshold 4 pts\); k = 4/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Start evaluation" }));

    await waitFor(() => expect(router.state.location.pathname).toBe("/reports"));
    const post = requests.find((r) => r.method === "POST");
    expect(post?.body).toEqual({ team: "core", checkpoint: 12, suite: 3 });
  });

  it("sends chosen families with their settings and shows a refusal under its field", async () => {
    const { requests } = suitesApi({
      "POST /api/v1/evaluations/": {
        status: 400,
        body: { errors: [{ field: "model", code: "invalid", message: "no running worker can load 'tiny-digit-sort'; available: none" }] },
      },
    });
    renderApp("/evaluations/new");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("radio", { name: "A base model" }, { timeout: 5000 }));
    const model = screen.getByLabelText("Base model");
    expect(model.tagName).toBe("SELECT"); // the models running workers offer, as in the experiment wizard
    await screen.findByRole("option", { name: "tiny-digit-sort" });
    await user.selectOptions(model, "tiny-digit-sort");
    await user.click(screen.getByRole("radio", { name: "Chosen families" }));
    const family = screen.getByRole("group", { name: "Family 1" });
    await user.selectOptions(within(family).getByLabelText("Pool version"), "5");
    await user.selectOptions(within(family).getByLabelText("Verifier version"), "7");
    await user.click(screen.getByRole("button", { name: "Start evaluation" }));

    await waitFor(() => expect(screen.getByLabelText("Base model")).toHaveAccessibleDescription(/no running worker can load/));
    const post = requests.find((r) => r.method === "POST");
    expect(post?.body).toEqual({
      team: "core",
      model: "tiny-digit-sort",
      families: [{ pool_version: 5, verifier_version: 7, threshold_pts: 2 }],
      k: 4,
      temperature: 1,
      max_new_tokens: 16,
      max_tasks: 200,
      seed: 0,
    });
  });

  it("evaluates a base model in chat format when chosen, and shows a refusal under the field", async () => {
    const { requests } = suitesApi({
      "POST /api/v1/evaluations/": {
        status: 400,
        body: { errors: [{ field: "prompt_format.kind", code: "invalid", message: "chat format needs a chat template" }] },
      },
    });
    renderApp("/evaluations/new?model=tiny-digit-sort");
    const user = userEvent.setup();

    const format = await screen.findByLabelText("Prompt format", {}, { timeout: 5000 });
    expect(format).toHaveValue(""); // the default: raw for a base model
    await user.selectOptions(format, "chat");
    await user.type(screen.getByLabelText("System prompt"), "Sort the digits.");
    await user.click(screen.getByRole("button", { name: "Start evaluation" }));

    await waitFor(() => expect(screen.getByLabelText("Prompt format")).toHaveAccessibleDescription(/needs a chat template/));
    const post = requests.find((r) => r.method === "POST");
    expect(post?.body).toEqual({
      team: "core",
      model: "tiny-digit-sort",
      suite: 3,
      prompt_format: { kind: "chat", system_prompt: "Sort the digits." },
    });
  });

  it("keeps a model named by a link, saying no running worker offers it", async () => {
    suitesApi();
    renderApp("/evaluations/new?model=gpt");
    const model = await screen.findByLabelText("Base model", {}, { timeout: 5000 });
    expect(model).toHaveValue("gpt");
    expect(await screen.findByRole("option", { name: "gpt (no running worker offers it)" })).toBeInTheDocument();
    expect(screen.getByRole("option", { name: "tiny-digit-sort" })).toBeInTheDocument();
  });
});
