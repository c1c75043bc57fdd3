"""The names of the experiments app's Celery jobs: its tasks take them as ``name=``, its
services send them through ``crucible.jobs``, and ``CELERY_TASK_ROUTES`` gives each its queue.

They keep the names the tasks had when the services imported them, so messages queued
before are still served."""

RUN_TRAINING = "experiments.tasks.run_training"
"""Train one run (queue ``gpu``)."""

RUN_EVALUATION = "experiments.tasks.run_evaluation"
"""Evaluate a checkpoint or base model on held-out tasks (queue ``cpu``)."""

RUN_PREFLIGHT = "experiments.tasks.run_preflight"
"""Sample the model on the pools of a configuration before a run (queue ``cpu``)."""

GRADE_POOL_VERSION = "experiments.tasks.grade_pool_version"
"""Measure the difficulty of a pool version's tasks with a model (queue ``cpu``)."""
