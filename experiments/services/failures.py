"""The one-line reason a job (a run, an evaluation, a pre-flight, a replica) failed with.

Each job stores it on its row, so a person reads why without the worker's log: an unknown
model, running out of memory (with what to lower), a pinned version that is no longer
usable, or the exception as it is.
"""

from __future__ import annotations

from rest_framework.exceptions import ValidationError

from crucible.api.errors import flatten

from .. import catalogue, launch, memory

OUT_OF_MEMORY_ADVICE = (
    "lower prompts_per_step, group_size, micro_batch_size or sampling.max_new_tokens, or "
    "train on a worker with more memory"
)


def failure_reason(exc: BaseException) -> str:
    if isinstance(exc, catalogue.UnknownModel):
        return f"model: {exc}"
    if memory.is_out_of_memory(exc):
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return f"out of memory: {detail} ({OUT_OF_MEMORY_ADVICE})"
    if isinstance(exc, launch.LaunchFailed) and memory.output_says_out_of_memory(exc.tail):
        return f"out of memory: a training process ran out ({OUT_OF_MEMORY_ADVICE})\n{exc}"
    if isinstance(exc, ValidationError):  # a pinned version that is no longer usable
        return "; ".join(f"{e['field'] or 'config'}: {e['message']}" for e in flatten(exc.detail))
    return f"{type(exc).__name__}: {exc}"
