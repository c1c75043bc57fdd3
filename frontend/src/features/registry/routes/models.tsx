// The team's model registry: each registered model with its aliases and latest version, and a
// form to name a new one. Versions are registered on a model's page, from a checkpoint picked by run and step.
import { useState } from "react";
import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage } from "@/components/ui/error-message";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { formatDateTime } from "@/lib/format";
import { useRegisteredModels } from "@/lib/registry";

import { useCreateModel } from "../api/registered-models";
import { AliasBadges } from "../components/alias-badges";
import "../registry.css";

function NewModel({ team }: { team: string }) {
  const create = useCreateModel();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  return (
    <form
      className="rg-row"
      aria-label="New model"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({ team, name, description }, { onSuccess: () => setName("") });
      }}
    >
      <input aria-label="Model name" placeholder="Name" value={name} onChange={(e) => setName(e.target.value)} />
      <input
        aria-label="Model description"
        placeholder="Description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <button type="submit" className="btn btn-primary" disabled={!name.trim() || create.isPending}>
        New model
      </button>
      {create.error && <ErrorMessage error={create.error} />}
    </form>
  );
}

export function ModelsRoute() {
  const team = useCurrentTeam().team?.slug;
  const models = useRegisteredModels(team);
  const rows = models.data?.results ?? [];
  return (
    <div className="page stack">
      <PageHeader
        title="Models"
        description="Registered models: numbered versions of checkpoints with their lineage and training format, and aliases such as production and candidate."
      />
      {team && (
        <Card title="New model">
          <div className="card-body">
            <NewModel team={team} />
          </div>
        </Card>
      )}
      <Card title="Registered models" description="production only ever points at a promoted checkpoint.">
        <QueryPlaceholder query={models} />
        {models.data && !rows.length && (
          <EmptyState title="No registered models yet">
            Name a model above, then open it and pick a run and one of its checkpoints under “Register a version”.
          </EmptyState>
        )}
        {rows.length > 0 && (
          <table className="table" aria-label="Registered models">
            <thead>
              <tr><th>Model</th><th>Aliases</th><th>Latest version</th><th>Updated</th></tr>
            </thead>
            <tbody>
              {rows.map((m) => (
                <tr key={m.id}>
                  <td>
                    <Link to={`/registry/${m.id}`}>{m.name}</Link>
                    {m.description && <div className="subtle">{m.description}</div>}
                  </td>
                  <td>
                    <AliasBadges label={`Aliases of ${m.name}`} aliases={m.aliases} />
                  </td>
                  <td>{m.latest_version === null ? "none" : `v${m.latest_version}`}</td>
                  <td>{formatDateTime(m.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </div>
  );
}
