import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { PoolVersion, PreviewTrace } from "../api/types";

const VERSION = {
  id: 5,
  family: 1,
  family_slug: "arith",
  number: 2,
  content_hash: "abc",
  source: "generator",
  source_detail: {},
  held_out_fraction: 0.1,
  environment: null,
  task_count: 30,
  train_count: 27,
  held_out_count: 3,
  difficulty_histogram: { train: { "1": 9, "2": 9, "3": 9 }, held_out: { "1": 3 } },
  dedup: { total: 30, kept: 30, exact_duplicates: 0, near_duplicates: 0, removed: [] },
  diff: {},
  note: "",
  created_by: "ada",
  created_at: "2026-01-01T00:00:00Z",
} satisfies PoolVersion;

const TRACE: PreviewTrace = {
  band: [0.3, 0.7],
  floor: 0.05,
  levels: { arith: [1, 2, 3] },
  steps: [0, 1, 2, 3].map((step) => ({
    step,
    distribution: { arith: [0.9 - step * 0.2, 0.05 + step * 0.1, 0.05 + step * 0.1] },
    success_rate: { arith: 0.8 - step * 0.1 },
    rolling_success: { arith: step === 0 ? null : 0.75 - step * 0.1 },
    ability: { arith: 1 + step * 0.1 },
  })),
  in_band: { arith: 0.5 },
};

function editorApi(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/pool-versions/": { body: paginated([VERSION]) },
    ...extra,
  });
}

describe("Curriculum editor", () => {
  it("shows a validation error next to the field its path names", async () => {
    const { requests } = editorApi({
      "POST /api/v1/curricula/": {
        status: 400,
        body: {
          errors: [{ field: "config.families[0].levels", code: "invalid", message: "version 5 has no train tasks at levels [9]" }],
        },
      },
    });
    renderApp("/curricula/new");
    const user = userEvent.setup();

    await user.type(await screen.findByLabelText("Name", {}, { timeout: 5000 }), "Ramp");
    const family = screen.getByRole("group", { name: "Family 1" });
    await user.click(within(family).getByRole("checkbox", { name: "Level 1" }));
    await user.click(screen.getByRole("button", { name: "Create curriculum" }));

    const levels = within(family).getByRole("group", { name: "Levels" });
    expect(await within(levels).findByText("version 5 has no train tasks at levels [9]")).toBeInTheDocument();
    expect(levels).toHaveAccessibleDescription("version 5 has no train tasks at levels [9]");
    const post = requests.find((r) => r.method === "POST");
    expect(post?.search).toBe("?team=core");
    expect(post?.body).toMatchObject({
      name: "Ramp",
      config: { families: [{ version: 5, weight: 1, levels: [2, 3] }], band: [0.3, 0.7], dynamic: true },
    });
  });

  it("shows each problem the API names by its field, and lists one the form has no field for", async () => {
    editorApi({
      "POST /api/v1/curricula/": {
        status: 400,
        body: {
          errors: [
            { field: "config.floor", code: "invalid", message: "0.4 x 3 levels of 'arith' exceeds 1" },
            { field: "config.families[0].weight", code: "invalid", message: "A valid number is required." },
            { field: "description", code: "max_length", message: "Too long." },
          ],
        },
      },
    });
    renderApp("/curricula/new");
    const user = userEvent.setup();

    await user.type(await screen.findByLabelText("Name", {}, { timeout: 5000 }), "Ramp");
    await user.click(screen.getByRole("button", { name: "Create curriculum" }));

    expect(await screen.findByLabelText("Floor")).toHaveAccessibleDescription("0.4 x 3 levels of 'arith' exceeds 1");
    const family = screen.getByRole("group", { name: "Family 1" });
    expect(within(family).getByLabelText("Weight")).toHaveAccessibleDescription("A valid number is required.");
    expect(screen.getByRole("alert")).toHaveTextContent("description: Too long.");
  });

  it("runs the preview and plots the distribution and the success band per family", async () => {
    const { requests } = editorApi({ "POST /api/v1/curricula/preview/": { body: TRACE } });
    renderApp("/curricula/new");
    const user = userEvent.setup();

    await user.clear(await screen.findByLabelText("Steps", {}, { timeout: 5000 }));
    await user.type(screen.getByLabelText("Steps"), "4");
    await user.click(screen.getByRole("button", { name: "Run preview" }));

    const area = await screen.findByRole("img", { name: "arith: sampling distribution over levels" });
    expect(area.querySelectorAll("path.chart-area")).toHaveLength(3);
    const line = screen.getByRole("img", { name: "arith: rolling success rate" });
    expect(line.querySelector("rect.chart-band")).toHaveAttribute("data-band", "0.3-0.7");
    expect(line.querySelector('path[data-series="rolling"]')?.getAttribute("d")).toMatch(/^M[\d.]+,[\d.]+L/);
    expect(screen.getByTestId("in-band-arith")).toHaveTextContent("50%");
    await waitFor(() =>
      expect(requests.find((r) => r.path === "/api/v1/curricula/preview/")?.body).toMatchObject({
        steps: 4,
        batch: 32,
        learner: { ability: 1, slope: 2, learning_rate: 0.001 },
        config: { families: [{ version: 5, weight: 1 }] },
      }),
    );
  });

  it("warns when the chosen version has every train task at one level", async () => {
    const flat = { ...VERSION, difficulty_histogram: { train: { "1": 27 }, held_out: { "1": 3 } } };
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/pool-versions/": { body: paginated([flat]) },
    });
    renderApp("/curricula/new");
    const family = await screen.findByRole("group", { name: "Family 1" }, { timeout: 5000 });
    expect(await within(family).findByText(/Every train task of this version is at level 1/)).toBeInTheDocument();
  });

  it("does not warn about a version graded into several levels", async () => {
    editorApi();
    renderApp("/curricula/new");
    const family = await screen.findByRole("group", { name: "Family 1" }, { timeout: 5000 });
    await within(family).findByRole("checkbox", { name: "Level 3" });
    expect(within(family).queryByText(/Every train task of this version/)).not.toBeInTheDocument();
  });
});
