import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { ARITHMETIC, FAMILY, VERSION } from "../testing/fixtures";

const TASK = {
  id: 1,
  position: 0,
  content_hash: "feedface00",
  prompt: "Compute 2 * 3.",
  expected: { answer: "6" },
  difficulty: 1,
  split: "train",
  source_id: "",
  meta: {},
};

function versionApi(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/family-kinds/": { body: [ARITHMETIC] },
    "GET /api/v1/families/3/": { body: FAMILY },
    "GET /api/v1/pool-versions/11/": { body: VERSION },
    "GET /api/v1/pool-versions/11/tasks/": { body: paginated([TASK]) },
    ...extra,
  });
}

describe("Pool version", () => {
  it("draws one stacked bar segment per level and split from the histogram", async () => {
    versionApi();
    renderApp("/task-families/3/versions/11");
    const chart = await screen.findByRole("img", { name: "Tasks per difficulty level" }, { timeout: 5000 });
    const bars = [...chart.querySelectorAll("rect.chart-bar")].map(
      (r) => `${r.closest("[data-category]")?.getAttribute("data-category")}:${r.getAttribute("data-series")}=${r.getAttribute("data-value")}`,
    );
    expect(bars).toEqual(["1:train=8", "1:held_out=1", "2:train=6", "2:held_out=2", "3:train=3"]);
    expect(chart).toHaveAccessibleDescription(/Difficulty 1: Train 8, Held out 1/);
    expect(screen.getByText("2 exact · 0 near")).toBeInTheDocument();
    expect(screen.getByText("+5 added")).toBeInTheDocument();
  });

  it("filters tasks, expands one, and removes the selected into a new version", async () => {
    const { requests } = versionApi({
      "POST /api/v1/families/3/versions/edit/": { status: 201, body: { ...VERSION, id: 12, number: 3 } },
      "GET /api/v1/pool-versions/12/": { body: { ...VERSION, id: 12, number: 3 } },
      "GET /api/v1/pool-versions/12/tasks/": { body: paginated([]) },
    });
    const { router } = renderApp("/task-families/3/versions/11");
    const user = userEvent.setup();

    await user.selectOptions(await screen.findByLabelText("Split", {}, { timeout: 5000 }), "held_out");
    await waitFor(() => expect(requests.at(-1)?.search).toContain("split=held_out"));
    await user.click(await screen.findByRole("button", { name: "Show task 0" }));
    expect(screen.getByText(/"answer": "6"/)).toBeInTheDocument();

    await user.click(screen.getByRole("checkbox", { name: "Select task 0" }));
    await user.click(screen.getByRole("button", { name: "Remove selected → new version" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/task-families/3/versions/12"));
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({
      base: 2,
      remove: ["feedface00"],
      note: "Removed 1 task(s) from v2",
    });
  });
});
