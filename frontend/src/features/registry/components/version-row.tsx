// One version of a registered model: where it came from, how it was trained to read prompts,
// its promotion (with any regression its report's approvals overrode, and why), and its
// aliases (each removable), with "Set alias".
import { Link } from "react-router";

import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime } from "@/lib/format";

import { useRemoveAlias } from "../api/aliases";
import type { ModelVersion } from "@/lib/registry";
import { CheckFormat } from "./check-format";
import { SetAlias } from "./set-alias";
import { VersionFormat } from "./version-format";

/** Approvals that accepted a regressed family on the report it was promoted on, with their
 * written reasons: the promotion now, else the one frozen into the lineage at registration. */
function Overrides({ version }: { version: ModelVersion }) {
  const overrides = version.promotion?.overrides ?? version.lineage.promotion?.overrides ?? [];
  if (!overrides.length) return null;
  return (
    <ul className="rg-overrides" aria-label="Regression overrides">
      {overrides.map((o) => (
        <li key={o.reviewer}>
          <strong>{o.reviewer}</strong> approved over the regression of {o.families.join(", ")}: {o.reason}
        </li>
      ))}
    </ul>
  );
}

function Lineage({ version }: { version: ModelVersion }) {
  const lineage = version.lineage;
  if (version.base_model) return <p>Base model <strong>{version.base_model}</strong> of the catalogue.</p>;
  return (
    <p aria-label="Lineage">
      {lineage.run && <Link to={`/runs/${lineage.run.id}/checkpoints`}>run {lineage.run.number}</Link>}
      {lineage.step !== undefined && <>, step {lineage.step}</>}
      {lineage.experiment && (
        <>
          {" "}of <Link to={`/experiments/${lineage.experiment.id}`}>{lineage.experiment.name}</Link>
        </>
      )}
      {lineage.config_hash && <span className="subtle"> · config {lineage.config_hash.slice(0, 8)}</span>}
      {!!lineage.pool_versions?.length && (
        <span className="subtle"> · pools {lineage.pool_versions.map((p) => `${p.family} v${p.number}`).join(", ")}</span>
      )}
      {!!lineage.verifier_versions?.length && (
        <span className="subtle">
          {" "}· verifiers {lineage.verifier_versions.map((v) => `${v.verifier} v${v.number}`).join(", ")}
        </span>
      )}
    </p>
  );
}

export function VersionRow({ version }: { version: ModelVersion }) {
  const remove = useRemoveAlias();
  const promotion = version.promotion;
  return (
    <li className="rg-version" aria-label={`Version ${version.number}`}>
      <div className="rg-row">
        <strong>v{version.number}</strong>
        {version.aliases.map((alias) => (
          <span key={alias} className={`badge ${alias === "production" ? "badge-success" : "badge-accent"}`}>
            {alias}
            <button
              type="button"
              className="rg-unalias"
              aria-label={`Remove alias ${alias}`}
              disabled={remove.isPending}
              onClick={() => remove.mutate({ version: version.id, alias })}
            >
              ×
            </button>
          </span>
        ))}
        {promotion ? (
          <span>
            <span className="badge badge-success">Promoted</span> on{" "}
            <Link to={`/reports/${promotion.report}`}>report v{promotion.report_version}</Link>
          </span>
        ) : (
          version.checkpoint !== null && <span className="subtle">not promoted</span>
        )}
        <span className="subtle">
          registered by {version.created_by} {formatDateTime(version.created_at)}
        </span>
      </div>
      <Lineage version={version} />
      <Overrides version={version} />
      {version.description && <p>{version.description}</p>}
      <VersionFormat format={version.format} />
      <CheckFormat version={version} />
      <SetAlias version={version} />
      {remove.error && <ErrorMessage error={remove.error} />}
    </li>
  );
}
