import { Link } from "react-router";

import { formatDateTime, formatRelative } from "@/lib/format";

import { diffOf, dedupOf, SOURCE_LABELS, type PoolVersion } from "../api/types";

function sourceText(version: PoolVersion): string {
  const detail = (version.source_detail ?? {}) as Record<string, unknown>;
  const label = SOURCE_LABELS[version.source] ?? version.source;
  if (version.source === "dataset" && typeof detail.dataset === "string") return `${label}: ${detail.dataset}`;
  if (version.source === "upload" && typeof detail.filename === "string") return `${label}: ${detail.filename}`;
  if (version.source === "edit" && typeof detail.base === "number") return `${label} of v${detail.base}`;
  if (version.source === "generator" && typeof detail.seed === "number") return `${label}, seed ${detail.seed}`;
  return label;
}

/** Newest first: what each version holds, where it came from, and how it differs from its parent. */
export function VersionsTimeline({ familyId, versions }: { familyId: number; versions: PoolVersion[] }) {
  const now = new Date();
  const sorted = [...versions].sort((a, b) => b.number - a.number);
  return (
    <ol className="tf-timeline" aria-label="Versions">
      {sorted.map((version) => {
        const diff = diffOf(version);
        const dedup = dedupOf(version);
        const removedDupes = (dedup.exact_duplicates ?? 0) + (dedup.near_duplicates ?? 0);
        const against = diff.against;
        return (
          <li key={version.id}>
            <span className="tf-version-number">v{version.number}</span>
            <div style={{ minWidth: 0 }}>
              <div className="row" style={{ flexWrap: "wrap" }}>
                <Link to={`/task-families/${familyId}/versions/${version.id}`} aria-label={`Version ${version.number}`}>
                  <strong>{version.task_count} tasks</strong>
                </Link>
                <span className="subtle">
                  {version.train_count} train · {version.held_out_count} held out
                  {removedDupes > 0 && ` · ${removedDupes} duplicates removed`}
                </span>
              </div>
              <div className="tf-meta">
                <span>{sourceText(version)}</span>
                <span className="mono" title={version.content_hash}>
                  {version.content_hash.slice(0, 12)}
                </span>
                <span>{version.created_by}</span>
                <span title={formatDateTime(version.created_at)}>{formatRelative(version.created_at, now)}</span>
                {against !== undefined && (
                  <span>
                    vs v{against}: <span className="tf-diff-add">+{diff.added ?? 0}</span>{" "}
                    <span className="tf-diff-remove">−{diff.removed ?? 0}</span>{" "}
                    <span>={diff.unchanged ?? 0}</span>
                  </span>
                )}
              </div>
              {version.note && <div className="muted" style={{ marginTop: 2 }}>{version.note}</div>}
            </div>
            <Link className="btn btn-sm" to={`/task-families/${familyId}/versions/${version.id}`}>
              Open
            </Link>
          </li>
        );
      })}
    </ol>
  );
}
