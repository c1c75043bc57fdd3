import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderWithProviders } from "@/testing/render";

import type { Run } from "../api/types";
import { RUN } from "../testing/fixtures";
import { RunHealth } from "./run-health";

const BREACHED: Run = {
  ...RUN,
  health: {
    step: 40,
    signals: [
      {
        name: "entropy_collapse",
        label: "Entropy collapse",
        state: "ok",
        sentence: "entropy is 0.8 nats per token; the floor is 0.05",
        since_step: null,
        value: 0.8,
        threshold: 0.05,
        pause_on_breach: false,
      },
      {
        name: "kl_spike",
        label: "KL spike",
        state: "unavailable",
        sentence: "not checked: needs a KL penalty (kl) logged for three or more steps",
        since_step: null,
        value: null,
        threshold: 6,
        pause_on_breach: false,
      },
      {
        name: "reward_vs_heldout",
        label: "Reward rising, held-out flat",
        state: "breached",
        sentence: "training reward rose 0.20 while held-out success stayed at 0.31 over steps 1–40",
        since_step: 40,
        value: 0.2,
        threshold: 0.15,
        pause_on_breach: true,
      },
    ],
  },
};

describe("RunHealth", () => {
  it("says the signals are not checked yet on a run without a check", () => {
    renderWithProviders(<RunHealth run={RUN} />);
    expect(screen.getByRole("region", { name: "Run health" })).toHaveTextContent("Not checked yet");
  });

  it("lists breached signals first with their sentence and a link to the step", () => {
    renderWithProviders(<RunHealth run={BREACHED} />);
    const panel = screen.getByRole("region", { name: "Run health" });
    expect(panel).toHaveTextContent("at step 40");
    expect(panel).toHaveTextContent("1 breached.");
    const rows = within(panel).getAllByRole("listitem");
    expect(rows.map((r) => r.dataset.state)).toEqual(["breached", "ok", "unavailable"]);
    expect(rows[0]).toHaveTextContent("Breached");
    expect(rows[0]).toHaveTextContent("pauses the run");
    expect(rows[0]).toHaveTextContent("stayed at 0.31 over steps 1–40");
    const link = within(rows[0] as HTMLElement).getByRole("link", { name: "since step 40" });
    expect(link).toHaveAttribute("href", "/runs/7/rollouts?step=40");
    expect(rows[2]).toHaveTextContent("Unavailable");
  });
});
