import { useState, type FormEvent } from "react";

import { Card } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";

import { useCreateExample } from "../api/create-example";
import { useRunPlayground } from "../api/run-playground";
import { presetFor } from "../lib/presets";
import type { Spec } from "../types";
import { JsonEditor } from "./json-editor";
import { SandboxStrip } from "./sandbox-status";
import { VerdictView } from "./verdict-view";

type Inputs = { response: string; expected: Record<string, unknown>; context: Record<string, unknown> };

export function Playground({
  verifierId,
  familyKind,
  spec,
  dirty,
}: {
  verifierId: number;
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
  const run = useRunPlayground();
  const saveExample = useCreateExample(verifierId);

  function fill(which: "good" | "bad") {
    setInputs({ response: preset[which], expected: preset.expected, context: preset.context ?? {} });
    setInvalid({ expected: false, context: false });
    setEditorKey((k) => k + 1);
    run.reset();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    saveExample.reset();
    run.mutate({ spec, ...inputs });
  }

  function keep(label: "good" | "bad") {
    saveExample.mutate({ response: inputs.response, expected: inputs.expected, label, note: "from the playground" });
  }

  const blocked = invalid.expected || invalid.context;
  return (
    <div className="stack">
      <Card
        title="Try the verifier"
        description={
          dirty
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
          <div className="grid-2">
            <Field id="playground-response" label="Response">
              <textarea
                id="playground-response"
                className="vf-textarea"
                rows={12}
                spellCheck={false}
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
            <button type="submit" className="btn btn-primary" disabled={run.isPending || blocked || spec.layers.length === 0}>
              {run.isPending ? "Running…" : "Run"}
            </button>
            {spec.layers.length === 0 && <span className="subtle">Add a layer in the builder first.</span>}
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
