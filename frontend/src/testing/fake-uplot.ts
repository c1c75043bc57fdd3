// A stand-in for uPlot in component tests: jsdom has no canvas (and no matchMedia, which
// uPlot reads on import). Each instance records what the chart wrapper asked it to draw.
// Use: vi.mock("uplot", () => import("@/testing/fake-uplot")).
import type uPlot from "uplot";

export class FakeUPlot {
  static instances: FakeUPlot[] = [];

  options: uPlot.Options;
  data: uPlot.AlignedData;
  width: number;
  height: number;
  destroyed = false;
  setDataCalls = 0;
  cursor: { idx: number | null } = { idx: null };
  select = { width: 0 };
  over: HTMLDivElement;

  constructor(options: uPlot.Options, data: uPlot.AlignedData, target: HTMLElement) {
    this.options = options;
    this.data = data;
    this.width = options.width;
    this.height = options.height;
    this.over = document.createElement("div");
    this.over.className = "u-over";
    target.appendChild(this.over);
    FakeUPlot.instances.push(this);
  }

  setData(data: uPlot.AlignedData): void {
    this.data = data;
    this.setDataCalls += 1;
  }

  redraws = 0;

  /** The real one redraws (with its draw hooks: the page's markers); here it is counted. */
  redraw(): void {
    this.redraws += 1;
  }

  setSize({ width, height }: { width: number; height: number }): void {
    this.width = width;
    this.height = height;
  }

  destroy(): void {
    this.destroyed = true;
    this.over.remove();
  }

  /** What hovering over the data point `idx` does in the real plot. */
  hover(idx: number | null): void {
    this.cursor.idx = idx;
    const hooks: unknown = this.options.hooks?.setCursor;
    const list = (Array.isArray(hooks) ? hooks : hooks ? [hooks] : []) as ((u: uPlot) => void)[];
    list.forEach((hook) => hook(this as unknown as uPlot));
  }

  static rangeNum(min: number, max: number): [number, number] {
    return [min, max];
  }

  static live(): FakeUPlot[] {
    return FakeUPlot.instances.filter((u) => !u.destroyed);
  }

  static reset(): void {
    FakeUPlot.instances = [];
  }
}

export default FakeUPlot;
