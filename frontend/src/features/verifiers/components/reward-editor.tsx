import { Field } from "@/components/ui/field";

import { NumberInput } from "./number-input";
import type { SpecErrors } from "../lib/field-errors";
import { REWARD_PARTS, TURN_PARTS, type RewardPart, type RewardSpec } from "../types";

const HINTS: Record<RewardPart, string> = {
  outcome: "1 when every non-constraint layer passed",
  process: "mean score of semantic and boundary layers",
  constraint: "1 when every constraint layer passed",
  judge: "mean P(yes) of the judge layers",
  tool_format: "multi-turn: share of turns whose tool calls parsed",
  tool_success: "multi-turn: share of turns whose tools ran without error",
  valid_moves: "multi-turn: share of turns the environment's rules allowed",
};

const ALL_PARTS = [...REWARD_PARTS, ...TURN_PARTS];

function Errors({ messages }: { messages: string[] | undefined }) {
  return (
    <>
      {(messages ?? []).map((m) => (
        <span key={m} className="field-error" role="alert">
          {m}
        </span>
      ))}
    </>
  );
}

export function RewardEditor({
  reward,
  errors,
  onWeight,
  onFailureReward,
}: {
  reward: RewardSpec;
  errors: SpecErrors;
  onWeight: (part: RewardPart, value: number | undefined) => void;
  onFailureReward: (value: number) => void;
}) {
  const total = ALL_PARTS.reduce((sum, part) => sum + (reward.weights[part] ?? 0), 0);
  const other = Object.entries(errors.fields).filter(
    ([key]) => key.startsWith("reward") && !ALL_PARTS.some((p) => key === `reward.weights.${p}`) && key !== "reward.failure_reward",
  );
  return (
    <div className="stack" style={{ gap: "var(--space-3)" }}>
      {other.map(([key, messages]) => (
        <Errors key={key} messages={messages.map((m) => `${key}: ${m}`)} />
      ))}
      {ALL_PARTS.map((part) => (
        <Field key={part} id={`weight-${part}`} label={`${part} weight`} hint={HINTS[part]}>
          <NumberInput
            id={`weight-${part}`}
            className="input"
            step="any"
            min={0}
            placeholder="0"
            aria-invalid={errors.fields[`reward.weights.${part}`] ? true : undefined}
            value={reward.weights[part]}
            onValue={(value) => onWeight(part, value)}
          />
          <Errors messages={errors.fields[`reward.weights.${part}`]} />
        </Field>
      ))}
      <div className="subtle" style={{ fontSize: "var(--text-sm)" }}>
        Reward = Σ weight × part; weights sum to <span className="mono">{total.toFixed(2)}</span> (need not be 1).
      </div>
      <Field id="failure-reward" label="Failure reward" hint="replaces the sum when extraction or a syntax layer failed">
        <NumberInput
          id="failure-reward"
          className="input"
          step="any"
          aria-invalid={errors.fields["reward.failure_reward"] ? true : undefined}
          value={reward.failure_reward}
          onValue={(value) => onFailureReward(value ?? 0)}
        />
        <Errors messages={errors.fields["reward.failure_reward"]} />
      </Field>
    </div>
  );
}
