import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

import { useDeleteFamily } from "../api/delete-family";
import { useFamily } from "../api/get-family";
import { useFamilyKinds } from "../api/get-family-kinds";
import { useFamilyVersions } from "../api/get-family-versions";
import type { Family, FamilyKind } from "../api/types";
import { KindSummary } from "../components/create-family-form";
import { FamilySettingsForm } from "../components/family-settings-form";
import { NewVersionPanel } from "../components/new-version-panel";
import { VersionsTimeline } from "../components/versions-timeline";
import "../task-families.css";

function FamilySettings({ family, kind }: { family: Family; kind?: FamilyKind }) {
  const params = family.params && typeof family.params === "object" ? Object.entries(family.params) : [];
  return (
    <div className="card-body stack" style={{ gap: "var(--space-3)" }}>
      {kind && <KindSummary kind={kind} />}
      <dl className="tf-meta" style={{ margin: 0 }}>
        <span>
          Held-out fraction <strong>{family.held_out_fraction ?? 0}</strong>
        </span>
        {params.map(([name, value]) => (
          <span key={name}>
            {name} <code>{JSON.stringify(value)}</code>
          </span>
        ))}
      </dl>
      <details>
        <summary className="subtle" style={{ cursor: "pointer" }}>
          Prompt template{family.prompt_template ? "" : " (the kind’s)"}
        </summary>
        <pre className="tf-pre" style={{ marginTop: "var(--space-2)" }}>
          {family.prompt_template || kind?.prompt_template}
        </pre>
      </details>
    </div>
  );
}

export function FamilyDetailRoute() {
  const familyId = Number(useParams().familyId);
  const family = useFamily(familyId);
  const versions = useFamilyVersions(familyId);
  const kinds = useFamilyKinds();
  const remove = useDeleteFamily();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const kind = kinds.data?.find((k) => k.name === family.data?.kind);

  if (!family.data) {
    return (
      <>
        <PageHeader title="Task family" />
        <QueryPlaceholder query={family} />
      </>
    );
  }
  const f = family.data;
  return (
    <>
      <div className="subtle" style={{ marginBottom: "var(--space-2)" }}>
        <Link to="/task-families">Task families</Link> /
      </div>
      <PageHeader
        title={f.name}
        description={
          <>
            <span className="badge">{kind?.label ?? f.kind}</span> {f.description}
          </>
        }
        actions={
          <button type="button" className="btn btn-ghost" onClick={() => setConfirming(true)}>
            Delete
          </button>
        }
      />
      <div className="stack">
        <Card title="New version" description="Every version is immutable; an identical pool reuses the latest version.">
          <NewVersionPanel family={f} kind={kind} />
        </Card>
        <Card title="Versions" description={`${f.version_count} frozen`}>
          <QueryPlaceholder query={versions} />
          {versions.data?.length === 0 && (
            <div className="card-body">
              <EmptyState title="No versions yet" icon="families">
                Generate, upload or import tasks above to freeze the first version.
              </EmptyState>
            </div>
          )}
          {versions.data && versions.data.length > 0 && <VersionsTimeline familyId={f.id} versions={versions.data} />}
        </Card>
        <Card
          title="Settings"
          description="Used by versions made from now on"
          actions={
            editing ? null : (
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => {
                  setSaved(false);
                  setEditing(true);
                }}
              >
                Edit settings
              </button>
            )
          }
        >
          {editing ? (
            <FamilySettingsForm
              key={kind?.name ?? "loading"}
              family={f}
              kind={kind}
              onSaved={() => {
                setEditing(false);
                setSaved(true);
              }}
              onCancel={() => setEditing(false)}
            />
          ) : (
            <>
              {saved && (
                <div className="card-body" style={{ paddingBottom: 0 }}>
                  <div className="alert alert-success" role="status">
                    Settings saved.
                  </div>
                </div>
              )}
              <FamilySettings family={f} kind={kind} />
            </>
          )}
        </Card>
      </div>
      {confirming && (
        <ConfirmDialog
          title={`Delete “${f.name}”?`}
          confirmLabel={remove.isPending ? "Deleting…" : "Delete family"}
          pending={remove.isPending}
          error={remove.error}
          onCancel={() => {
            setConfirming(false);
            remove.reset();
          }}
          onConfirm={() => remove.mutate(f.id, { onSuccess: () => navigate("/task-families") })}
        >
          The family and all its pool versions are deleted. This cannot be undone.
        </ConfirmDialog>
      )}
    </>
  );
}
