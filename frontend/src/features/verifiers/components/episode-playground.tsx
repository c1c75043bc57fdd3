import { useState, type FormEvent } from "react";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { Conversation } from "@/components/conversation/conversation";
import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";

import { useEnvironmentKinds, type EnvironmentKind } from "../api/get-environment-kinds";
import { useRunEpisode, type Episode } from "../api/run-episode";
import { episodePresetFor } from "../lib/episode-presets";
import type { Spec } from "../types";
import { JsonEditor } from "./json-editor";
import { TaskPicker, type LoadedTask } from "./task-picker";
import { VerdictView } from "./verdict-view";

const MAX_TURNS = 12;

type Inputs = { prompt: string; expected: Record<string, unknown>; script: string[] };

function ScriptEditor({ script, onChange }: { script: string[]; onChange: (script: string[]) => void }) {
  const set = (i: number, text: string) => onChange(script.map((s, j) => (j === i ? text : s)));
  return (
    <fieldset className="stack" style={{ gap: "var(--space-2)" }} aria-label="Script">
      <legend>Assistant turns, in order</legend>
      {script.map((text, i) => (
        <div key={i} className="row" style={{ alignItems: "flex-start" }}>
          <textarea
            aria-label={`Turn ${i + 1}`}
            className="vf-textarea"
            rows={3}
            spellCheck={false}
            value={text}
            onChange={(e) => set(i, e.target.value)}
          />
          <button type="button" className="btn btn-sm" aria-label={`Remove turn ${i + 1}`} disabled={script.length === 1} onClick={() => onChange(script.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <div>
        <button type="button" className="btn btn-sm" disabled={script.length >= MAX_TURNS} onClick={() => onChange([...script, ""])}>
          Add turn
        </button>
      </div>
    </fieldset>
  );
}

function EpisodeResult({ episode }: { episode: Episode }) {
  return (
    <div className="stack">
      <Card
        title="Episode"
        description={`${episode.turns} turn${episode.turns === 1 ? "" : "s"} of a budget of ${episode.turn_budget} · ended by ${episode.ended_by}`}
      >
        <div className="card-body">
          <Conversation messages={episode.messages} label="Episode conversation" />
        </div>
      </Card>
      <VerdictView verdict={{ ...episode.verdict, seconds: episode.seconds, spec_hash: episode.spec_hash }} />
    </div>
  );
}

/** Kinds playing the verifier's family first choice; all of them when none does. */
function kindsFor(kinds: EnvironmentKind[], familyKind: string | undefined): EnvironmentKind[] {
  const own = kinds.filter((k) => k.family === familyKind);
  return own.length > 0 ? own : kinds;
}

/**
 * Plays one episode with a scripted policy: the user writes the assistant's turns, each is
 * stepped through the environment (tools run in the sandbox), and the final answer is judged by
 * this verifier's draft (or the family's default) with each turn's verdict.
 */
export function EpisodePlayground({ team, familyKind, spec }: { team: string; familyKind: string | undefined; spec: Spec }) {
  const kinds = useEnvironmentKinds();
  const choices = kindsFor(kinds.data ?? [], familyKind);
  const [chosen, setChosen] = useState<string | null>(null);
  const kind = choices.find((k) => k.name === chosen) ?? choices[0];
  const [inputs, setInputs] = useState<Inputs | null>(null);
  const [loaded, setLoaded] = useState<LoadedTask | null>(null);
  const [invalid, setInvalid] = useState(false);
  const [editorKey, setEditorKey] = useState(0);
  const run = useRunEpisode();
  const current = inputs ?? episodePresetFor(kind?.name);

  function choose(name: string) {
    setChosen(name);
    setInputs(null);
    setLoaded(null);
    setEditorKey((k) => k + 1);
    run.reset();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!kind) return;
    const source = loaded ? { task: loaded.task.id } : { prompt: current.prompt, expected: current.expected };
    const judge = spec.layers.length > 0 ? { spec } : {};
    run.mutate({ environment: kind.name, script: current.script, ...source, ...judge });
  }

  return (
    <div className="stack">
      <Card
        title="Play an episode"
        description={
          spec.layers.length > 0
            ? "Script the assistant's turns: each runs through the environment, and the builder's draft judges the final answer."
            : "Script the assistant's turns: each runs through the environment, and the family's default verifier judges the final answer."
        }
      >
        <form className="card-body stack" onSubmit={submit} aria-label="Episode playground">
          <QueryPlaceholder query={kinds} />
          {kind && (
            <Field id="episode-environment" label="Environment" hint={kind.description}>
              <select id="episode-environment" className="select" value={kind.name} onChange={(e) => choose(e.target.value)}>
                {choices.map((k) => (
                  <option key={k.name} value={k.name}>
                    {k.label}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {kind && kind.tools.length > 0 && (
            <div className="subtle" style={{ fontSize: "var(--text-sm)" }}>
              Tools: {kind.tools.map((t) => t.function.name).join(", ")} · call one with{" "}
              <span className="mono">{'<tool_call>{"name": …, "arguments": {…}}</tool_call>'}</span>; a turn without a call is the final answer.
            </div>
          )}
          <details className="vf-task-loader" open={loaded !== null || undefined}>
            <summary>Play a real task from a pool version</summary>
            <TaskPicker team={team} onLoad={(task) => setLoaded(task)} />
          </details>
          {loaded ? (
            <div className="row">
              <span className="subtle">
                Task #{loaded.task.position + 1} of {loaded.family.name} v{loaded.version.number}
              </span>
              <button type="button" className="btn btn-sm" onClick={() => setLoaded(null)}>
                Use the sample instead
              </button>
            </div>
          ) : (
            <div className="grid-2">
              <Field id="episode-prompt" label="Task prompt">
                <textarea
                  id="episode-prompt"
                  className="vf-textarea"
                  rows={4}
                  value={current.prompt}
                  onChange={(e) => setInputs({ ...current, prompt: e.target.value })}
                />
              </Field>
              <Field id="episode-expected" label="Expected (JSON object)">
                <JsonEditor
                  // Keyed by the kind too: the sample arrives with the catalogue, after the first render.
                  key={`episode-expected-${kind?.name ?? ""}-${editorKey}`}
                  id="episode-expected"
                  rows={4}
                  value={current.expected}
                  onChange={(value, valid) => {
                    setInvalid(!valid);
                    if (valid) setInputs({ ...current, expected: (value ?? {}) as Record<string, unknown> });
                  }}
                />
              </Field>
            </div>
          )}
          <ScriptEditor script={current.script} onChange={(script) => setInputs({ ...current, script })} />
          <ErrorMessage error={run.error} />
          <div className="row">
            <button type="submit" className="btn btn-primary" disabled={!kind || run.isPending || (invalid && !loaded)}>
              {run.isPending ? "Playing…" : "Play episode"}
            </button>
          </div>
        </form>
      </Card>
      {run.data && <EpisodeResult episode={run.data} />}
    </div>
  );
}
