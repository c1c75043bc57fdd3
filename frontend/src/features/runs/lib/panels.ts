// The run page's charts: the metric keys a run actually reported, grouped by their prefix
// into panels (reward and its parts, success by family and by difficulty, KL, entropy, ...).
// A key no rule claims still gets a chart of its own under "Other", so nothing is hidden.
import { describeMetric } from "@/lib/metric-descriptions";

export type Panel = {
  id: string;
  title: string;
  /** One sentence under the chart: what its lines measure. */
  description: string;
  keys: string[];
  section: Section;
};

export type Section = "Reward and success" | "Policy" | "Throughput and time" | "Curriculum" | "Evaluation" | "Other";

export const SECTIONS: Section[] = ["Reward and success", "Policy", "Throughput and time", "Curriculum", "Evaluation", "Other"];

type Rule = {
  id: string;
  title: string;
  section: Section;
  description?: string;
  match: (key: string) => boolean;
};

const REWARD_EXTRAS = new Set(["reward/std", "reward/unscorable_frac"]);

const RULES: Rule[] = [
  {
    id: "reward",
    title: "Reward and its parts",
    section: "Reward and success",
    description: "Average reward per step (reward/mean) and each part the verifier's reward spec weighs: outcome, process, constraint.",
    match: (k) => (k.startsWith("reward/") && !REWARD_EXTRAS.has(k)) || /^rewards\/[^/]+\/mean$/.test(k),
  },
  {
    id: "success",
    title: "Success by family",
    section: "Reward and success",
    description: "Share of the step's completions the verifier passed, overall and per family.",
    match: (k) => k === "success" || /^success\/[^/]+$/.test(k),
  },
  {
    id: "reward-spread",
    title: "Reward spread and unscorable completions",
    section: "Reward and success",
    match: (k) => REWARD_EXTRAS.has(k) || k === "reward_std",
  },
  { id: "errors", title: "Error types", section: "Reward and success", description: "Share of completions failing with each verifier error type.", match: (k) => k.startsWith("errors/") },
  { id: "kl", title: "KL to the reference", section: "Policy", match: (k) => k === "kl" },
  { id: "entropy", title: "Entropy", section: "Policy", match: (k) => k === "entropy" },
  {
    id: "lengths",
    title: "Completion lengths",
    section: "Policy",
    description: "Shortest, average and longest completion of each step, in tokens.",
    match: (k) => /^completions\/.*length$/.test(k),
  },
  { id: "zero-std", title: "Groups without signal", section: "Policy", match: (k) => k === "frac_reward_zero_std" },
  { id: "clipped", title: "Completions cut at the limit", section: "Policy", match: (k) => k === "completions/clipped_ratio" },
  { id: "loss", title: "Loss", section: "Policy", match: (k) => k.startsWith("loss/") },
  { id: "clip-ratio", title: "Ratio clipping", section: "Policy", description: "Share of tokens whose probability ratio hit a clip bound.", match: (k) => k === "clip_ratio" || k.startsWith("clip_ratio/") },
  { id: "grad-norm", title: "Gradient norm", section: "Policy", match: (k) => k === "grad_norm" },
  { id: "learning-rate", title: "Learning rate", section: "Policy", match: (k) => k === "learning_rate" },
  { id: "tokens-per-s", title: "Throughput: tokens per second", section: "Throughput and time", match: (k) => k === "perf/tokens_per_s" },
  { id: "completions-per-s", title: "Throughput: completions per second", section: "Throughput and time", match: (k) => k === "perf/completions_per_s" },
  {
    id: "time-split",
    title: "Time split per step",
    section: "Throughput and time",
    description: "Seconds of each step spent generating completions, verifying them and updating the model.",
    match: (k) => /^time\/.+_s$/.test(k),
  },
  { id: "step-time", title: "Step time", section: "Throughput and time", match: (k) => k === "perf/step_s" },
  { id: "tokens-seen", title: "Tokens seen", section: "Throughput and time", match: (k) => k === "perf/tokens_seen" },
];

/** success/<family>/d<level>, curriculum/<family>/..., eval/success/<family>[/d<level>]: a panel per family. */
const PER_FAMILY: { id: string; section: Section; pattern: RegExp; title: (family: string) => string; description: (family: string) => string }[] = [
  {
    id: "difficulty",
    section: "Reward and success",
    pattern: /^success\/([^/]+)\/d-?\d+$/,
    title: (f) => `Success by difficulty: ${f}`,
    description: (f) => `Share of ${f} completions the verifier passed at each difficulty level.`,
  },
  {
    id: "curriculum",
    section: "Curriculum",
    pattern: /^curriculum\/([^/]+)\/.+$/,
    title: (f) => `Curriculum distribution: ${f}`,
    description: (f) => `Probability that the curriculum samples each difficulty level of ${f}; it shifts as success rises.`,
  },
  {
    id: "eval",
    section: "Evaluation",
    pattern: /^eval\/success\/([^/]+)(?:\/d-?\d+)?$/,
    title: (f) => `Held-out success: ${f}`,
    description: (f) => `Pass rate on ${f}'s held-out tasks, overall and by difficulty, never trained on.`,
  },
];

const LEVEL = /\/(?:d|level_?)(-?\d+)$/;

/** Keys in a readable order: overall before parts, difficulty levels numerically. */
function sortKeys(keys: string[]): string[] {
  const rank = (k: string) => (k === "reward/mean" || k === "success" || k === "completions/mean_length" ? 0 : 1);
  return [...keys].sort((a, b) => {
    const byRank = rank(a) - rank(b);
    if (byRank !== 0) return byRank;
    const la = LEVEL.exec(a);
    const lb = LEVEL.exec(b);
    if (la && lb && a.slice(0, la.index) === b.slice(0, lb.index)) return Number(la[1]) - Number(lb[1]);
    return a.localeCompare(b);
  });
}

export function groupPanels(keys: Iterable<string>): Panel[] {
  const panels = new Map<string, Panel>();
  const add = (id: string, title: string, section: Section, description: string | undefined, key: string) => {
    const panel = panels.get(id) ?? { id, title, section, description: description ?? "", keys: [] };
    panel.keys.push(key);
    panels.set(id, panel);
  };
  for (const key of keys) {
    const family = PER_FAMILY.map((f) => ({ f, m: f.pattern.exec(key) })).find((x) => x.m);
    if (family?.m) {
      const name = family.m[1] ?? "";
      add(`${family.f.id}:${name}`, family.f.title(name), family.f.section, family.f.description(name), key);
      continue;
    }
    const rule = RULES.find((r) => r.match(key));
    if (rule) add(rule.id, rule.title, rule.section, rule.description, key);
    else add(`other:${key}`, key, key === "eval/success" ? "Evaluation" : "Other", undefined, key);
  }
  const order = (p: Panel) => {
    const at = RULES.findIndex((r) => r.id === p.id);
    return at >= 0 ? at : RULES.length + PER_FAMILY.findIndex((f) => p.id.startsWith(`${f.id}:`));
  };
  return [...panels.values()]
    .map((p) => {
      const keys = sortKeys(p.keys);
      // A panel of one metric explains that metric; a group has its own sentence.
      const description = p.description || (keys.length === 1 ? describeMetric(keys[0]!) : keys.map(describeMetric)[0]!);
      return { ...p, keys, description };
    })
    .sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section) || order(a) - order(b) || a.title.localeCompare(b.title));
}

/** A short label for a key inside its panel: the part after the panel's common prefix. */
export function seriesLabel(key: string, panel: Panel): string {
  if (panel.keys.length === 1) return key;
  const level = LEVEL.exec(key);
  if (level && panel.id.includes(":")) return `level ${level[1]}`;
  if (panel.id.startsWith("eval:")) return "all levels";
  return key;
}
