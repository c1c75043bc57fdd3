import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { FAMILY, SUITE, suitesApi } from "../testing/fixtures";

describe("Evaluation suite editor", () => {
  it("sends the chosen families and settings and shows each refusal under its field", async () => {
    const { requests } = suitesApi({
      "POST /api/v1/evaluation-suites/": {
        status: 400,
        body: {
          errors: [
            { field: "families[0].verifier_version", code: "invalid", message: "no such verifier version in the team" },
            { field: "k", code: "min_value", message: "Ensure this value is greater than or equal to 1." },
            { field: "name", code: "unique", message: "an evaluation suite with this name already exists in the team" },
          ],
        },
      },
    });
    renderApp("/evaluation-suites/new");
    const user = userEvent.setup();

    await user.type(await screen.findByLabelText("Name", {}, { timeout: 5000 }), "Core");
    const family = screen.getByRole("group", { name: "Family 1" });
    await user.selectOptions(within(family).getByLabelText("Pool version"), "5");
    await user.selectOptions(within(family).getByLabelText("Verifier version"), "7");
    const threshold = within(family).getByLabelText("Threshold (points)");
    await user.clear(threshold);
    await user.type(threshold, "4");
    const k = screen.getByLabelText("Samples per task (k)");
    await user.clear(k);
    await user.type(k, "0");
    await user.click(screen.getByRole("button", { name: "Create suite" }));

    const verifier = within(family).getByLabelText("Verifier version");
    await waitFor(() => expect(verifier).toHaveAccessibleDescription("no such verifier version in the team"));
    expect(verifier).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Samples per task (k)")).toHaveAccessibleDescription(/greater than or equal to 1/);
    expect(screen.getByLabelText("Name")).toHaveAccessibleDescription("an evaluation suite with this name already exists in the team");
    const post = requests.find((r) => r.method === "POST");
    expect(post?.search).toBe("?team=core");
    expect(post?.body).toEqual({
      name: "Core",
      description: "",
      families: [{ pool_version: 5, verifier_version: 7, threshold_pts: 4 }],
      k: 0,
      temperature: 1,
      max_new_tokens: 16,
      max_tasks: 200,
      seed: 0,
    });
  });

  it("keeps a suite in use to its name and description and lists a refusal without a field", async () => {
    const used = { ...SUITE, jobs: 2 };
    const { requests } = suitesApi({
      "GET /api/v1/evaluation-suites/3/": { body: used },
      "PATCH /api/v1/evaluation-suites/3/": {
        status: 409,
        body: { errors: [{ field: "suite", code: "suite_in_use", message: "suite 'Core' is used by 2 evaluation jobs: it cannot be deleted" }] },
      },
    });
    renderApp("/evaluation-suites/3");
    const user = userEvent.setup();

    const name = await screen.findByLabelText("Name", {}, { timeout: 5000 });
    expect(within(screen.getByRole("group", { name: "Family 1" })).getByLabelText("Pool version")).toBeDisabled();
    expect(screen.getByLabelText("Temperature")).toBeDisabled();
    await user.clear(name);
    await user.type(name, "Core v1");
    await user.click(screen.getByRole("button", { name: "Save changes" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("suite: suite 'Core' is used by 2 evaluation jobs");
    const patch = requests.find((r) => r.method === "PATCH");
    expect(patch?.body).toEqual({ name: "Core v1", description: "held-out core" });
  });

  it("lists the team's suites with their families and what uses them", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/evaluation-suites/": { body: paginated([{ ...SUITE, experiments: 1 }]) },
    });
    renderApp("/evaluation-suites");
    const table = await screen.findByRole("table", { name: "Evaluation suites" }, { timeout: 5000 });
    expect(within(table).getByRole("link", { name: "Core" })).toHaveAttribute("href", "/evaluation-suites/3");
    expect(within(table).getByText(`${FAMILY.family} v2 (threshold 4 pts)`)).toBeInTheDocument();
    expect(within(table).getByText("1 experiment")).toBeInTheDocument();
  });
});
