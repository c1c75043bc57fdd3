import type { FamilyPreview } from "../api/types";

import { DedupRemovedTable } from "./dedup-report";
import { DifficultyHistogram } from "./difficulty-histogram";
import { VersionStats } from "./version-stats";

function expectedText(expected: unknown): string {
  return typeof expected === "string" ? expected : JSON.stringify(expected);
}

/** What freezing would produce: counts, the histogram, de-duplication and sample tasks. */
export function PreviewResult({ preview, levels }: { preview: FamilyPreview; levels: number[] }) {
  const { version, dedup, samples } = preview;
  return (
    <section className="stack" aria-label="Preview">
      <VersionStats
        taskCount={version.task_count}
        trainCount={version.train_count}
        heldOutCount={version.held_out_count}
        dedup={dedup}
      />
      <div className="tf-split">
        <DifficultyHistogram histogram={version.difficulty_histogram} levels={levels} title="Previewed tasks per level" />
        <div className="stack" style={{ gap: "var(--space-2)" }}>
          <h3>Samples</h3>
          <div className="table-wrap">
            <table className="table" aria-label="Sample tasks">
              <thead>
                <tr>
                  <th className="num">Level</th>
                  <th>Split</th>
                  <th>Prompt</th>
                  <th>Expected</th>
                </tr>
              </thead>
              <tbody>
                {samples.slice(0, 12).map((s) => (
                  <tr key={s.content_hash}>
                    <td className="num">{s.difficulty}</td>
                    <td>{s.split === "held_out" ? <span className="badge">held out</span> : "train"}</td>
                    <td className="tf-prompt-cell" title={s.prompt} style={{ maxWidth: 260 }}>
                      {s.prompt}
                    </td>
                    <td className="mono tf-prompt-cell" style={{ maxWidth: 140 }} title={expectedText(s.expected)}>
                      {expectedText(s.expected)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      </div>
      {(dedup.removed?.length ?? 0) > 0 && (
        <details>
          <summary className="subtle" style={{ cursor: "pointer" }}>
            {dedup.removed?.length} removed duplicate rows
          </summary>
          <DedupRemovedTable dedup={dedup} />
        </details>
      )}
    </section>
  );
}
