"""Whether any running worker can take a run, sized before it is queued.

A run goes to the ``gpu`` queue, where any worker that offers its model may take it; a launch
is refused (400, naming the field and the limit) when none of them can: too many processes
or a sharding strategy for its devices, a step larger than its memory, or more steps than a
run's time limit allows even on the fastest hardware (``experiments.sizing``).
"""

from __future__ import annotations

from django.conf import settings

from .. import config as cfg
from .. import sizing
from . import workers


def launch_problems(config: cfg.ExperimentConfig) -> list[tuple[str, str]]:
    """(field, reason) pairs, under ``config.``, of the worker that comes closest; empty when
    some worker can take the run (or none offers the model: ``workers.model_problem`` says)."""
    offers = [
        sizing.Offer.of(worker.devices, entry)
        for worker in workers.running_workers("gpu")
        for entry in worker.loadable
        if entry.get("name") == config.model
    ]
    found = [sizing.problems(config, offer, settings.RUN_TIME_LIMIT_SECONDS) for offer in offers]
    if not found or not all(found):
        return []
    closest = min(
        range(len(offers)),
        key=lambda i: (len(found[i]), -(offers[i].per_process_memory or 0)),
    )
    return [(f"config.{field}", reason) for field, reason in found[closest]]
