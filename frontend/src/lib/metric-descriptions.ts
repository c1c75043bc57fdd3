// What each training metric means, in one sentence: the charts' hover legend, the run page
// and the comparison table all read it from here. Keys follow the engine's namespaced scheme
// (training/metrics.py): exact names first, then families of names by pattern.

const EXACT: Record<string, string> = {
  "reward/mean": "Average reward of the step's completions, before normalisation: the number training pushes up.",
  "reward/std": "Spread of the rewards within the step; near zero means every completion scored alike.",
  "reward/outcome": "Reward part for getting the final answer right, averaged over the step's completions.",
  "reward/process": "Reward part for the intermediate checks (format, partial tests) passed on the way.",
  "reward/constraint": "Reward part for respecting constraints such as length and forbidden patterns.",
  "reward/unscorable_frac": "Share of completions the verifier could not score; they got the configured fallback reward.",
  success: "Share of the step's completions that the verifier passed.",
  kl: "KL divergence from the frozen reference model, per token; a spike means the policy moved fast.",
  entropy: "Average per-token entropy of the policy in nats; a collapse towards zero means it stopped exploring.",
  frac_reward_zero_std: "Share of prompt groups whose completions all got the same reward: they carry no learning signal.",
  "completions/mean_length": "Average completion length in tokens.",
  "completions/min_length": "Shortest completion of the step, in tokens.",
  "completions/max_length": "Longest completion of the step, in tokens.",
  "completions/clipped_ratio": "Share of completions cut off at the token limit before they finished.",
  "loss/policy": "Policy-gradient loss; with one pass and no KL it sits near zero by construction, so watch reward instead.",
  "loss/value": "Value-head regression loss (PPO).",
  "loss/sft": "Cross-entropy on the reference answers' tokens (supervised fine-tuning).",
  grad_norm: "Norm of the gradient before clipping; spikes often precede instability.",
  learning_rate: "Learning rate the optimiser used at this step, after warmup and schedule.",
  "clip_ratio/low_mean": "Share of tokens whose probability ratio hit the lower clip bound.",
  "clip_ratio/high_mean": "Share of tokens whose probability ratio hit the upper clip bound.",
  "val/explained_variance": "How much of the returns' variance the value head explains (1 is perfect, 0 is useless).",
  "rejection/kept_frac": "Share of sampled completions kept as training data (they passed the verifier).",
  "perf/tokens_per_s": "Completion tokens generated per second of step time.",
  "perf/completions_per_s": "Completions generated and verified per second of step time.",
  "perf/tokens_seen": "Completion tokens the run has generated so far, across resumes.",
  "perf/step_s": "Wall-clock seconds one training step took.",
  "var/training": "Variance of the training signal the optimiser saw at this step.",
};

type Pattern = { match: RegExp; describe: (a: string, b: string) => string };

const PATTERNS: Pattern[] = [
  {
    match: /^eval\/success\/([^/]+)\/d(-?\d+)$/,
    describe: (a, b) => `Held-out pass rate on ${a} tasks of difficulty ${b}, measured without training on them.`,
  },
  {
    match: /^eval\/success\/([^/]+)$/,
    describe: (a) => `Held-out pass rate on the ${a} family, measured without training on it.`,
  },
  { match: /^eval\/success$/, describe: () => "Held-out pass rate over every evaluated family." },
  {
    match: /^success\/([^/]+)\/d(-?\d+)$/,
    describe: (a, b) => `Share of ${a} completions at difficulty ${b} that passed the verifier this step.`,
  },
  { match: /^success\/([^/]+)$/, describe: (a) => `Share of ${a} completions that passed the verifier this step.` },
  {
    match: /^curriculum\/([^/]+)\/(?:d|level_?)(-?\d+)$/,
    describe: (a, b) => `Probability that the curriculum samples a ${a} task at difficulty ${b}.`,
  },
  { match: /^curriculum\/(.+)$/, describe: (a) => `Curriculum state: ${a.replace(/\//g, " ")}.` },
  {
    match: /^time\/([a-z_]+?)_s$/,
    describe: (a) => `Seconds of the step spent on ${a.replace(/_/g, " ")}.`,
  },
  { match: /^errors\/(.+)$/, describe: (a) => `Share of completions that failed with the error type “${a}”.` },
  { match: /^rewards?\/([^/]+)(?:\/mean)?$/, describe: (a) => `Average of the “${a}” reward part over the step's completions.` },
];

/** One sentence saying what `key` measures; a neutral fallback for names we do not know. */
export function describeMetric(key: string): string {
  const exact = EXACT[key];
  if (exact) return exact;
  for (const pattern of PATTERNS) {
    const m = pattern.match.exec(key);
    if (m) return pattern.describe(m[1] ?? "", m[2] ?? "");
  }
  return `The value the run reported as “${key}” at each step.`;
}
