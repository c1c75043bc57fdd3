import type { UploadPreview } from "../api/types";

/** What freezing the previewed upload does to the latest version, in tasks, said before it is done. */
export function UploadChanges({ preview }: { preview: UploadPreview }) {
  const { changes, base, version } = preview;
  const next = base + 1;
  const against = base > 0 ? `v${base}` : null;
  return (
    <div className="alert tf-changes stack" role="status" aria-label="What freezing does">
      <div>
        Freezing makes <strong>v{next}</strong> with <strong>{version.task_count}</strong> tasks
        {against
          ? changes.mode === "append"
            ? `: the ${changes.previous} tasks of ${against} and the file’s new ones.`
            : `, replacing the ${changes.previous} tasks of ${against}.`
          : "."}
      </div>
      <div className="row" style={{ gap: "var(--space-4)", flexWrap: "wrap" }}>
        <span className="tf-diff-add">+{changes.added} added</span>
        <span className="tf-diff-remove">−{changes.removed} removed</span>
        <span>{changes.kept} kept</span>
        <span className="subtle">{changes.duplicates_dropped} duplicates dropped</span>
      </div>
    </div>
  );
}
