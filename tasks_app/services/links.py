"""The pages of task families, pool versions, verifiers and curricula, for the audit log.

Registered when the app is ready; the paths are the web app's routes.
"""

from __future__ import annotations

from crucible.accounts import links
from tasks_app.models import (
    Curriculum,
    LabelledExample,
    PoolJob,
    PoolVersion,
    TaskFamily,
    Verifier,
    VerifierVersion,
)


def family_path(family_id: int) -> str:
    return f"/task-families/{family_id}"


def version_path(version: PoolVersion) -> str:
    return f"{family_path(version.family_id)}/versions/{version.pk}"


def register() -> None:
    links.register(TaskFamily, links.by_pk(TaskFamily, lambda f: family_path(f.pk)))
    links.register(PoolVersion, links.by_pk(PoolVersion, version_path))
    links.register(
        PoolJob,
        links.by_pk(PoolJob, lambda job: version_path(job.version), related=("version",)),
    )
    links.register(Verifier, links.by_pk(Verifier, lambda v: f"/verifiers/{v.pk}"))
    links.register(
        VerifierVersion,
        links.by_pk(VerifierVersion, lambda v: f"/verifiers/{v.verifier_id}/versions"),
    )
    links.register(
        LabelledExample,
        links.by_pk(LabelledExample, lambda ex: f"/verifiers/{ex.verifier_id}/examples"),
    )
    links.register(Curriculum, links.by_pk(Curriculum, lambda c: f"/curricula/{c.pk}"))
