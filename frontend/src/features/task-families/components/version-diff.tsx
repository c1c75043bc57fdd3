import type { VersionDiff } from "../api/types";

/** Counts against the parent version and the first added and removed task hashes. */
export function VersionDiffView({ diff }: { diff: VersionDiff }) {
  if (diff.against === undefined) {
    return <p className="card-body subtle">The first version of this family: nothing to compare with.</p>;
  }
  const examples: [string, string[] | undefined, string][] = [
    ["Added", diff.added_examples, "tf-diff-add"],
    ["Removed", diff.removed_examples, "tf-diff-remove"],
  ];
  return (
    <div className="card-body stack" style={{ gap: "var(--space-3)" }}>
      <div className="row" style={{ gap: "var(--space-4)", flexWrap: "wrap" }}>
        <span>
          Against <strong>v{diff.against}</strong>
        </span>
        <span className="tf-diff-add">+{diff.added ?? 0} added</span>
        <span className="tf-diff-remove">−{diff.removed ?? 0} removed</span>
        <span className="subtle">{diff.unchanged ?? 0} unchanged</span>
      </div>
      {examples.map(([label, hashes, cls]) =>
        hashes && hashes.length > 0 ? (
          <div key={label}>
            <div className="subtle" style={{ fontSize: "var(--text-sm)" }}>
              {label} (first {hashes.length})
            </div>
            <div className="row mono" style={{ flexWrap: "wrap", gap: "var(--space-1) var(--space-3)" }}>
              {hashes.map((h) => (
                <span key={h} className={cls} title={h}>
                  {h.slice(0, 12)}
                </span>
              ))}
            </div>
          </div>
        ) : null,
      )}
    </div>
  );
}
