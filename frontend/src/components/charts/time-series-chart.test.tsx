import { act, render, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { FakeUPlot } from "@/testing/fake-uplot";

import { formatValue, TimeSeriesChart, type ChartSeries } from "./time-series-chart";

vi.mock("uplot", () => import("@/testing/fake-uplot"));

function reward(steps: number, key = "reward/mean", color = "#4f46e5"): ChartSeries {
  const x = Array.from({ length: steps }, (_, i) => i);
  return { key, label: key, color, x, y: x.map((i) => i / 10) };
}

describe("TimeSeriesChart", () => {
  beforeEach(() => FakeUPlot.reset());

  it("draws every series on one plot and shows the latest values with the metric's explanation", async () => {
    render(
      <TimeSeriesChart
        title="Reward"
        description="Average reward of the step's completions."
        series={[reward(5), { ...reward(5, "reward/outcome", "#0891b2"), y: [0, null, 0.5, 0.5, 1] }]}
      />,
    );
    const figure = screen.getByRole("img", { name: "Reward" }).closest("figure")!;
    await waitFor(() => expect(FakeUPlot.live()).toHaveLength(1));
    const plot = FakeUPlot.live()[0]!;
    expect(plot.data).toEqual([[0, 1, 2, 3, 4], [0, 0.1, 0.2, 0.3, 0.4], [0, null, 0.5, 0.5, 1]]);
    expect(plot.options.series.map((s) => s.label)).toEqual(["Step", "reward/mean", "reward/outcome"]);
    expect(figure).toHaveAttribute("data-points", "9");
    expect(within(figure).getByText(/Step 4/)).toBeInTheDocument();
    expect(within(figure).getByText("reward/outcome").parentElement).toHaveTextContent("reward/outcome1");
    expect(screen.getByRole("img", { name: "Reward" })).toHaveAccessibleDescription("Average reward of the step's completions.");
  });

  it("shows the hovered step's values in the legend", async () => {
    render(<TimeSeriesChart title="Reward" description="d" series={[reward(5)]} />);
    await waitFor(() => expect(FakeUPlot.live()).toHaveLength(1));
    act(() => FakeUPlot.live()[0]!.hover(2));
    const item = screen.getByText("reward/mean").closest("li")!;
    expect(item).toHaveTextContent("0.2");
    expect(screen.getByText(/Step 2/)).toBeInTheDocument();
    act(() => FakeUPlot.live()[0]!.hover(null));
    expect(item).toHaveTextContent("0.4");
  });

  it("feeds new points to the same plot instead of rebuilding it", async () => {
    const { rerender } = render(<TimeSeriesChart title="Reward" description="d" series={[reward(3)]} />);
    await waitFor(() => expect(FakeUPlot.live()).toHaveLength(1));
    rerender(<TimeSeriesChart title="Reward" description="d" series={[reward(4)]} />);
    const plot = FakeUPlot.live()[0]!;
    expect(FakeUPlot.instances).toHaveLength(1);
    expect(plot.setDataCalls).toBeGreaterThan(0);
    expect(plot.data[0]).toEqual([0, 1, 2, 3]);

    rerender(<TimeSeriesChart title="Reward" description="d" series={[reward(4), reward(4, "reward/std", "#16a34a")]} />);
    await waitFor(() => expect(FakeUPlot.instances).toHaveLength(2));
    expect(FakeUPlot.instances[0]!.destroyed).toBe(true);
    expect(FakeUPlot.live()[0]!.options.series).toHaveLength(3);
  });

  it("says so when there is nothing to draw yet", async () => {
    render(<TimeSeriesChart title="KL" description="d" series={[{ key: "kl", label: "kl", color: "#000", x: [], y: [] }]} />);
    expect(screen.getByText("No points yet.")).toBeInTheDocument();
  });

  it("formats values compactly", () => {
    expect(formatValue(0.123456)).toBe("0.123");
    expect(formatValue(12345.6)).toBe("12,346");
    expect(formatValue(0.00001234)).toBe("1.23e-5");
    expect(formatValue(null)).toBe("—");
  });
});
