import { useEffect, useId, useState, type ReactNode } from "react";
import { useSearchParams } from "react-router";

import { formatValue } from "@/components/charts/time-series-chart";
import { Conversation, asConversation, type ConversationMessage } from "@/components/conversation/conversation";
import { QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage } from "@/components/ui/error-message";

import { useFlagRollout } from "../api/flag-rollout";
import { GROUPS_PAGE_SIZE, useRolloutGroups, type InspectedRollout, type RolloutGroup } from "../api/get-rollout-groups";
import type { Run } from "../api/types";
import { filtersFromParams, inspectorChoices, narrowsCompletions, withFilter, type FilterName } from "../lib/inspector";

type Layer = {
  name?: string;
  kind?: string;
  stage?: string;
  passed?: boolean;
  score?: number | null;
  error_type?: string;
  detail?: string;
  skipped?: boolean;
};

const SEARCH_DELAY_MS = 300;

function Verdict({ passed }: { passed: boolean }) {
  return <span className={`badge ${passed ? "badge-success" : "badge-danger"}`}>{passed ? "passed" : "failed"}</span>;
}

function LayersTable({ layers }: { layers: Layer[] }) {
  if (layers.length === 0) return null;
  return (
    <table className="table rn-layers" aria-label="Layered verdict">
      <thead>
        <tr>
          <th>Layer</th>
          <th>Stage</th>
          <th>Result</th>
          <th>Score</th>
          <th>Error type</th>
          <th>Detail</th>
        </tr>
      </thead>
      <tbody>
        {layers.map((layer, i) => (
          <tr key={`${layer.name ?? "layer"}-${i}`} className={layer.skipped ? "is-inactive" : undefined}>
            <td>
              <strong>{layer.name}</strong> <span className="mono subtle">{layer.kind}</span>
            </td>
            <td>{layer.stage}</td>
            <td>{layer.skipped && !layer.passed ? <span className="subtle">skipped</span> : <Verdict passed={!!layer.passed} />}</td>
            <td className="mono">{formatValue(layer.score)}</td>
            <td>{layer.error_type && layer.error_type !== "none" ? <span className="rn-error-type">{layer.error_type}</span> : <span className="subtle">—</span>}</td>
            <td className="rn-detail">{layer.detail}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Parts({ parts }: { parts: InspectedRollout["parts"] }) {
  return (
    <span className="rn-parts">
      {Object.entries(parts).map(([part, value]) => (
        <span key={part}>
          {part} <span className="mono">{formatValue(value)}</span>
        </span>
      ))}
    </span>
  );
}

/** What flagging this verdict proposes, in words. */
function proposal(rollout: InspectedRollout): string {
  return rollout.passed ? "a known bad example (the verifier passed it)" : "a known good example (the verifier failed it)";
}

type Flag = NonNullable<InspectedRollout["flag"]>;

function FlagBadge({ flag }: { flag: Flag }) {
  const text = { proposed: "flagged: awaiting review", accepted: "flag accepted", rejected: "flag rejected" }[flag.status] ?? flag.status;
  const what = flag.turn === null ? "Proposed" : "Turn proposed";
  return (
    <span className="badge badge-accent rn-flag" title={`${what} as known ${flag.label} by ${flag.created_by ?? "someone"}`}>
      {text}
    </span>
  );
}

/** What flagging a turn's verdict proposes, in words: the environment's verdict on the turn
 * was wrong either way. */
function turnProposal(message: ConversationMessage): string {
  const error = message.verdict?.error;
  return error
    ? `This turn was judged ${error}, but it was fine: propose it to the verifier's team as a known good turn`
    : "This turn was judged clean, but it was not: propose it to the verifier's team as a known bad turn";
}

/** Below an assistant turn of an episode: its flag with its status, or a way to flag it. */
function TurnFlag({ runId, rollout, index, turn, flag }: { runId: number; rollout: InspectedRollout; index: number; turn: number; flag: Flag | undefined }) {
  const [flagging, setFlagging] = useState(false);
  return (
    <div className="rn-turn-flag">
      {flag ? (
        <FlagBadge flag={flag} />
      ) : flagging ? (
        <FlagForm
          runId={runId}
          rollout={rollout}
          turn={index}
          label={`Flag the verdict of turn ${turn} of sample ${rollout.sample}`}
          onDone={() => setFlagging(false)}
        >
          {turnProposal((rollout.messages as ConversationMessage[])[index]!)}, with the conversation up to and including it.
        </FlagForm>
      ) : (
        <button type="button" className="btn btn-sm" aria-label={`Flag turn ${turn} of sample ${rollout.sample}`} aria-expanded={false} onClick={() => setFlagging(true)}>
          Flag turn verdict
        </button>
      )}
    </div>
  );
}

/** A flag's note, sent for the whole verdict or, with `turn` (a message's index), one turn's. */
function FlagForm({
  runId,
  rollout,
  turn,
  label,
  children,
  onDone,
}: {
  runId: number;
  rollout: InspectedRollout;
  turn?: number;
  label: string;
  children: ReactNode;
  onDone: () => void;
}) {
  const flag = useFlagRollout(runId);
  const [note, setNote] = useState("");
  const noteId = useId();
  return (
    <form
      className={turn === undefined ? "rn-flag-form" : "rn-flag-form rn-turn-flag-form"}
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        flag.mutate({ rolloutId: rollout.id, note, turn }, { onSuccess: onDone });
      }}
    >
      <p>{children}</p>
      <label htmlFor={noteId}>Why (optional)</label>
      <input id={noteId} className="input" maxLength={300} value={note} onChange={(e) => setNote(e.target.value)} />
      <ErrorMessage error={flag.error} />
      <div className="row">
        <button type="submit" className="btn btn-primary btn-sm" disabled={flag.isPending}>
          {flag.isPending ? "Flagging…" : "Send flag"}
        </button>
        <button type="button" className="btn btn-sm" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function CompletionRow({ runId, rollout, dim }: { runId: number; rollout: InspectedRollout; dim: boolean }) {
  const [flagging, setFlagging] = useState(false);
  const [showLayers, setShowLayers] = useState(false);
  const layers = rollout.layers as Layer[];
  // A multi-turn rollout carries its episode (with each turn's verdict): shown as the
  // conversation after the prompt.
  const episode = asConversation(rollout.messages);
  return (
    <>
      <tr className={dim ? (rollout.matches ? "rn-match" : "is-inactive") : undefined} data-sample={rollout.sample}>
        <td className="mono subtle">{rollout.sample}</td>
        <td className="rn-completion-cell">
          {episode ? (
            <div className="rn-episode">
              <Conversation
                messages={episode}
                hideOpening
                label={`Episode of sample ${rollout.sample}`}
                turnExtra={(index, turn) => (
                  <TurnFlag runId={runId} rollout={rollout} index={index} turn={turn} flag={rollout.turn_flags.find((f) => f.turn === index)} />
                )}
              />
            </div>
          ) : (
            <pre className="rn-text rn-completion">{rollout.completion || <span className="subtle">(empty)</span>}</pre>
          )}
          {layers.length > 0 && (
            <button type="button" className="rn-layers-toggle" aria-expanded={showLayers} onClick={() => setShowLayers(!showLayers)}>
              <span aria-hidden="true">{showLayers ? "▾" : "▸"}</span> {layers.length} layer{layers.length === 1 ? "" : "s"}:{" "}
              {layers.map((l) => `${l.name ?? l.kind} ${l.skipped && !l.passed ? "skipped" : l.passed ? "✓" : "✗"}`).join(" · ")}
            </button>
          )}
        </td>
        <td>
          <Verdict passed={rollout.passed} />
          {!rollout.passed && rollout.error_type && (
            <div>
              <span className="rn-error-type">{rollout.error_type}</span>
            </div>
          )}
        </td>
        <td className="mono">{formatValue(rollout.reward)}</td>
        <td>
          <Parts parts={rollout.parts} />
        </td>
        <td className="mono">{formatValue(rollout.advantage)}</td>
        <td className="cell-actions">
          {rollout.flag ? (
            <FlagBadge flag={rollout.flag} />
          ) : (
            <button
              type="button"
              className="btn btn-sm"
              aria-label={`Flag verdict of sample ${rollout.sample}`}
              aria-expanded={flagging}
              onClick={() => setFlagging(!flagging)}
            >
              Flag verdict
            </button>
          )}
        </td>
      </tr>
      {showLayers && (
        // A row of its own, as wide as the card: inside the completion cell it widened that
        // column until the Advantage and Flag columns left the card.
        <tr className="rn-layers-row">
          <td />
          <td colSpan={6}>
            <div className="rn-layers-scroll">
              <LayersTable layers={layers} />
            </div>
          </td>
        </tr>
      )}
      {flagging && !rollout.flag && (
        <tr className="rn-flag-row">
          <td />
          <td colSpan={6}>
            <FlagForm runId={runId} rollout={rollout} label={`Flag the verdict of sample ${rollout.sample}`} onDone={() => setFlagging(false)}>
              The verdict is wrong: propose this completion to the verifier&apos;s team as {proposal(rollout)}. Once accepted it counts in
              the verifier&apos;s false-positive and false-negative rates.
            </FlagForm>
          </td>
        </tr>
      )}
    </>
  );
}

function GroupCard({ runId, group, dim }: { runId: number; group: RolloutGroup; dim: boolean }) {
  const first = group.rollouts[0];
  if (!first) return null;
  const passed = group.rollouts.filter((r) => r.passed).length;
  return (
    <article className="card rn-sample" aria-label={`Step ${group.step}, group ${group.group}`}>
      <header className="rn-sample-head">
        <strong>Step {group.step}</strong>
        <span className="subtle">group {group.group}</span>
        <span className="rn-chip">{first.family}</span>
        <span className="rn-chip">level {first.difficulty}</span>
        <span className="subtle rn-sample-figures">
          {passed} of {group.rollouts.length} passed
        </span>
      </header>
      <div className="rn-prompt">
        <div className="rn-text-label">Prompt</div>
        <pre className="rn-text">{first.prompt}</pre>
      </div>
      <div className="table-wrap">
        <table className="table rn-samples-table" aria-label={`Completions of step ${group.step}, group ${group.group}`}>
          <thead>
            <tr>
              <th>#</th>
              <th>Completion</th>
              <th>Verdict</th>
              <th>Reward</th>
              <th>Parts</th>
              <th>Advantage</th>
              <th>
                <span className="visually-hidden">Flag</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {group.rollouts.map((r) => (
              <CompletionRow key={r.id} runId={runId} rollout={r} dim={dim} />
            ))}
          </tbody>
        </table>
      </div>
      <footer className="rn-provenance subtle">
        pool version {first.pool_version ?? "—"} · verifier version {first.verifier_version ?? "—"} · task{" "}
        <span className="mono">{first.task_hash ? first.task_hash.slice(0, 12) : "—"}</span>
      </footer>
    </article>
  );
}

/** The search box: the URL (and the query) follow the text once typing pauses. */
function SearchField({ value, onChange }: { value: string; onChange: (text: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => onChange(text), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return (
    <div className="field rn-filter-search">
      <label htmlFor="inspector-search">Search</label>
      <input
        id="inspector-search"
        className="input"
        type="search"
        maxLength={200}
        placeholder="Prompt or completion text"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
    </div>
  );
}

function Select({ id, label, value, options, all, onChange }: { id: string; label: string; value: string; options: [string, string][]; all: string; onChange: (v: string) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} className="select" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{all}</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

function NumberField({ id, label, value, placeholder, onChange }: { id: string; label: string; value: string; placeholder?: string; onChange: (v: string) => void }) {
  return (
    <div className="field rn-filter-number">
      <label htmlFor={id}>{label}</label>
      <input id={id} className="input" inputMode="decimal" placeholder={placeholder} value={value} onChange={(e) => onChange(e.target.value.trim())} />
    </div>
  );
}

/**
 * The rollout inspector: each step's groups (the prompt and its G completions, each with its
 * layered verdict, error type, reward parts and advantage), filtered by step, family, level,
 * verdict, error type, reward range and text. The filters live in the URL, so a chart's point
 * links here at its step. A completion whose verdict looks wrong can be flagged, and so can
 * one turn of an episode whose verdict looks wrong.
 */
export function RolloutInspector({ run, metricKeys }: { run: Run; metricKeys: string[] }) {
  const [params, setParams] = useSearchParams();
  const filters = filtersFromParams(params);
  const groups = useRolloutGroups(run.id, filters);
  const choices = inspectorChoices(metricKeys);
  const count = groups.data?.count ?? 0;
  const page = Number(filters.page) || 1;
  const pages = Math.max(1, Math.ceil(count / GROUPS_PAGE_SIZE));
  const set = (name: FilterName) => (value: string) => setParams(withFilter(params, name, value), { replace: true });

  return (
    <div className="stack">
      <div className="card rn-filters" role="group" aria-label="Filter rollouts">
        <NumberField id="inspector-step" label="Step" value={params.get("step") ?? ""} placeholder={`1–${run.step}`} onChange={set("step")} />
        <Select id="inspector-family" label="Family" value={params.get("family") ?? ""} all="All families" options={choices.families.map((f) => [f, f])} onChange={set("family")} />
        <Select
          id="inspector-level"
          label="Level"
          value={params.get("difficulty") ?? ""}
          all="All levels"
          options={choices.levels.map((l) => [String(l), `level ${l}`])}
          onChange={set("difficulty")}
        />
        <Select
          id="inspector-verdict"
          label="Verdict"
          value={params.get("passed") ?? ""}
          all="Passed and failed"
          options={[
            ["true", "Passed"],
            ["false", "Failed"],
          ]}
          onChange={set("passed")}
        />
        <Select id="inspector-error" label="Error type" value={params.get("error_type") ?? ""} all="Any error type" options={choices.errorTypes.map((e) => [e, e])} onChange={set("error_type")} />
        <fieldset className="field rn-filter-range">
          <legend>Reward</legend>
          <div className="row">
            <input
              aria-label="Reward from"
              className="input"
              inputMode="decimal"
              placeholder="from"
              value={params.get("reward_min") ?? ""}
              onChange={(e) => set("reward_min")(e.target.value.trim())}
            />
            <input
              aria-label="Reward to"
              className="input"
              inputMode="decimal"
              placeholder="to"
              value={params.get("reward_max") ?? ""}
              onChange={(e) => set("reward_max")(e.target.value.trim())}
            />
          </div>
        </fieldset>
        <SearchField value={params.get("search") ?? ""} onChange={set("search")} />
        <span className="subtle rn-filters-count" aria-live="polite">
          {groups.data ? `${count} group${count === 1 ? "" : "s"}` : ""}
        </span>
      </div>
      <QueryPlaceholder query={groups} />
      {groups.data?.results.length === 0 && (
        <EmptyState title="No stored completions match" icon="inbox">
          Each step stores its first groups of completions (the experiment&apos;s rollout_groups) with their verdicts.
        </EmptyState>
      )}
      {groups.data?.results.map((g) => <GroupCard key={`${g.step}-${g.group}`} runId={run.id} group={g} dim={narrowsCompletions(filters)} />)}
      {pages > 1 && (
        <nav className="row rn-pager" aria-label="Rollout pages">
          <button type="button" className="btn btn-sm" disabled={page <= 1} onClick={() => set("page")(String(page - 1))}>
            Previous
          </button>
          <span className="subtle">
            Page {page} of {pages}
          </span>
          <button type="button" className="btn btn-sm" disabled={page >= pages} onClick={() => set("page")(String(page + 1))}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}
