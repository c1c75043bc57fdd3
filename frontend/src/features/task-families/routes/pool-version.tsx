import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/error-message";
import { PageHeader } from "@/components/ui/page-header";
import { formatDateTime } from "@/lib/format";

import { useEditVersion } from "../api/edit-version";
import { useFamily } from "../api/get-family";
import { useFamilyKinds } from "../api/get-family-kinds";
import { usePoolVersion } from "../api/get-pool-version";
import { dedupOf, diffOf, histogramOf, SOURCE_LABELS, type PoolVersion } from "../api/types";
import type { VersionResult } from "../api/version-request";
import { DedupRemovedTable } from "../components/dedup-report";
import { DifficultyHistogram } from "../components/difficulty-histogram";
import { MeasureDifficulty } from "../components/measure-difficulty";
import { TaskBrowser } from "../components/task-browser";
import { VersionDiffView } from "../components/version-diff";
import { VersionResultNotice } from "../components/version-result-notice";
import { VersionStats } from "../components/version-stats";
import "../task-families.css";

function RemoveSelected({
  version,
  selected,
  onDone,
}: {
  version: PoolVersion;
  selected: Set<string>;
  onDone: (result: VersionResult) => void;
}) {
  const edit = useEditVersion(version.family);
  const [note, setNote] = useState("");
  return (
    <div className="tf-toolbar" style={{ borderBottom: 0, borderTop: "1px solid var(--color-border)" }}>
      <span style={{ paddingBottom: 6 }}>
        <strong>{selected.size}</strong> selected
      </span>
      <div className="field" style={{ flex: "1 1 240px" }}>
        <label htmlFor="edit-note">Note for the new version</label>
        <input
          id="edit-note"
          className="input"
          value={note}
          placeholder={`Removed ${selected.size} task(s) from v${version.number}`}
          onChange={(e) => setNote(e.target.value)}
        />
      </div>
      <button
        type="button"
        className="btn btn-danger"
        disabled={selected.size === 0 || edit.isPending}
        onClick={() =>
          edit.mutate(
            {
              base: version.number,
              remove: [...selected],
              note: note.trim() || `Removed ${selected.size} task(s) from v${version.number}`,
            },
            { onSuccess: onDone },
          )
        }
      >
        {edit.isPending ? "Saving…" : "Remove selected → new version"}
      </button>
      {edit.error ? (
        <div style={{ flexBasis: "100%" }}>
          <ErrorMessage error={edit.error} />
        </div>
      ) : null}
    </div>
  );
}

export function PoolVersionRoute() {
  const params = useParams();
  const familyId = Number(params.familyId);
  const versionId = Number(params.versionId);
  const version = usePoolVersion(versionId);
  const family = useFamily(familyId);
  const kinds = useFamilyKinds();
  const navigate = useNavigate();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [edited, setEdited] = useState<VersionResult | null>(null);
  const kind = kinds.data?.find((k) => k.name === family.data?.kind);

  if (!version.data) {
    return (
      <>
        <PageHeader title="Pool version" />
        <QueryPlaceholder query={version} />
      </>
    );
  }
  const v = version.data;
  const dedup = dedupOf(v);
  const histogram = histogramOf(v);
  const levels = kind?.difficulty_levels ?? [];

  return (
    <>
      <div className="subtle" style={{ marginBottom: "var(--space-2)" }}>
        <Link to="/task-families">Task families</Link> /{" "}
        <Link to={`/task-families/${familyId}`}>{family.data?.name ?? v.family_slug}</Link> /
      </div>
      <PageHeader
        title={`${family.data?.name ?? v.family_slug} · v${v.number}`}
        description={
          <>
            {SOURCE_LABELS[v.source] ?? v.source} by {v.created_by}, {formatDateTime(v.created_at)} ·{" "}
            <span className="mono" title="Content hash">
              {v.content_hash.slice(0, 16)}
            </span>
            {v.note && <> · {v.note}</>}
            <br />
            <span aria-label="How this version is played" title="Frozen with the version: an edit of the family's environment makes new versions, never changes this one.">
              Played as{" "}
              {v.environment ? (
                <strong>
                  episodes of {v.environment.kind} (≤ {v.environment.limits.max_turns} turns, {v.environment.limits.max_tokens_per_turn} tokens a turn,{" "}
                  {v.environment.limits.max_total_tokens} in all)
                </strong>
              ) : (
                <strong>single responses</strong>
              )}
            </span>
          </>
        }
      />
      <div className="stack">
        <VersionStats taskCount={v.task_count} trainCount={v.train_count} heldOutCount={v.held_out_count} dedup={dedup} />
        <div className="grid-2">
          <Card title="Difficulty">
            <div className="card-body">
              <DifficultyHistogram histogram={histogram} levels={levels} />
            </div>
          </Card>
          <div className="stack">
            <Card title="Changes" description="Against the previous version">
              <VersionDiffView diff={diffOf(v)} />
            </Card>
            <Card
              title="De-duplication"
              description={`${dedup.kept ?? v.task_count} kept of ${dedup.total ?? v.task_count} rows read`}
            >
              <DedupRemovedTable dedup={dedup} />
            </Card>
          </div>
        </div>
        <Card
          title="Measure difficulty"
          description="Samples k answers per task with the model and the family’s default verifier, then writes a new version graded by pass rate."
        >
          <MeasureDifficulty versionId={v.id} familyId={familyId} />
        </Card>
        <Card title="Tasks" description="Held-out tasks are never sampled for training.">
          <TaskBrowser versionId={v.id} levels={levels} selected={selected} onSelectedChange={setSelected} />
          {selected.size > 0 && (
            <RemoveSelected
              version={v}
              selected={selected}
              onDone={(result) => {
                setSelected(new Set());
                setEdited(result);
                if (result.created) navigate(`/task-families/${familyId}/versions/${result.version.id}`);
              }}
            />
          )}
          {edited && (
            <div className="card-body" style={{ paddingTop: 0 }}>
              <VersionResultNotice result={edited} familyId={familyId} />
            </div>
          )}
        </Card>
      </div>
    </>
  );
}
