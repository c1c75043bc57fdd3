// A family's default verifier: the spec its kind judges tasks by when no verifier is chosen,
// summarised, with a way to start an editable verifier from it.
import { useNavigate } from "react-router";

import { Card } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/error-message";

import { useCreateVerifierFromDefault } from "../api/create-verifier-from-default";
import type { DefaultVerifier, DefaultVerifierLayer, Family, FamilyKind } from "../api/types";
import "./default-verifier-card.css";

/** What a layer with a `scope` checks; the forbidden layer checks the whole response unless told. */
function scopeNote(layer: DefaultVerifierLayer): string | null {
  const scope = layer.params?.scope;
  if (scope === "answer") return "checks the extracted answer";
  if (scope === "response" || layer.kind === "forbidden") return "checks the whole response";
  return null;
}

function weightsText(spec: DefaultVerifier): string {
  const weights = Object.entries(spec.reward?.weights ?? { outcome: 1 }).filter(([, w]) => w > 0);
  return weights.map(([part, w]) => `${part} ${w}`).join(" · ");
}

export function DefaultVerifierSummary({ spec }: { spec: DefaultVerifier }) {
  return (
    <dl className="tf-default-verifier" aria-label="Default verifier">
      <dt>Extractor</dt>
      <dd className="mono">{spec.extract}</dd>
      <dt>Layers</dt>
      <dd>
        <ol>
          {spec.layers.map((layer, index) => {
            const note = scopeNote(layer);
            return (
              <li key={`${index}-${layer.name ?? layer.kind}`}>
                <strong>{layer.name ?? layer.kind}</strong> <span className="mono subtle">{layer.kind}</span>
                {note && <span className="subtle"> · {note}</span>}
              </li>
            );
          })}
        </ol>
      </dd>
      <dt>Reward</dt>
      <dd>{weightsText(spec)}</dd>
    </dl>
  );
}

export function DefaultVerifierCard({ family, kind }: { family: Family; kind: FamilyKind | undefined }) {
  const create = useCreateVerifierFromDefault();
  const navigate = useNavigate();
  const spec = kind?.default_verifier;
  if (!kind || !spec) return null;

  function createFromDefault() {
    create.mutate(
      {
        team: family.team,
        name: `${family.name} verifier`,
        family_kind: family.kind,
        description: `Started from the default verifier of the ${kind?.label ?? family.kind} kind.`,
      },
      { onSuccess: (verifier) => navigate(`/verifiers/${verifier.id}/builder`) },
    );
  }

  return (
    <Card
      title="Default verifier"
      description={`What this family's tasks are judged by when no verifier is chosen: the ${kind.label} kind's default.`}
      actions={
        <button type="button" className="btn btn-sm" disabled={create.isPending} onClick={createFromDefault}>
          {create.isPending ? "Creating…" : "Create a verifier from this default"}
        </button>
      }
    >
      <div className="card-body stack" style={{ gap: "var(--space-2)" }}>
        <DefaultVerifierSummary spec={spec} />
        <ErrorMessage error={create.error} />
      </div>
    </Card>
  );
}
