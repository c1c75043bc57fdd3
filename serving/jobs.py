"""The names of serving's Celery jobs: its tasks take them as ``name=``, its services send
them through ``crucible.jobs``, and ``CELERY_TASK_ROUTES`` gives each its queue."""

SERVE_REPLICA = "serving.tasks.serve_replica"
"""Hold a deployment's model and answer its requests until told to stop (queue ``serve``)."""

SERVE_REPLICA_BEFORE_SERVING_APP = "experiments.tasks.serve_replica"
"""The name ``SERVE_REPLICA`` had while the experiments app held serving: replicas queued
under it before an upgrade are still served (see ``serving.tasks``)."""
