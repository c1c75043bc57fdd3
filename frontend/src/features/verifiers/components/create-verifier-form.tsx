import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";
import { useCurrentTeam } from "@/lib/current-team";

import { useCreateVerifier } from "../api/create-verifier";
import { useFamilyKinds } from "../api/get-family-kinds";
import type { Verifier } from "../api/get-verifiers";

const BLANK = "";

export function CreateVerifierForm({ onCreated, onCancel }: { onCreated: (v: Verifier) => void; onCancel: () => void }) {
  const { team } = useCurrentTeam();
  const kinds = useFamilyKinds();
  const create = useCreateVerifier();
  const [name, setName] = useState("");
  const [kind, setKind] = useState("python-function");
  const [description, setDescription] = useState("");
  const chosen = kinds.data?.find((k) => k.name === kind);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(
      {
        name: name.trim(),
        description: description.trim(),
        ...(team ? { team: team.slug } : {}),
        ...(kind ? { family_kind: kind } : {}),
      },
      { onSuccess: onCreated },
    );
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="New verifier">
      <ErrorMessage error={create.error} />
      <div className="form-row">
        <Field id="verifier-name" label="Name">
          <input
            id="verifier-name"
            className="input"
            placeholder="HumanEval tests"
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoFocus
          />
        </Field>
        <Field id="verifier-kind" label="Start from">
          <select id="verifier-kind" className="select" value={kind} onChange={(e) => setKind(e.target.value)}>
            {(kinds.data ?? []).map((k) => (
              <option key={k.name} value={k.name}>
                {k.label} default ({k.name})
              </option>
            ))}
            <option value={BLANK}>Blank spec</option>
          </select>
        </Field>
        <Field id="verifier-description" label="Description (optional)" style={{ flex: "2 1 240px" }}>
          <input
            id="verifier-description"
            className="input"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </Field>
      </div>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <span className="subtle">
          {chosen
            ? `Version 1 is the ${chosen.label.toLowerCase()} default verifier; edit its layers in the builder.`
            : "No version until you add layers in the builder and save."}
        </span>
        <span className="row">
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim()}>
            {create.isPending ? "Creating…" : "Create verifier"}
          </button>
        </span>
      </div>
    </form>
  );
}
