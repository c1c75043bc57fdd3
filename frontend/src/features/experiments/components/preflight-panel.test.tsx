import { act, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { Preflight, PreflightResult } from "../api/preflight";
import { EXPERIMENT, wizardRoutes } from "../testing/fixtures";

const RESULT: PreflightResult = {
  families: [
    {
      family: "digits",
      tasks: 64,
      completions: 512,
      pass_rate: 0.55,
      mean_reward: 0.55,
      frac_reward_zero_std: 0.5,
      levels: [
        { level: 2, tasks: 32, completions: 256, pass_rate: 0.98, mean_reward: 0.98, frac_reward_zero_std: 0.94 },
        { level: 3, tasks: 32, completions: 256, pass_rate: 0.12, mean_reward: 0.12, frac_reward_zero_std: 0.06 },
      ],
      latency_ms: { p50: 0.4, p95: 1.2, max: 3 },
      error_types: { wrong_answer: 230 },
    },
  ],
  warnings: [
    { family: "digits", code: "move_up", severity: "warning", levels: [2], message: "digits: level 2 is solved: move the curriculum up (start at level 3)" },
  ],
  pass_rate: 0.55,
  frac_reward_zero_std: 0.5,
  completions: 512,
  settings: { model: "tiny-digit-sort", group_size: 8, tasks_per_level: 32, temperature: 1, max_new_tokens: 16 },
};

function preflight(changes: Partial<Preflight>): Preflight {
  return {
    id: 9,
    team: "core",
    experiment: null,
    config: EXPERIMENT.config,
    config_hash: "f".repeat(64),
    tasks_per_level: 32,
    state: "queued",
    progress: 0,
    message: "",
    result: null,
    created_by: "ada",
    created_at: "2026-01-01T10:00:00Z",
    started_at: null,
    finished_at: null,
    ...changes,
  };
}

describe("Pre-flight in the wizard", () => {
  it("samples the configuration about to launch and shows per level what a run would learn from", async () => {
    let current = preflight({ state: "running", progress: 0.4, message: "8/20 tasks sampled and verified" });
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      ...wizardRoutes(),
      "POST /api/v1/preflights/": { status: 202, body: preflight({}) },
      "GET /api/v1/preflights/9/": () => ({ body: current }),
    });
    const { queryClient } = renderApp("/experiments/new");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("radio", { name: /Digit ramp/ }, { timeout: 5000 }));
    await user.click(screen.getByRole("button", { name: "Next" }));
    await user.selectOptions(await screen.findByLabelText("Base model"), "tiny-digit-sort");
    await user.click(screen.getByRole("button", { name: /Review/ }));
    const panel = await screen.findByRole("region", { name: "Pre-flight" });
    await user.clear(within(panel).getByLabelText("Tasks per level"));
    await user.type(within(panel).getByLabelText("Tasks per level"), "16");
    await user.click(within(panel).getByRole("button", { name: "Run pre-flight" }));

    expect(await within(panel).findByRole("status")).toHaveTextContent("40% · 8/20 tasks sampled and verified");
    const post = requests.find((r) => r.method === "POST");
    expect(post?.body).toMatchObject({ team: "core", tasks_per_level: 16, config: { model: "tiny-digit-sort", curriculum: { saved: 4 } } });

    // The team's socket says it finished ("preflight.updated" refetches ["preflight"]).
    current = preflight({ state: "succeeded", progress: 1, message: "512 completions judged", result: RESULT });
    await act(() => queryClient.invalidateQueries({ queryKey: ["preflight"] }));
    const table = await within(panel).findByRole("table", { name: "digits by difficulty level" });
    expect(within(table).getByLabelText("level 2 pass rate 98%")).toBeInTheDocument();
    expect(within(table).getByLabelText("level 3 groups without signal 6%")).toBeInTheDocument();
    expect(within(panel).getByRole("list", { name: "What to change" })).toHaveTextContent("move the curriculum up (start at level 3)");
    expect(panel).toHaveTextContent("p95 1.2 ms");
    expect(panel).toHaveTextContent("wrong_answer · 230");

    // Another group size makes it stale: the panel says so.
    await user.click(screen.getByRole("button", { name: /Algorithm/ }));
    await user.clear(await screen.findByLabelText("group_size"));
    await user.type(screen.getByLabelText("group_size"), "4");
    await user.click(screen.getByRole("button", { name: /Review/ }));
    expect(await screen.findByText(/The configuration changed since this pre-flight/)).toBeInTheDocument();
  }, 20_000);

  it("names the field the server refused", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      ...wizardRoutes(),
      "POST /api/v1/preflights/": {
        status: 400,
        body: { errors: [{ field: "config.model", code: "unavailable", message: "no running worker can load 'x'" }] },
      },
    });
    renderApp("/experiments/new");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("radio", { name: /Digit ramp/ }, { timeout: 5000 }));
    await user.click(screen.getByRole("button", { name: /Review/ }));
    await user.click(await screen.findByRole("button", { name: "Run pre-flight" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("config.model: no running worker can load 'x'");
  });
});
