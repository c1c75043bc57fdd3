// What each training metric means and what healthy looks like, in a sentence or two: the
// charts' hover text and captions, the run page and the comparison table all read it from
// here. Keys follow the engine's namespaced scheme (training/metrics.py): exact names first,
// then families of names by pattern.

const EXACT: Record<string, string> = {
  "reward/mean":
    "Average reward of the step's completions, before normalisation: the number training pushes up. Healthy: it rises, noisily, then levels off; a sudden jump with flat held-out success is a sign of reward hacking.",
  "reward/std":
    "Spread of the rewards within the step. Healthy: clearly above zero; near zero means every completion scored alike and there is little to learn from.",
  "reward/outcome": "Reward part for getting the final answer right, averaged over the step's completions. Healthy: it rises with success.",
  "reward/process": "Reward part for the intermediate checks (format, partial tests) passed on the way. Healthy: it rises first, then outcome follows.",
  "reward/constraint":
    "Reward part for respecting constraints such as length and forbidden patterns. Healthy: near its maximum; a fall means the policy found a shortcut that breaks a rule.",
  "reward/unscorable_frac":
    "Share of completions the verifier could not score; they got the configured fallback reward. Healthy: near zero; a rise points at the verifier or the prompt format.",
  success: "Share of the step's completions that the verifier passed. Healthy: it rises; with a dynamic curriculum it hovers inside the target band as tasks get harder.",
  kl: "KL divergence from the frozen reference model, per token. Healthy: it grows slowly and stays small (below about 0.1); a spike means the policy moved fast and may be collapsing.",
  approx_kl:
    "KL between the policy before and after this step's PPO epochs, per token. Healthy: small (around 0.01); large values mean the epochs moved too far from the rollout policy.",
  entropy:
    "Average per-token entropy of the policy in nats. Healthy: it declines slowly; a collapse towards zero means the policy stopped exploring and every sample looks alike.",
  frac_reward_zero_std:
    "Share of prompt groups whose completions all got the same reward: they carry no learning signal. Healthy: well below 1; near 1 means tasks are all solved or all failed, so move the curriculum.",
  "completions/mean_length": "Average completion length in tokens. Healthy: stable or slowly changing; a steady climb towards the limit is length blow-up.",
  "completions/min_length": "Shortest completion of the step, in tokens. Healthy: above zero; empty completions mean the policy learned to stop early.",
  "completions/max_length": "Longest completion of the step, in tokens. Healthy: below the token limit most of the time.",
  "completions/clipped_ratio":
    "Share of completions cut off at the token limit before they finished. Healthy: near zero; a rise means answers grow too long for the limit (raise it or penalise length).",
  "loss/policy":
    "Policy-gradient loss. Healthy: with one pass over the batch and no KL it is about zero by construction (the advantages average out), so a flat zero does not mean nothing is learned: watch reward, the groups without signal, grad norm and KL instead.",
  "loss/value": "Value-head regression loss (PPO). Healthy: it falls early and then stays low; a rise means returns shifted faster than the value head follows.",
  "loss/sft": "Cross-entropy on the reference answers' tokens (supervised fine-tuning). Healthy: it falls and levels off; a rise means the learning rate is too high.",
  grad_norm: "Norm of the gradient before clipping. Healthy: steady within a range; spikes (especially repeated ones) often precede instability.",
  learning_rate: "Learning rate the optimiser used at this step, after warmup and schedule. Healthy: it follows the schedule you set.",
  clip_ratio:
    "Share of tokens whose probability ratio hit a clip bound. Healthy: a few percent at most; zero with one pass over each batch; large values mean the update moved too far.",
  "clip_ratio/low_mean": "Share of tokens whose probability ratio hit the lower clip bound. Healthy: a few percent at most.",
  "clip_ratio/high_mean":
    "Share of tokens whose probability ratio hit the upper clip bound. Healthy: a few percent at most; clip-higher (DAPO) lets this stay lower for rare tokens.",
  "logprob_gap/mean":
    "Average per-token gap between the generator's log-probabilities and the training forward pass's on the same tokens. Healthy: near zero in float32, a little larger in bf16 or with another inference engine.",
  "logprob_gap/max":
    "Largest per-token gap between the generator's and the trainer's log-probabilities this step. Healthy: small and steady; a rising value means rollouts are drifting off-policy.",
  "tis/weight_mean": "Average truncated importance weight min(trainer / generator probability, cap) applied to the policy loss. Healthy: close to 1, meaning little correction was needed.",
  "tis/truncated_frac": "Share of tokens whose importance weight was cut at the cap: where the generator and the trainer disagree most. Healthy: near zero.",
  "val/explained_variance": "How much of the returns' variance the value head explains (1 is perfect, 0 is useless). Healthy: it rises towards 1 early in a PPO run.",
  "rejection/kept_frac":
    "Share of sampled completions kept as training data (they passed the verifier). Healthy: between a few percent and most; zero means nothing to learn from (easier tasks), near 1 means little left to learn.",
  "dynamic_sampling/fill_rate":
    "Share of the step's groups with mixed rewards (a learning signal) that dynamic sampling found. Healthy: 1; below, it ran out of refill rounds and the step trained on fewer groups.",
  "dynamic_sampling/rounds": "Extra generate-and-verify rounds dynamic sampling ran to replace groups without signal. Healthy: 0 or 1; many rounds make each step slower.",
  "dynamic_sampling/prompts_generated":
    "Prompts generated this step, refills included. Healthy: close to prompts per step; far above it means most groups had no signal and the curriculum should move.",
  "perf/tokens_per_s": "Completion tokens generated per second of step time. Healthy: steady; a fall with longer completions is expected, a fall without one points at the machine.",
  "perf/completions_per_s": "Completions generated and verified per second of step time. Healthy: steady over the run.",
  "perf/tokens_seen": "Completion tokens the run has generated so far, across resumes. Healthy: it climbs steadily.",
  "perf/step_s": "Wall-clock seconds one training step took. Healthy: steady; a climb usually follows completion length or a slow verifier.",
  "var/training": "Variance of the training signal the optimiser saw at this step. Healthy: above zero; zero means no gradient signal.",
};

type Pattern = { match: RegExp; describe: (a: string, b: string) => string };

const PATTERNS: Pattern[] = [
  {
    match: /^eval\/success\/([^/]+)\/d(-?\d+)$/,
    describe: (a, b) =>
      `Held-out pass rate on ${a} tasks of difficulty ${b}, measured without training on them. Healthy: it rises with training success; flat while training success climbs means the model is memorising or hacking the reward.`,
  },
  {
    match: /^eval\/success\/([^/]+)$/,
    describe: (a) => `Held-out pass rate on the ${a} family, measured without training on it. Healthy: it rises with training success and never falls for long.`,
  },
  {
    match: /^eval\/success$/,
    describe: () => "Held-out pass rate over every evaluated family. Healthy: it rises with training success; a fall while training success rises is over-fitting.",
  },
  {
    match: /^success\/([^/]+)\/d(-?\d+)$/,
    describe: (a, b) =>
      `Share of ${a} completions at difficulty ${b} that passed the verifier this step. Healthy: easy levels near 1, the hardest levels rising from 0 over the run.`,
  },
  {
    match: /^success\/([^/]+)$/,
    describe: (a) => `Share of ${a} completions that passed the verifier this step. Healthy: it rises; with a dynamic curriculum it settles inside the target band.`,
  },
  {
    match: /^frac_reward_zero_std\/([^/]+)\/d(-?\d+)$/,
    describe: (a, b) =>
      `Share of ${a} groups at difficulty ${b} whose completions all scored alike (no learning signal). Healthy: well below 1; near 1 means the level is solved or out of reach, so sample it less.`,
  },
  {
    match: /^curriculum\/([^/]+)\/(?:d|level_?)(-?\d+)$/,
    describe: (a, b) =>
      `Probability that the curriculum samples a ${a} task at difficulty ${b}. Healthy: mass moves to harder levels as success rises; a dashed line marks a change made by hand.`,
  },
  {
    match: /^curriculum\/([^/]+)\/rolling_success$/,
    describe: (a) => `Success rate of ${a} over the curriculum's rolling window of outcomes. Healthy: inside the target band; the policy shifts levels when it leaves it.`,
  },
  { match: /^curriculum\/(.+)$/, describe: (a) => `Curriculum state: ${a.replace(/\//g, " ")}. Healthy: it changes slowly.` },
  {
    match: /^time\/([a-z_]+?)_s$/,
    describe: (a) => `Seconds of the step spent on ${a.replace(/_/g, " ")}. Healthy: steady; a phase that grows to dominate the step is the one to speed up.`,
  },
  {
    match: /^errors\/(.+)$/,
    describe: (a) => `Share of completions that failed with the error type “${a}”. Healthy: it falls over the run; a format error that stays high points at the prompt template.`,
  },
  {
    match: /^rewards?\/([^/]+)(?:\/mean)?$/,
    describe: (a) => `Average of the “${a}” reward part over the step's completions. Healthy: it rises with the total reward.`,
  },
];

/** What `key` measures and what healthy looks like; a neutral fallback for names we do not know. */
export function describeMetric(key: string): string {
  const exact = EXACT[key];
  if (exact) return exact;
  for (const pattern of PATTERNS) {
    const m = pattern.match.exec(key);
    if (m) return pattern.describe(m[1] ?? "", m[2] ?? "");
  }
  return `The value the run reported as “${key}” at each step.`;
}
