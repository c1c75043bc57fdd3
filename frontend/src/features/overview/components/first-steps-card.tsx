import { Link } from "react-router";

import { Card } from "@/components/ui/card";
import { Icon } from "@/components/ui/icon";
import type { MeTeam } from "@/lib/auth";

import { useTeamSummary } from "../api/get-team-summary";
import { firstSteps } from "../lib/first-steps";

/** Shown to a team until it has taken every first step; nothing once it has. */
export function FirstStepsCard({ team }: { team: MeTeam }) {
  const summary = useTeamSummary(team);
  if (!summary.data) return null;
  const steps = firstSteps(summary.data);
  if (steps.every((step) => step.done)) return null;
  return (
    <Card title="First steps" description="From an empty team to a curriculum ready for training">
      <ol className="ov-steps">
        {steps.map((step) => (
          <li key={step.label} className={step.done ? "ov-step ov-step-done" : "ov-step"}>
            <span className="ov-step-mark" aria-hidden="true">
              {step.done && <Icon name="check" size={12} />}
            </span>
            <Link to={step.to}>{step.label}</Link>
            {step.done && <span className="visually-hidden"> (done)</span>}
          </li>
        ))}
      </ol>
    </Card>
  );
}
