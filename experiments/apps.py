from django.apps import AppConfig


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
