// Point an alias at a version. "production" is only for a promoted checkpoint: greyed out here
// with the server's reason, and refused by the server (409) whatever the page says.
import { useId, useState } from "react";

import { ErrorMessage } from "@/components/ui/error-message";

import { useSetAlias } from "../api/aliases";
import type { ModelVersion } from "@/lib/registry";

const OTHER = "__other__";

export function SetAlias({ version }: { version: ModelVersion }) {
  const id = useId();
  const setAlias = useSetAlias();
  const refusal = version.production_refusal;
  const [choice, setChoice] = useState(refusal ? "candidate" : "production");
  const [other, setOther] = useState("");
  const alias = choice === OTHER ? other.trim() : choice;
  return (
    <div className="rg-set-alias">
      <div className="rg-row">
        <label htmlFor={`${id}-alias`}>Alias for v{version.number}</label>
        <select id={`${id}-alias`} value={choice} onChange={(e) => setChoice(e.target.value)}>
          <option value="production" disabled={refusal !== null}>
            production{refusal !== null ? " (not promoted)" : ""}
          </option>
          <option value="candidate">candidate</option>
          <option value={OTHER}>other…</option>
        </select>
        {choice === OTHER && (
          <input
            aria-label={`Other alias for v${version.number}`}
            placeholder="e.g. staging"
            value={other}
            onChange={(e) => setOther(e.target.value)}
          />
        )}
        <button
          type="button"
          className="btn btn-sm"
          disabled={!alias || setAlias.isPending}
          onClick={() => setAlias.mutate({ version: version.id, alias })}
        >
          Set alias
        </button>
      </div>
      {refusal !== null && <p className="subtle">production: {refusal}</p>}
      {setAlias.error && <ErrorMessage error={setAlias.error} />}
    </div>
  );
}
