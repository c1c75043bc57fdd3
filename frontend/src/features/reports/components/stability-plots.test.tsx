import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { Profile } from "../api/reports";
import { StabilityPlots } from "./stability-plots";

const base: Profile = {
  by_difficulty: { digits: [{ difficulty: 2, success: 0.5, tasks: 10 }] },
  errors_by_layer: {},
  worst_tasks: [],
  pass_at_k: { digits: { k: 4, pass_at_1: 0.5, pass_at_k: 0.75 } },
};

function stability(success: number, agreement: number | null) {
  return {
    tasks: 12, episodes: 36, k: 3, success, mean_turns: 2.5, mean_budget: 4.5,
    tokens_per_episode: 15, turn_errors_per_episode: 0.2, tool_errors_per_episode: 0.25,
    by_turns_used: [{ turns: 2, episodes: 12, success: 1 }, { turns: 5, episodes: 6, success: 0 }],
    by_budget: [{ budget: 4, episodes: 18, success: 1, mean_turns: 2.3 }, { budget: 5, episodes: 18, success: 0.5, mean_turns: 4 }],
    within_turns: [1, 2, 3, 4, 5].map((t) => ({ turns: t, success: Math.min(success, t / 5) })),
    consistency: { agreement, all_agree: 0.5, pass_hat_k: [{ k: 1, value: success }, { k: 2, value: success / 2 }, { k: 3, value: success / 3 }] },
  };
}

describe("Stability over turns", () => {
  it("draws each environment family's plots and each side's figures", () => {
    render(
      <StabilityPlots
        candidate={{ ...base, stability: { guess: stability(0.75, 2 / 3) } }}
        baseline={{ ...base, stability: { guess: stability(0.25, null) } }}
      />,
    );
    expect(screen.getByRole("img", { name: "guess: success by turns used" })).toBeInTheDocument();
    expect(screen.getByRole("img", { name: "guess: success within t turns" })).toBeInTheDocument();
    expect(screen.getByRole("img", { name: "guess: pass^k of repeated episodes" })).toBeInTheDocument();
    const rows = within(screen.getByRole("table", { name: "Stability over turns" })).getAllByRole("row");
    expect(rows.map((r) => r.textContent)).toEqual([
      "FamilySideEpisodesSuccessTurns usedTurn budgetAgreementAll agreeTool errors / episodeTokens / episode",
      "guessbaseline3625%2.504.50 (4: 100%, 5: 50%)–50%0.2515.0",
      "guesscandidate3675%2.504.50 (4: 100%, 5: 50%)67%50%0.2515.0",
    ]);
  });

  it("shows nothing for a report of single-turn families", () => {
    const { container } = render(<StabilityPlots candidate={{ ...base, stability: {} }} baseline={base} />);
    expect(container).toBeEmptyDOMElement();
  });
});
