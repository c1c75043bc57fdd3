// One registered model: its aliases and its versions, newest first, each with its lineage back
// to the run and experiment, its training format, its promotion, and "Set alias".
import { useParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

import { useRegisteredModel } from "../api/registered-models";
import { AliasBadges } from "../components/alias-badges";
import { RegisterVersion } from "../components/register-version";
import { VersionRow } from "../components/version-row";
import "../registry.css";

export function ModelRoute() {
  const id = Number(useParams().modelId);
  const model = useRegisteredModel(id);
  const data = model.data;
  return (
    <div className="page stack">
      <PageHeader title={data ? data.name : "Model"} description={data?.description || undefined} />
      <QueryPlaceholder query={model} />
      {data && (
        <>
          <Card title="Aliases" description="production only ever points at a promoted checkpoint; moving an alias is audited.">
            <div className="card-body">
              <AliasBadges label="Model aliases" aliases={data.aliases} />
            </div>
          </Card>
          <Card title="Versions" description="Each freezes its lineage and the prompt format it was trained with.">
            <div className="card-body stack">
              <RegisterVersion model={data.id} />
              {!data.versions.length && (
                <EmptyState title="No versions yet">
                  Pick a run and one of its checkpoints above (or name a base model as a baseline), then Register.
                </EmptyState>
              )}
              <ul className="rg-versions" aria-label="Versions">
                {data.versions.map((version) => (
                  <VersionRow key={version.id} version={version} />
                ))}
              </ul>
            </div>
          </Card>
        </>
      )}
    </div>
  );
}
