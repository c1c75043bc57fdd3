import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";
import type { MeTeam } from "@/lib/auth";

import { useCreateToken, type CreatedToken } from "../api/create-token";

const ALL_TEAMS = "";

export function CreateTokenForm({
  teams,
  defaultTeam,
  onCreated,
}: {
  teams: MeTeam[];
  defaultTeam: string | null;
  onCreated: (token: CreatedToken) => void;
}) {
  const [name, setName] = useState("");
  const [team, setTeam] = useState(defaultTeam ?? ALL_TEAMS);
  const [days, setDays] = useState("90");
  const create = useCreateToken();

  function submit(event: FormEvent) {
    event.preventDefault();
    // Every token expires: an empty field leaves the server's default (90 days, or less when
    // the caller's own token expires sooner).
    const input = { name: name.trim(), team: team || null, ...(days ? { days: Number(days) } : {}) };
    create.mutate(input, {
      onSuccess: (token) => {
        setName("");
        onCreated(token);
      },
    });
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="Create token">
      <ErrorMessage error={create.error} />
      <div className="form-row">
        <Field id="token-name" label="Name">
          <input
            id="token-name"
            className="input"
            placeholder="CI pipeline"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </Field>
        <Field id="token-team" label="Team">
          <select id="token-team" className="select" value={team} onChange={(e) => setTeam(e.target.value)}>
            <option value={ALL_TEAMS}>All my teams</option>
            {teams.map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="token-days" label="Expires in (days)" style={{ flex: "0 1 130px" }}>
          <input
            id="token-days"
            className="input"
            type="number"
            min={1}
            max={365}
            value={days}
            onChange={(e) => setDays(e.target.value)}
          />
        </Field>
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim()}>
          {create.isPending ? "Creating…" : "Create token"}
        </button>
      </div>
    </form>
  );
}
