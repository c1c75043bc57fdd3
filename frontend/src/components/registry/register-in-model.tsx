// "Register in a model": a promoted checkpoint becomes the next version of one of the team's
// registered models, with its lineage and training format frozen (the Models page has the rest).
import { useId, useState } from "react";
import { Link } from "react-router";

import { ErrorMessage } from "@/components/ui/error-message";
import { useCurrentTeam } from "@/lib/current-team";
import { useRegisterVersion, useRegisteredModels } from "@/lib/registry";

export function RegisterInModel({ checkpoint }: { checkpoint: number }) {
  const id = useId();
  const team = useCurrentTeam().team?.slug;
  const models = useRegisteredModels(team);
  const register = useRegisterVersion();
  const [chosen, setChosen] = useState("");
  const rows = models.data?.results ?? [];
  const model = chosen || String(rows[0]?.id ?? "");
  const made = register.data;
  if (made) {
    return (
      <p role="status" aria-label="Registered">
        Registered as <Link to={`/registry/${made.model}`}>{made.model_name} v{made.number}</Link>
      </p>
    );
  }
  if (models.data && !rows.length) {
    return (
      <p className="subtle">
        To register it, name a model on the <Link to="/registry">Models</Link> page first.
      </p>
    );
  }
  return (
    <div style={{ display: "flex", gap: 8, alignItems: "center", flexWrap: "wrap" }}>
      <label htmlFor={`${id}-model`}>Register in a model</label>
      <select id={`${id}-model`} value={model} onChange={(e) => setChosen(e.target.value)}>
        {rows.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="btn btn-sm"
        disabled={!model || register.isPending}
        onClick={() => register.mutate({ model: Number(model), checkpoint })}
      >
        Register
      </button>
      {register.error && <ErrorMessage error={register.error} />}
    </div>
  );
}
