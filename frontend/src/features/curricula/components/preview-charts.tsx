import { LineBandChart } from "@/components/charts/line-band-chart";
import { levelColor, percent } from "@/components/charts/scale";
import { StackedAreaChart } from "@/components/charts/stacked-area-chart";

import type { PreviewTrace } from "../api/types";

import { bandOf } from "./config-state";

/** Per family: how sampling shifted across levels, and whether success stayed in the band. */
export function FamilyTraceCharts({ trace, family }: { trace: PreviewTrace; family: string }) {
  const levels = trace.levels[family] ?? [];
  const steps = trace.steps.map((s) => s.step);
  const inBand = trace.in_band[family] ?? 0;
  const last = trace.steps[trace.steps.length - 1];
  const finalAbility = last?.ability[family];
  return (
    <section className="cu-trace" aria-label={`Preview of ${family}`}>
      <div className="cu-trace-head">
        <h3>{family}</h3>
        <div className="cu-trace-stats">
          <span>
            In band <strong data-testid={`in-band-${family}`}>{percent(inBand)}</strong> of steps
          </span>
          {last && (
            <span>
              Final distribution{" "}
              <strong>
                {levels.map((l, i) => `L${l} ${percent(last.distribution[family]?.[i] ?? 0)}`).join(" · ")}
              </strong>
            </span>
          )}
          {finalAbility !== undefined && (
            <span>
              Learner ability <strong>{finalAbility.toFixed(2)}</strong>
            </span>
          )}
        </div>
      </div>
      <div className="cu-trace-charts">
        <StackedAreaChart
          title={`${family}: sampling distribution over levels`}
          x={steps}
          xLabel="Step"
          yLabel="Share of batch"
          series={levels.map((level, i) => ({
            key: String(level),
            label: `Level ${level}`,
            color: levelColor(i, levels.length),
            values: trace.steps.map((s) => s.distribution[family]?.[i] ?? 0),
          }))}
        />
        <LineBandChart
          title={`${family}: rolling success rate`}
          x={steps}
          xLabel="Step"
          yLabel="Success rate"
          band={bandOf(trace)}
          series={[
            {
              key: "batch",
              label: "Per batch",
              color: "#6366f1",
              faint: true,
              values: trace.steps.map((s) => s.success_rate[family] ?? null),
            },
            {
              key: "rolling",
              label: "Rolling",
              color: "#4338ca",
              values: trace.steps.map((s) => s.rolling_success[family] ?? null),
            },
          ]}
        />
      </div>
    </section>
  );
}
