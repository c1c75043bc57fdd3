import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { ARITHMETIC, FAMILY, JOB, VERSION } from "../testing/fixtures";

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
    "GET /api/v1/pool-versions/11/jobs/": { body: [] },
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
  it("lists difficulty jobs with their progress and links a finished one to its graded version", async () => {
    versionApi({
      "GET /api/v1/pool-versions/11/jobs/": {
        body: [
          { ...JOB, id: 6, status: "running", progress: 0.2, message: "12/60 tasks sampled" },
          { ...JOB, id: 5, status: "succeeded", progress: 1, message: "graded 60 tasks", result_version: 14 },
        ],
      },
    });
    renderApp("/task-families/3/versions/11");

    const running = await screen.findByRole("progressbar", { name: "Job 6 progress" }, { timeout: 5000 });
    expect(running).toHaveAttribute("aria-valuenow", "20");
    const jobs = screen.getByRole("list", { name: "Difficulty jobs" });
    expect(within(jobs).getByRole("listitem", { name: "Job 6" })).toHaveTextContent("running");
    expect(within(jobs).getByText("12/60 tasks sampled")).toBeInTheDocument();
    const done = within(jobs).getByRole("listitem", { name: "Job 5" });
    expect(within(done).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100");
    expect(within(done).getByRole("link", { name: "Open graded version" })).toHaveAttribute(
      "href",
      "/task-families/3/versions/14",
    );
    expect(within(jobs).getAllByRole("link")).toHaveLength(1);
  });

  it("sends the measurement settings and shows why the server refused them", async () => {
    const { requests } = versionApi({
      "POST /api/v1/pool-versions/11/jobs/": {
        status: 403,
        body: { errors: [{ field: null, code: "permission_denied", message: "Viewers cannot start jobs in this team." }] },
      },
    });
    renderApp("/task-families/3/versions/11");
    const user = userEvent.setup();

    const form = await screen.findByRole("form", { name: "Measure difficulty" }, { timeout: 5000 });
    expect(within(form).getByLabelText("Samples per task (k)")).toHaveValue(8);
    await user.type(within(form).getByLabelText("Model path"), "/models/tiny");
    await user.clear(within(form).getByLabelText("Levels"));
    await user.type(within(form).getByLabelText("Levels"), "3");
    await user.click(within(form).getByRole("button", { name: "Measure difficulty" }));

    expect(await within(form).findByRole("alert")).toHaveTextContent("Viewers cannot start jobs in this team.");
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({
      model_path: "/models/tiny",
      k: 8,
      temperature: 1,
      max_new_tokens: 64,
      levels: 3,
    });
    expect(screen.getByText("No measurements of this version yet.")).toBeInTheDocument();
  });

  it("shows a queued job at once and polls while it is not finished", async () => {
    let jobs: (typeof JOB)[] = [];
    const { requests } = versionApi({
      "GET /api/v1/pool-versions/11/jobs/": () => ({ body: jobs }),
      "POST /api/v1/pool-versions/11/jobs/": () => {
        jobs = [{ ...JOB, id: 7 }];
        return { status: 202, body: jobs[0] };
      },
    });
    renderApp("/task-families/3/versions/11");
    const user = userEvent.setup();

    await user.type(await screen.findByLabelText("Model path", {}, { timeout: 5000 }), "/models/tiny");
    await user.click(screen.getByRole("button", { name: "Measure difficulty" }));
    expect(await screen.findByRole("listitem", { name: "Job 7" })).toHaveTextContent("queued");
    const polls = () => requests.filter((r) => r.method === "GET" && r.path.endsWith("/jobs/")).length;
    const before = polls();
    await waitFor(() => expect(polls()).toBeGreaterThan(before), { timeout: 5000 });
  });
});
