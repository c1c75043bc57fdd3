import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage } from "@/components/ui/error-message";
import { PageHeader } from "@/components/ui/page-header";

import { useDeleteFamily } from "../api/delete-family";
import { useFamily } from "../api/get-family";
import { useFamilyKinds } from "../api/get-family-kinds";
import { useFamilyRemoval } from "../api/get-family-removal";
import { useFamilyVersions } from "../api/get-family-versions";
import { useRestoreFamily } from "../api/restore-family";
import type { Family, FamilyKind } from "../api/types";
import { KindSummary } from "../components/create-family-form";
import { DefaultVerifierCard } from "../components/default-verifier-card";
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
        <span aria-label="How it is played">
          Played as{" "}
          {family.environment ? (
            <strong>
              episodes of {family.environment.kind} (≤ {family.environment.limits.max_turns} turns, {family.environment.limits.max_tokens_per_turn} tokens a turn,{" "}
              {family.environment.limits.max_total_tokens} in all)
            </strong>
          ) : (
            <strong>single responses</strong>
          )}
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

/** Says beforehand what removing does: delete with the versions, or archive and why. */
function RemoveFamilyDialog({ family, onCancel }: { family: Family; onCancel: () => void }) {
  const removal = useFamilyRemoval(family.id, true);
  const remove = useDeleteFamily();
  const navigate = useNavigate();
  const plan = removal.data;
  const archives = plan?.action === "archive";
  const verb = archives ? "Archive" : "Delete";
  return (
    <ConfirmDialog
      title={plan ? `${verb} “${family.name}”?` : `Remove “${family.name}”?`}
      confirmLabel={remove.isPending ? `${verb.slice(0, -1)}ing…` : `${verb} family`}
      pending={remove.isPending || !plan}
      error={remove.error ?? removal.error}
      onCancel={() => {
        remove.reset();
        onCancel();
      }}
      onConfirm={() =>
        remove.mutate(family.id, {
          onSuccess: (done) => (done?.action === "archive" ? onCancel() : navigate("/task-families")),
        })
      }
    >
      {plan ? plan.message : "Checking what pins this family…"}
    </ConfirmDialog>
  );
}

/** An archived family is read-only until restored; its versions stay pinned as they are. */
function ArchivedNotice({ family }: { family: Family }) {
  const restore = useRestoreFamily(family.id);
  return (
    <div className="alert alert-warning row" role="status" style={{ justifyContent: "space-between", flexWrap: "wrap" }}>
      <span>
        Archived: this family is hidden from lists and read-only, because something pins its versions.
      </span>
      <button type="button" className="btn btn-sm" disabled={restore.isPending} onClick={() => restore.mutate()}>
        {restore.isPending ? "Restoring…" : "Restore"}
      </button>
      <ErrorMessage error={restore.error} />
    </div>
  );
}

export function FamilyDetailRoute() {
  const familyId = Number(useParams().familyId);
  const family = useFamily(familyId);
  const versions = useFamilyVersions(familyId);
  const kinds = useFamilyKinds();
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
          !f.archived_at && (
            <button type="button" className="btn btn-ghost" onClick={() => setConfirming(true)}>
              Delete
            </button>
          )
        }
      />
      <div className="stack">
        {f.archived_at ? (
          <ArchivedNotice family={f} />
        ) : (
          <Card title="New version" description="Every version is immutable; an identical pool reuses the latest version.">
            <NewVersionPanel family={f} kind={kind} />
          </Card>
        )}
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
        <DefaultVerifierCard family={f} kind={kind} />
        <Card
          title="Settings"
          description="Used by versions made from now on"
          actions={
            editing || f.archived_at ? null : (
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
      {confirming && <RemoveFamilyDialog family={f} onCancel={() => setConfirming(false)} />}
    </>
  );
}
