import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";

import { useCreateTeam, type CreatedTeam } from "../api/create-team";

export function CreateTeamForm({ onCreated }: { onCreated: (team: CreatedTeam) => void }) {
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const create = useCreateTeam();

  function submit(event: FormEvent) {
    event.preventDefault();
    // Without a slug the server derives one from the name.
    const input = slug.trim() ? { name: name.trim(), slug: slug.trim() } : { name: name.trim() };
    create.mutate(input, {
      onSuccess: (team) => {
        setName("");
        setSlug("");
        onCreated(team);
      },
    });
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="Create team">
      <ErrorMessage error={create.error} />
      <div className="form-row">
        <Field id="team-name" label="Team name">
          <input id="team-name" className="input" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field id="team-slug" label="Slug (optional)">
          <input
            id="team-slug"
            className="input"
            placeholder="derived from the name"
            value={slug}
            onChange={(e) => setSlug(e.target.value)}
          />
        </Field>
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim()}>
          Create team
        </button>
      </div>
    </form>
  );
}
