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

const MODELS = {
  models: [
    { name: "tiny-digit-sort", path: "tiny-digit-sort", builtin: true, parameters: 1_180_000, ready: false, workers: ["celery@a"] },
    { name: "org/qwen", path: "org/qwen", builtin: false, parameters: 494_000_000, ready: true, workers: ["celery@a"] },
  ],
  workers: 1,
  detail: "",
};

function versionApi(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/models/": { body: MODELS },
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

  it("says how the version is played: the environment it froze, not its family's", async () => {
    const frozen = { kind: "guess-number", limits: { max_turns: 2, max_tokens_per_turn: 4, max_total_tokens: 96 } };
    versionApi({
      "GET /api/v1/families/3/": { body: { ...FAMILY, environment: { ...frozen, limits: { ...frozen.limits, max_turns: 7 } } } },
      "GET /api/v1/pool-versions/11/": { body: { ...VERSION, environment: frozen } },
    });
    renderApp("/task-families/3/versions/11");
    expect(await screen.findByLabelText("How this version is played", {}, { timeout: 5000 })).toHaveTextContent(
      "Played as episodes of guess-number (≤ 2 turns, 4 tokens a turn, 96 in all)",
    );
  });

  it("says a single-turn version is played as single responses", async () => {
    versionApi();
    renderApp("/task-families/3/versions/11");
    expect(await screen.findByLabelText("How this version is played", {}, { timeout: 5000 })).toHaveTextContent("Played as single responses");
  });

  it("shows the prompts and levels of the tasks the version added and removed", async () => {
    versionApi();
    renderApp("/task-families/3/versions/11");
    const added = await screen.findByRole("list", { name: "Added tasks" }, { timeout: 5000 });
    expect(within(added).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["+3Compute 41 + 7."]);
    expect(screen.getByText("Added (first 1 of 5)")).toBeInTheDocument();
    const removed = screen.getByRole("list", { name: "Removed tasks" });
    expect(within(removed).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "−1Compute 1 + 1.",
      "−1Compute 2 + 2.",
    ]);
    expect(screen.queryByText("a1")).not.toBeInTheDocument();
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
    const model = within(form).getByLabelText("Model");
    await waitFor(() => expect(within(model).getAllByRole("option")).toHaveLength(3));
    await user.selectOptions(model, "org/qwen");
    await user.clear(within(form).getByLabelText("Levels"));
    await user.type(within(form).getByLabelText("Levels"), "3");
    await user.click(within(form).getByRole("button", { name: "Measure difficulty" }));

    expect(await within(form).findByRole("alert")).toHaveTextContent("Viewers cannot start jobs in this team.");
    expect(requests.find((r) => r.path === "/api/v1/models/")?.search).toBe("?queue=cpu");
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({
      model_path: "org/qwen",
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

    const model = await screen.findByLabelText("Model", {}, { timeout: 5000 });
    await waitFor(() => expect(within(model).getAllByRole("option")).toHaveLength(3));
    await user.selectOptions(model, "tiny-digit-sort");
    await user.click(screen.getByRole("button", { name: "Measure difficulty" }));
    expect(await screen.findByRole("listitem", { name: "Job 7" })).toHaveTextContent("queued");
    const polls = () => requests.filter((r) => r.method === "GET" && r.path.endsWith("/jobs/")).length;
    const before = polls();
    await waitFor(() => expect(polls()).toBeGreaterThan(before), { timeout: 5000 });
  });
  it("offers the models running workers can load, with their size", async () => {
    versionApi();
    renderApp("/task-families/3/versions/11");
    const user = userEvent.setup();
    const model = await screen.findByLabelText("Model", {}, { timeout: 5000 });
    await waitFor(() =>
      expect(within(model).getAllByRole("option").map((o) => o.textContent)).toEqual([
        "Choose a model",
        "tiny-digit-sort · built in · 1.18M parameters",
        "org/qwen · 494M parameters",
      ]),
    );
    expect(screen.getByRole("button", { name: "Measure difficulty" })).toBeDisabled();
    await user.selectOptions(model, "tiny-digit-sort");
    expect(model).toHaveAccessibleDescription("Built on its first use, in about a minute");
    expect(screen.getByRole("button", { name: "Measure difficulty" })).toBeEnabled();
  });

  it("says no worker is running instead of offering a model", async () => {
    const detail = "No worker is running on the cpu queue, so no model can be loaded.";
    versionApi({ "GET /api/v1/models/": { body: { models: [], workers: 0, detail } } });
    renderApp("/task-families/3/versions/11");
    const model = await screen.findByLabelText("Model", {}, { timeout: 5000 });
    await waitFor(() => expect(model).toHaveAccessibleDescription(detail));
    expect(within(model).getAllByRole("option").map((o) => o.textContent)).toEqual(["No model available"]);
    expect(screen.getByRole("button", { name: "Measure difficulty" })).toBeDisabled();
  });

  it("shows the server's refusal of a model under the model select", async () => {
    const message = "no running worker can load 'org/qwen'; available: tiny-digit-sort";
    versionApi({
      "POST /api/v1/pool-versions/11/jobs/": {
        status: 400,
        body: { errors: [{ field: "model_path", code: "unknown_model", message }] },
      },
    });
    renderApp("/task-families/3/versions/11");
    const user = userEvent.setup();
    const model = await screen.findByLabelText("Model", {}, { timeout: 5000 });
    await waitFor(() => expect(within(model).getAllByRole("option")).toHaveLength(3));
    await user.selectOptions(model, "org/qwen");
    await user.click(screen.getByRole("button", { name: "Measure difficulty" }));

    await waitFor(() => expect(model).toHaveAttribute("aria-invalid", "true"));
    expect(model).toHaveAccessibleDescription(`Models the running workers can load ${message}`);
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });
});
