// The run page's charts: the metric keys a run actually reported, grouped by their prefix
// into panels (reward and its parts, success by family and by difficulty, KL, entropy, ...).
// A key no rule claims still gets a chart of its own under "Other", so nothing is hidden.
import { unknownMetric } from "@/lib/metric-descriptions";

export type Panel = {
  id: string;
  title: string;
  /** Under the chart and on hovering its title: what its lines measure, what healthy looks like. */
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
    description:
      "Average reward per step (reward/mean) and each part the verifier's reward spec weighs: outcome, process, constraint. Healthy: the mean rises, then levels off; parts that fall while it rises show which part the policy trades away.",
    match: (k) => (k.startsWith("reward/") && !REWARD_EXTRAS.has(k)) || /^rewards\/[^/]+\/mean$/.test(k),
  },
  {
    id: "success",
    title: "Success by family",
    section: "Reward and success",
    description: "Share of the step's completions the verifier passed, overall and per family. Healthy: it rises; with a dynamic curriculum each family settles inside the target band.",
    match: (k) => k === "success" || /^success\/[^/]+$/.test(k),
  },
  {
    id: "reward-spread",
    title: "Reward spread and unscorable completions",
    section: "Reward and success",
    match: (k) => REWARD_EXTRAS.has(k) || k === "reward_std",
  },
  {
    id: "errors",
    title: "Error types",
    section: "Reward and success",
    description: "Share of completions failing with each verifier error type. Healthy: format errors vanish early, answer errors fall slowly.",
    match: (k) => k.startsWith("errors/"),
  },
  { id: "kept", title: "Kept for training", section: "Reward and success", match: (k) => k === "rejection/kept_frac" },
  { id: "kl", title: "KL to the reference", section: "Policy", match: (k) => k === "kl" },
  { id: "approx-kl", title: "KL of each update", section: "Policy", match: (k) => k === "approx_kl" },
  { id: "entropy", title: "Entropy", section: "Policy", match: (k) => k === "entropy" },
  {
    id: "lengths",
    title: "Completion lengths",
    section: "Policy",
    description: "Shortest, average and longest completion of each step, in tokens. Healthy: stable or slowly changing; the longest pinned at the token limit is length blow-up.",
    match: (k) => /^completions\/.*length$/.test(k),
  },
  { id: "zero-std", title: "Groups without signal", section: "Policy", match: (k) => k === "frac_reward_zero_std" },
  {
    id: "dynamic-sampling",
    title: "Dynamic sampling: groups found",
    section: "Policy",
    match: (k) => k === "dynamic_sampling/fill_rate",
  },
  { id: "clipped", title: "Completions cut at the limit", section: "Policy", match: (k) => k === "completions/clipped_ratio" },
  { id: "loss", title: "Loss", section: "Policy", match: (k) => k.startsWith("loss/") },
  {
    id: "clip-ratio",
    title: "Ratio clipping",
    section: "Policy",
    description: "Share of tokens whose probability ratio hit a clip bound. Healthy: a few percent at most (zero with one pass over each batch); large values mean each update moves too far.",
    match: (k) => k === "clip_ratio" || k.startsWith("clip_ratio/"),
  },
  {
    id: "logprob-gap",
    title: "Train/inference log-prob gap",
    section: "Policy",
    description:
      "Per-token gap between the generator's log-probabilities and the trainer's on the same tokens, mean and max. Healthy: near zero and steady; a rising max means rollouts drift off-policy.",
    match: (k) => k.startsWith("logprob_gap/"),
  },
  {
    id: "tis",
    title: "Truncated importance sampling",
    section: "Policy",
    description: "Average importance weight on the policy loss and the share of tokens cut at the cap. Healthy: a weight near 1 and almost nothing cut.",
    match: (k) => k.startsWith("tis/"),
  },
  { id: "grad-norm", title: "Gradient norm", section: "Policy", match: (k) => k === "grad_norm" },
  { id: "learning-rate", title: "Learning rate", section: "Policy", match: (k) => k === "learning_rate" },
  { id: "value", title: "Value head", section: "Policy", match: (k) => k === "val/explained_variance" },
  { id: "tokens-per-s", title: "Throughput: tokens per second", section: "Throughput and time", match: (k) => k === "perf/tokens_per_s" },
  { id: "completions-per-s", title: "Throughput: completions per second", section: "Throughput and time", match: (k) => k === "perf/completions_per_s" },
  {
    id: "time-split",
    title: "Time split per step",
    section: "Throughput and time",
    description:
      "Seconds of each step spent generating completions, verifying them and updating the model. Healthy: steady; the phase that grows to dominate the step is the one to speed up.",
    match: (k) => /^time\/.+_s$/.test(k),
  },
  { id: "step-time", title: "Step time", section: "Throughput and time", match: (k) => k === "perf/step_s" },
  { id: "tokens-seen", title: "Tokens seen", section: "Throughput and time", match: (k) => k === "perf/tokens_seen" },
  {
    id: "refills",
    title: "Dynamic sampling: extra work",
    section: "Throughput and time",
    description:
      "Refill rounds and prompts generated per step by dynamic sampling. Healthy: few rounds and prompts close to prompts per step; many mean the curriculum should move.",
    match: (k) => k === "dynamic_sampling/rounds" || k === "dynamic_sampling/prompts_generated",
  },
];

/** success/<family>/d<level>, curriculum/<family>/..., eval/success/<family>[/d<level>],
 * frac_reward_zero_std/<family>/d<level>: a panel per family. */
const PER_FAMILY: { id: string; section: Section; pattern: RegExp; title: (family: string) => string; description: (family: string) => string }[] = [
  {
    id: "difficulty",
    section: "Reward and success",
    pattern: /^success\/([^/]+)\/d-?\d+$/,
    title: (f) => `Success by difficulty: ${f}`,
    description: (f) => `Share of ${f} completions the verifier passed at each difficulty level. Healthy: easy levels near 1, harder ones rising over the run.`,
  },
  {
    id: "curriculum",
    section: "Curriculum",
    pattern: /^curriculum\/([^/]+)\/.+$/,
    title: (f) => `Curriculum distribution: ${f}`,
    description: (f) =>
      `Probability that the curriculum samples each difficulty level of ${f}, and its rolling success. Healthy: mass moves to harder levels as success rises; dashed lines mark changes made by hand.`,
  },
  {
    id: "eval",
    section: "Evaluation",
    pattern: /^eval\/success\/([^/]+)(?:\/d-?\d+)?$/,
    title: (f) => `Held-out success: ${f}`,
    description: (f) =>
      `Pass rate on ${f}'s held-out tasks, overall and by difficulty, never trained on. Healthy: it rises with training success; flat while training success climbs is reward hacking or memorising.`,
  },
  {
    id: "zero-std-level",
    section: "Curriculum",
    pattern: /^frac_reward_zero_std\/([^/]+)\/d-?\d+$/,
    title: (f) => `Groups without signal by difficulty: ${f}`,
    description: (f) =>
      `Share of ${f} groups at each difficulty whose completions all scored alike, so they teach nothing. Healthy: well below 1 where the curriculum samples most; near 1 marks levels solved or out of reach.`,
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

/** `describe` says what one metric is (the catalogue's `useDescribeMetric`). */
export function groupPanels(keys: Iterable<string>, describe: (key: string) => string = unknownMetric): Panel[] {
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
      const description = p.description || (keys.length === 1 ? describe(keys[0]!) : keys.map(describe)[0]!);
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
