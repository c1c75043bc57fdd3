import type { DiffExample, VersionDiff } from "../api/types";

/** Counts against the parent version and the first added and removed tasks, by their prompts. */
export function VersionDiffView({ diff }: { diff: VersionDiff }) {
  if (diff.against === undefined) {
    return <p className="card-body subtle">The first version of this family: nothing to compare with.</p>;
  }
  const sides: [string, number, DiffExample[] | undefined, string][] = [
    ["Added", diff.added ?? 0, diff.added_examples, "tf-diff-add"],
    ["Removed", diff.removed ?? 0, diff.removed_examples, "tf-diff-remove"],
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
      {sides.map(([label, count, examples, cls]) =>
        examples && examples.length > 0 ? (
          <div key={label}>
            <div className="subtle" style={{ fontSize: "var(--text-sm)" }}>
              {label} {examples.length < count ? `(first ${examples.length} of ${count})` : ""}
            </div>
            <ul className="tf-diff-list" aria-label={`${label} tasks`}>
              {examples.map((example) => (
                <li key={example.content_hash}>
                  <span className={cls} aria-hidden>
                    {label === "Added" ? "+" : "−"}
                  </span>
                  <span className="level-chip" title={`Level ${example.difficulty}`}>
                    {example.difficulty}
                  </span>
                  <span className="tf-prompt-cell" title={example.prompt}>
                    {example.prompt}
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ) : null,
      )}
    </div>
  );
}
