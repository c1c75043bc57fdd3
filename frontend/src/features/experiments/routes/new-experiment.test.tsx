import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated, type MockReply } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { ALGORITHMS, EXPERIMENT, EXPERIMENT_RUN, MODELS, NO_MODELS, PRESETS, wizardRoutes } from "../testing/fixtures";

const RUN = { ...EXPERIMENT_RUN, id: 21, experiment: 30, state: "queued" };

async function walkToReview(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole("radio", { name: /Digit ramp/ }, { timeout: 5000 }));
  await user.click(screen.getByRole("button", { name: "Next" }));
  await user.selectOptions(await screen.findByLabelText("Base model"), "tiny-digit-sort");
  await user.click(screen.getByRole("button", { name: "Next" }));
  await user.clear(await screen.findByLabelText("group_size"));
  await user.type(screen.getByLabelText("group_size"), "1");
  await user.click(screen.getByRole("button", { name: "Next" }));
  await user.click(screen.getByRole("button", { name: "Next" }));
  await user.click(screen.getByRole("button", { name: "Next" }));
  await user.type(screen.getByLabelText("Name"), "Sort it");
}

describe("New experiment wizard", () => {
  it("preselects the newest verifier made for each family's kind", async () => {
    mockApi({ "GET /api/v1/auth/me/": { body: ME }, ...wizardRoutes() });
    renderApp("/experiments/new");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("radio", { name: /Digit ramp/ }, { timeout: 5000 }));
    const family = screen.getByRole("group", { name: "Family digits · v1" });
    expect(family).toHaveTextContent("90 train · 10 held-out · levels 2–3");
    expect(within(family).getByLabelText("Verifier for pool version 5")).toHaveValue("12");
  });

  it("fills a family's default verifier when the families load after the curriculum step is left", async () => {
    let release = () => {};
    const late = new Promise<void>((resolve) => (release = resolve));
    const routes = wizardRoutes();
    const families = routes["GET /api/v1/families/"] as MockReply;
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      ...routes,
      "GET /api/v1/families/": async () => {
        await late;
        return families;
      },
    });
    renderApp("/experiments/new");
    const user = userEvent.setup();
    await walkToReview(user);
    expect(screen.getByLabelText("Configuration summary")).toHaveTextContent("digits · v1 judged by none chosen");
    release();
    await waitFor(() => expect(screen.getByLabelText("Configuration summary")).toHaveTextContent("digits · v1 judged by Exact sort · v3"));
  });

  it("says that no worker is running and how to start one", async () => {
    mockApi({ "GET /api/v1/auth/me/": { body: ME }, ...wizardRoutes(NO_MODELS) });
    renderApp("/experiments/new");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: /Model/ }, { timeout: 5000 }));
    const notice = await screen.findByRole("status");
    expect(notice).toHaveTextContent("No worker is running");
    expect(notice).toHaveTextContent("No worker is running on the gpu queue.");
    expect(notice).toHaveTextContent("make worker");
    expect(screen.queryByLabelText("Base model")).not.toBeInTheDocument();
  });

  it("shows a refused hyper-parameter next to its field, on its step", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      ...wizardRoutes(),
      "POST /api/v1/experiments/": {
        status: 400,
        body: { errors: [{ field: "config.hyperparameters.group_size", code: "invalid", message: "GRPO needs at least 2 completions per prompt" }] },
      },
    });
    renderApp("/experiments/new");
    const user = userEvent.setup();
    await walkToReview(user);
    await user.click(screen.getByRole("button", { name: "Create and launch" }));

    const field = await screen.findByLabelText("group_size");
    expect(screen.getByRole("heading", { name: "3. Algorithm" })).toBeInTheDocument();
    expect(field).toHaveAttribute("aria-invalid", "true");
    expect(field).toHaveAccessibleDescription(/GRPO needs at least 2 completions per prompt/);
    expect(screen.getByRole("button", { name: /Algorithm\s*needs attention/ })).toBeInTheDocument();

    const post = requests.find((r) => r.method === "POST");
    expect(post?.body).toEqual({
      team: "core",
      name: "Sort it",
      description: "",
      config: {
        curriculum: { saved: 4, verifiers: { "5": 12 } },
        model: "tiny-digit-sort",
        algorithm: "grpo",
        hyperparameters: {
          max_steps: 100,
          group_size: 1,
          learning_rate: 0.0005,
          kl_estimator: "none",
          sampling: { temperature: 1 },
          max_grad_norm: 1,
          scale_rewards: true,
        },
        eval: { every: 10, max_tasks: 200 },
        seed: 0,
        num_processes: 1,
        rollout_groups: 16,
        budget: { max_worker_hours: null, max_cost: null },
        prompt_format: { kind: "raw" },
        lora: null,
      },
    });
  });

  it("trains in chat format with LoRA, saying when the model has no chat template", async () => {
    const model = { ...MODELS.models[0]!, architecture: "LlamaForCausalLM", dtype: "float32", context_length: 512, chat_template: false };
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      ...wizardRoutes({ ...MODELS, models: [model] }),
      "POST /api/v1/experiments/": {
        status: 400,
        body: { errors: [{ field: "config.lora.rank", code: "invalid", message: "must be a whole number from 0 to 1024" }] },
      },
    });
    renderApp("/experiments/new");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("radio", { name: /Digit ramp/ }, { timeout: 5000 }));
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.selectOptions(await screen.findByLabelText("Base model"), "tiny-digit-sort");
    expect(screen.getByText("LlamaForCausalLM · float32 · 512 tokens of context · no chat template")).toBeInTheDocument();
    expect(screen.queryByLabelText("System prompt")).not.toBeInTheDocument();
    expect(screen.getByRole("option", { name: "Chat template (this model has no chat template)" })).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText("Prompt format"), "chat");
    expect(screen.getByRole("status")).toHaveTextContent("has no chat template");
    await user.type(screen.getByLabelText("System prompt"), "Sort the digits.");
    expect(screen.queryByLabelText("LoRA alpha")).not.toBeInTheDocument();
    await user.clear(screen.getByLabelText("LoRA rank"));
    await user.type(screen.getByLabelText("LoRA rank"), "8");
    await user.type(screen.getByLabelText("LoRA target modules"), "q_proj, v_proj");
    for (let i = 0; i < 4; i++) await user.click(screen.getByRole("button", { name: "Next" }));
    await user.type(screen.getByLabelText("Name"), "Chat sort");
    await user.click(screen.getByRole("button", { name: "Create and launch" }));

    const rank = await screen.findByLabelText("LoRA rank");
    expect(screen.getByRole("heading", { name: "2. Model" })).toBeInTheDocument();
    expect(rank).toHaveAccessibleDescription(/must be a whole number from 0 to 1024/);
    const config = (requests.find((r) => r.method === "POST")?.body as { config: Record<string, unknown> }).config;
    expect(config.prompt_format).toEqual({ kind: "chat", system_prompt: "Sort the digits." });
    expect(config.lora).toEqual({ rank: 8, alpha: 16, dropout: 0, target_modules: ["q_proj", "v_proj"] });
  });

  it("names an evaluation suite and shows its refusal under the suite, on the evaluation step", async () => {
    const suite = { id: 3, name: "Held-out core", families: [{ family: "digits", version_number: 1 }], max_tasks: 50 };
    const refusal = "suite 'Held-out core': pool version 9 (others) is not in the curriculum";
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      ...wizardRoutes(),
      "GET /api/v1/evaluation-suites/": { body: paginated([suite]) },
      "POST /api/v1/experiments/": { status: 400, body: { errors: [{ field: "config.eval.suite", code: "invalid", message: refusal }] } },
    });
    renderApp("/experiments/new");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("radio", { name: /Digit ramp/ }, { timeout: 5000 }));
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.selectOptions(await screen.findByLabelText("Base model"), "tiny-digit-sort");
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.selectOptions(await screen.findByLabelText("Evaluation suite"), "3");
    expect(screen.queryByLabelText("Held-out tasks per family, at most")).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.type(screen.getByLabelText("Name"), "Sort it");
    await user.click(screen.getByRole("button", { name: "Create and launch" }));

    const select = await screen.findByLabelText("Evaluation suite");
    expect(select).toHaveAttribute("aria-invalid", "true");
    expect(select).toHaveAccessibleDescription(new RegExp(refusal.replace(/[()]/g, "\\$&")));
    const post = requests.find((r) => r.method === "POST");
    expect((post?.body as { config: { eval: unknown } }).config.eval).toEqual({ every: 10, suite: 3 });
  });

  it("creates and launches, then opens the run", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      ...wizardRoutes(),
      "POST /api/v1/experiments/": { status: 201, body: { ...EXPERIMENT, id: 30 } },
      "POST /api/v1/experiments/30/launch/": { status: 202, body: RUN },
      "GET /api/v1/runs/21/": { body: { ...RUN, log_tail: "" } },
      "GET /api/v1/runs/21/metrics/": { body: { run: 21, state: "queued", seq: 0, keys: [], points: {} } },
    });
    const { router } = renderApp("/experiments/new");
    const user = userEvent.setup();
    await walkToReview(user);
    expect(screen.getByLabelText("Configuration summary")).toHaveTextContent("digits · v1 judged by Exact sort · v3");
    await user.click(screen.getByRole("button", { name: "Create and launch" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/runs/21"));
    expect(requests.map((r) => `${r.method} ${r.path}`)).toContain("POST /api/v1/experiments/30/launch/");
  });

  it("asks for what is missing before sending anything", async () => {
    const { requests } = mockApi({ "GET /api/v1/auth/me/": { body: ME }, ...wizardRoutes() });
    renderApp("/experiments/new");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: /Review/ }, { timeout: 5000 }));
    await user.click(screen.getByRole("button", { name: "Create and launch" }));
    expect(await screen.findByText("Choose a curriculum.")).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "1. Curriculum" })).toBeInTheDocument();
    expect(requests.some((r) => r.method === "POST")).toBe(false);
  });

  it("clones an experiment: prefilled, and saved through the clone endpoint as a new experiment", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      ...wizardRoutes(),
      "GET /api/v1/experiments/3/": { body: EXPERIMENT },
      "POST /api/v1/experiments/3/clone/": { status: 201, body: { ...EXPERIMENT, id: 30, parent: 3 } },
      "POST /api/v1/experiments/30/launch/": { status: 202, body: RUN },
      "GET /api/v1/runs/21/": { body: { ...RUN, log_tail: "" } },
      "GET /api/v1/runs/21/metrics/": { body: { run: 21, state: "queued", seq: 0, keys: [], points: {} } },
    });
    const { router } = renderApp("/experiments/new?from=3");
    const user = userEvent.setup();
    expect(await screen.findByRole("heading", { name: "Clone “Digit sort”" }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole("radio", { name: /The cloned experiment's curriculum/ })).toBeChecked();
    expect(screen.getByLabelText("Verifier for pool version 5")).toHaveValue("12");
    await user.click(screen.getByRole("button", { name: /Algorithm/ }));
    expect(await screen.findByLabelText("max_steps")).toHaveValue("200");
    await user.click(screen.getByRole("button", { name: /Review/ }));
    expect(screen.getByLabelText("Name")).toHaveValue("Digit sort (clone)");
    await user.click(screen.getByRole("button", { name: "Create and launch" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/runs/21"));
    const clone = requests.find((r) => r.path === "/api/v1/experiments/3/clone/");
    expect(clone?.body).toMatchObject({
      name: "Digit sort (clone)",
      overrides: {
        curriculum: { families: [{ pool_version: 5, verifier_version: 12 }], origin: { curriculum: 4, revision: 2 } },
        hyperparameters: { max_steps: 200 },
        eval: { every: 10, max_tasks: 200 },
      },
    });
  });

  it("warns on the algorithm step when the run plans too few prompts to learn, until a preset's measured size is chosen", async () => {
    const grpo = ALGORITHMS[0]!;
    const prompts = { ...grpo.fields[0]!, path: "prompts_per_step", default: 16, help: "Prompts per step." };
    const sized = { ...PRESETS[0]!, values: [...PRESETS[0]!.values, { path: "max_steps", value: 240, help: "Training steps.", why: "" }] };
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      ...wizardRoutes(),
      "GET /api/v1/algorithms/": { body: [{ ...grpo, fields: [...grpo.fields, prompts], min_prompts: 1000 }] },
      "GET /api/v1/algorithms/presets/": { body: [sized] },
    });
    renderApp("/experiments/new");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("radio", { name: /Digit ramp/ }, { timeout: 5000 }));
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.selectOptions(await screen.findByLabelText("Base model"), "tiny-digit-sort");
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByLabelText("max_steps");
    expect(screen.queryByTestId("run-size-warning")).not.toBeInTheDocument(); // 100 x 16
    await user.clear(screen.getByLabelText("max_steps"));
    await user.type(screen.getByLabelText("max_steps"), "10");
    expect(screen.getByTestId("run-size-warning")).toHaveTextContent("160 prompts (max_steps × prompts_per_step) are too few");
    expect(screen.getByTestId("run-size-warning")).toHaveTextContent("every preset needed 1,000 to lift");
    await user.click(screen.getByRole("button", { name: "Dr. GRPO" }));
    expect(screen.getByLabelText("max_steps")).toHaveValue("240");
    expect(screen.queryByTestId("run-size-warning")).not.toBeInTheDocument();
    expect(screen.getByTestId("preset-measured")).toHaveTextContent("held-out success 0.45 → 0.70");
  });
});
