import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";

import { useCreateExample } from "../api/create-example";
import { presetFor } from "../lib/presets";
import { JsonEditor } from "./json-editor";

export function AddExampleForm({ verifierId, familyKind }: { verifierId: number; familyKind: string | undefined }) {
  const preset = presetFor(familyKind);
  const [label, setLabel] = useState<"good" | "bad">("good");
  const [response, setResponse] = useState("");
  const [expected, setExpected] = useState<Record<string, unknown>>(preset.expected);
  const [expectedValid, setExpectedValid] = useState(true);
  const [note, setNote] = useState("");
  const create = useCreateExample(verifierId);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(
      { response, expected, label, note: note.trim() },
      {
        onSuccess: () => {
          setResponse("");
          setNote("");
        },
      },
    );
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="Add example">
      <ErrorMessage error={create.error} />
      <div className="grid-2">
        <Field id="example-response" label="Response">
          <textarea
            id="example-response"
            className="vf-textarea"
            rows={7}
            spellCheck={false}
            value={response}
            onChange={(e) => setResponse(e.target.value)}
          />
        </Field>
        <Field id="example-expected" label="Expected (JSON object)">
          <JsonEditor
            id="example-expected"
            rows={7}
            value={expected}
            onChange={(value, valid) => {
              setExpectedValid(valid);
              if (valid) setExpected((value ?? {}) as Record<string, unknown>);
            }}
          />
        </Field>
      </div>
      <div className="form-row">
        <fieldset className="field" style={{ border: 0, padding: 0, margin: 0, flex: "0 0 auto" }}>
          <legend className="vf-stat-label" style={{ marginBottom: 4 }}>
            Label
          </legend>
          <div className="row" style={{ height: 32 }}>
            <label className="vf-check">
              <input type="radio" name="example-label" checked={label === "good"} onChange={() => setLabel("good")} />
              good (should pass)
            </label>
            <label className="vf-check">
              <input type="radio" name="example-label" checked={label === "bad"} onChange={() => setLabel("bad")} />
              bad (should fail)
            </label>
          </div>
        </fieldset>
        <Field id="example-note" label="Note (optional)">
          <input id="example-note" className="input" value={note} onChange={(e) => setNote(e.target.value)} />
        </Field>
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !response || !expectedValid}>
          {create.isPending ? "Adding…" : `Add ${label} example`}
        </button>
      </div>
    </form>
  );
}
