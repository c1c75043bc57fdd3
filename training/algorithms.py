"""The algorithm registry: config name -> `train_step(run) -> metrics`."""

from training import grpo, ppo, rejection, sft

STEP_FUNCTIONS = {
    "grpo": grpo.train_step,
    "rloo": grpo.train_step,  # RLOO is GRPO's loop with the leave-one-out baseline
    "ppo": ppo.train_step,
    "sft": sft.train_step,
    "rejection": rejection.train_step,
}
