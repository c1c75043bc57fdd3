import { StackedBarChart } from "@/components/charts/stacked-bar-chart";

import type { LevelCounts, SplitHistogram } from "../api/types";

const TRAIN_COLOR = "#6366f1";
const HELD_OUT_COLOR = "#f59e0b";

function isSplit(histogram: LevelCounts | SplitHistogram): histogram is SplitHistogram {
  return Object.values(histogram).some((v) => typeof v === "object" && v !== null);
}

/**
 * Tasks per difficulty level, train and held out stacked. A flat `{level: count}`
 * (what a preview returns) is drawn as one series. Every level of the kind gets a bar,
 * so a level with no tasks shows as a gap rather than disappearing.
 */
export function DifficultyHistogram({
  histogram,
  levels = [],
  title = "Tasks per difficulty level",
}: {
  histogram: LevelCounts | SplitHistogram;
  levels?: number[];
  title?: string;
}) {
  const split = isSplit(histogram);
  const present = split
    ? [...Object.keys(histogram.train ?? {}), ...Object.keys(histogram.held_out ?? {})]
    : Object.keys(histogram);
  const categories = [...new Set([...levels.map(String), ...present])].sort((a, b) => Number(a) - Number(b));
  const series = split
    ? [
        { key: "train", label: "Train", color: TRAIN_COLOR, values: categories.map((c) => histogram.train?.[c] ?? 0) },
        {
          key: "held_out",
          label: "Held out",
          color: HELD_OUT_COLOR,
          values: categories.map((c) => histogram.held_out?.[c] ?? 0),
        },
      ]
    : [{ key: "all", label: "Tasks", color: TRAIN_COLOR, values: categories.map((c) => (histogram as LevelCounts)[c] ?? 0) }];
  return <StackedBarChart title={title} categories={categories} series={series} xLabel="Difficulty" yLabel="Tasks" />;
}
