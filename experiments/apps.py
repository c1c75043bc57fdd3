import os
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.signals import setting_changed

MODELS_DIR_ENV = "CRUCIBLE_MODELS_DIR"
"""``training.lora.MODELS_DIR_ENV``, named here so that loading the app imports no torch."""


def export_models_dir(setting: str = "MODELS_DIR", **kwargs: Any) -> None:
    """The engine (and any child process it starts) resolves a LoRA checkpoint's base, named
    by catalogue name, in the models folder it finds in ``CRUCIBLE_MODELS_DIR``: the
    ``MODELS_DIR`` setting, kept in step when it changes."""
    if setting == "MODELS_DIR":
        os.environ[MODELS_DIR_ENV] = str(settings.MODELS_DIR)


class ExperimentsConfig(AppConfig):
    name = "experiments"
    verbose_name = "Experiments and runs"

    def ready(self) -> None:
        from crucible import jobs
        from tasks_app.services import families, model_choices, pool_jobs

        from . import signals
        from .jobs import GRADE_POOL_VERSION
        from .services import links, pins, run_hooks, suites, workers

        # Measuring difficulty needs a model and the engine, which tasks_app does not know:
        # it queues the job through this runner instead of naming our task.
        pool_jobs.register_runner("grade", jobs.sender(GRADE_POOL_VERSION))
        # ... and only the workers know which models can be loaded.
        model_choices.provide(workers.model_problem)
        # A family whose versions an experiment trained on must stay: it is archived instead.
        families.register_pin_finder(pins.experiments_pinning)
        # A succeeded run has its final checkpoint evaluated on its experiment's suite.
        run_hooks.on_run_succeeded(suites.evaluate_finished_run)
        signals.connect()  # a Celery worker's heartbeat, from ready to shutdown
        links.register()  # the audit log links its events to these pages
        export_models_dir()
        setting_changed.connect(export_models_dir, dispatch_uid="experiments.models_dir")
