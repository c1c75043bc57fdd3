"""The pages of experiments, runs, evaluations, suites and reports, for the audit log.

Registered when the app is ready; the paths are the web app's routes.
"""

from __future__ import annotations

from crucible.accounts import links

from ..models import EvaluationJob, EvaluationReport, EvaluationSuite, Experiment, Run


def register() -> None:
    links.register(Experiment, links.by_pk(Experiment, lambda e: f"/experiments/{e.pk}"))
    links.register(Run, links.by_pk(Run, lambda r: f"/runs/{r.pk}"))
    links.register(EvaluationJob, links.by_pk(EvaluationJob, lambda j: f"/evaluations/{j.pk}"))
    links.register(
        EvaluationSuite, links.by_pk(EvaluationSuite, lambda s: f"/evaluation-suites/{s.pk}")
    )
    links.register(EvaluationReport, links.by_pk(EvaluationReport, lambda r: f"/reports/{r.pk}"))
