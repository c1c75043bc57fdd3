import { useState, type FormEvent } from "react";

import { Card } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";

import { useCreateExample } from "../api/create-example";
import { useRunPlayground, type PlaygroundSpec } from "../api/run-playground";
import { presetFor } from "../lib/presets";
import type { Spec } from "../types";
import { JsonEditor } from "./json-editor";
import { SandboxStrip } from "./sandbox-status";
import { SpecSourcePicker, useSavedVersion, type SpecSource } from "./spec-source";
import { TaskPicker, type LoadedTask } from "./task-picker";
import { VerdictView } from "./verdict-view";

type Inputs = { response: string; expected: Record<string, unknown>; context: Record<string, unknown> };

function LoadedTaskNote({ loaded }: { loaded: LoadedTask }) {
  const { task, family, version } = loaded;
  return (
    <div className="vf-loaded-task" data-testid="loaded-task">
      <div className="subtle" style={{ fontSize: "var(--text-sm)" }}>
        Task #{task.position + 1} of {family.name} v{version.number} · level {task.difficulty} · {task.split}
        {task.source_id ? ` · ${task.source_id}` : ""}: its expected data and prompt fill the form.
      </div>
      <pre className="vf-pre" aria-label="Task prompt">
        {task.prompt}
      </pre>
    </div>
  );
}

export function Playground({
  verifierId,
  team,
  familyKind,
  spec,
  dirty,
}: {
  verifierId: number;
  team: string;
  familyKind: string | undefined;
  spec: Spec;
  dirty: boolean;
}) {
  const preset = presetFor(familyKind);
  const [inputs, setInputs] = useState<Inputs>({
    response: preset.good,
    expected: preset.expected,
    context: preset.context ?? {},
  });
  // Editors keep their own text; bumping the key reloads them after "Fill with".
  const [editorKey, setEditorKey] = useState(0);
  const [invalid, setInvalid] = useState<{ expected: boolean; context: boolean }>({ expected: false, context: false });
  const [source, setSource] = useState<SpecSource>({ kind: "draft" });
  const [loaded, setLoaded] = useState<LoadedTask | null>(null);
  const { version: saved } = useSavedVersion(source);
  const run = useRunPlayground();
  const saveExample = useCreateExample(verifierId);

  function replaceInputs(next: Inputs) {
    setInputs(next);
    setInvalid({ expected: false, context: false });
    setEditorKey((k) => k + 1);
    run.reset();
  }

  function fill(which: "good" | "bad") {
    setLoaded(null);
    replaceInputs({ response: preset[which], expected: preset.expected, context: preset.context ?? {} });
  }

  function loadTask(task: LoadedTask) {
    setLoaded(task);
    // The sample response belongs to another task: start from an empty one.
    replaceInputs({ response: "", expected: task.task.expected as Record<string, unknown>, context: { prompt: task.task.prompt } });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    saveExample.reset();
    const verifier: PlaygroundSpec | null = source.kind === "draft" ? { spec } : saved && { verifier_version: saved.id };
    if (verifier) run.mutate({ ...verifier, ...inputs });
  }

  function keep(label: "good" | "bad") {
    saveExample.mutate({ response: inputs.response, expected: inputs.expected, label, note: "from the playground" });
  }

  const noSpec = source.kind === "draft" ? spec.layers.length === 0 : !saved;
  const blocked = invalid.expected || invalid.context || noSpec;
  return (
    <div className="stack">
      <Card
        title="Try the verifier"
        description={
          source.kind === "saved"
            ? saved
              ? `Runs version ${saved.number} exactly as saved.`
              : "Choose a saved version to run."
            : dirty
              ? "Runs the builder's unsaved draft, so you can test a change before saving it."
              : "Runs the latest version's spec on one response."
        }
        actions={
          <div className="row">
            <span className="subtle" style={{ fontSize: "var(--text-sm)" }}>
              Fill with:
            </span>
            <button type="button" className="btn btn-sm" onClick={() => fill("good")}>
              Correct sample
            </button>
            <button type="button" className="btn btn-sm" onClick={() => fill("bad")}>
              Wrong sample
            </button>
          </div>
        }
      >
        <form className="card-body stack" onSubmit={submit} aria-label="Playground">
          <SandboxStrip />
          <SpecSourcePicker source={source} currentVerifierId={verifierId} onChange={setSource} />
          <details className="vf-task-loader" open={loaded !== null || undefined}>
            <summary>Load a real task from a pool version</summary>
            <TaskPicker team={team} onLoad={loadTask} />
          </details>
          {loaded && <LoadedTaskNote loaded={loaded} />}
          <div className="grid-2">
            <Field id="playground-response" label="Response">
              <textarea
                id="playground-response"
                className="vf-textarea"
                rows={12}
                spellCheck={false}
                placeholder="Paste a model's response to the task"
                value={inputs.response}
                onChange={(e) => setInputs({ ...inputs, response: e.target.value })}
              />
            </Field>
            <div className="stack" style={{ gap: "var(--space-3)" }}>
              <Field id="playground-expected" label="Expected (JSON object)">
                <JsonEditor
                  key={`expected-${editorKey}`}
                  id="playground-expected"
                  rows={8}
                  value={inputs.expected}
                  onChange={(value, valid) => {
                    setInvalid((s) => ({ ...s, expected: !valid }));
                    if (valid) setInputs((s) => ({ ...s, expected: (value ?? {}) as Record<string, unknown> }));
                  }}
                />
              </Field>
              <Field id="playground-context" label="Context (JSON object, optional)" hint="e.g. the task prompt for a model judge">
                <JsonEditor
                  key={`context-${editorKey}`}
                  id="playground-context"
                  rows={2}
                  value={inputs.context}
                  onChange={(value, valid) => {
                    setInvalid((s) => ({ ...s, context: !valid }));
                    if (valid) setInputs((s) => ({ ...s, context: (value ?? {}) as Record<string, unknown> }));
                  }}
                />
              </Field>
            </div>
          </div>
          <ErrorMessage error={run.error} />
          <div className="row">
            <button type="submit" className="btn btn-primary" disabled={run.isPending || blocked}>
              {run.isPending ? "Running…" : "Run"}
            </button>
            {source.kind === "draft" && spec.layers.length === 0 && (
              <span className="subtle">Add a layer in the builder first.</span>
            )}
            {run.data && (
              <span className="row" style={{ marginLeft: "auto" }}>
                <span className="subtle" style={{ fontSize: "var(--text-sm)" }}>
                  {saveExample.isSuccess ? `Saved as a ${saveExample.data.label} example.` : "Keep as a labelled example:"}
                </span>
                <button type="button" className="btn btn-sm" disabled={saveExample.isPending} onClick={() => keep("good")}>
                  Save as good
                </button>
                <button type="button" className="btn btn-sm" disabled={saveExample.isPending} onClick={() => keep("bad")}>
                  Save as bad
                </button>
              </span>
            )}
          </div>
          <ErrorMessage error={saveExample.error} />
        </form>
      </Card>
      {run.data && <VerdictView verdict={run.data} />}
    </div>
  );
}
