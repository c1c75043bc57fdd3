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
        body: { errors: [{ field: "model", code: "invalid", message: "unknown model 'gpt'; available: tiny-digit-sort" }] },
      },
    });
    renderApp("/evaluations/new");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("radio", { name: "A base model" }, { timeout: 5000 }));
    await user.type(screen.getByLabelText("Base model"), "gpt");
    await user.click(screen.getByRole("radio", { name: "Chosen families" }));
    const family = screen.getByRole("group", { name: "Family 1" });
    await user.selectOptions(within(family).getByLabelText("Pool version"), "5");
    await user.selectOptions(within(family).getByLabelText("Verifier version"), "7");
    await user.click(screen.getByRole("button", { name: "Start evaluation" }));

    await waitFor(() => expect(screen.getByLabelText("Base model")).toHaveAccessibleDescription(/unknown model 'gpt'/));
    const post = requests.find((r) => r.method === "POST");
    expect(post?.body).toEqual({
      team: "core",
      model: "gpt",
      families: [{ pool_version: 5, verifier_version: 7, threshold_pts: 2 }],
      k: 4,
      temperature: 1,
      max_new_tokens: 16,
      max_tasks: 200,
      seed: 0,
    });
  });
});
