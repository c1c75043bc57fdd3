"""Every frame type the websockets send, named once. The OpenAPI schema lists them as enums
(`LiveEventType`, `RunFrameType`, `CanaryFrameType`, `SocketFrameType`,
`ClientMessageType`), so the front end's types come from it.

A team event's type is the audit action that caused it (``crucible.accounts.services.record``)
or one of the explicit events the services publish; a test reads the code for the types it
sends, so a new one is added here or the suite fails.
"""

from __future__ import annotations

SOCKET_FRAMES = ("hello", "pong", "error", "teams.changed")
"""Frames about the connection itself, on every socket: accepted, answered ping, refused
message, and the caller's teams changed (the socket joined or left groups)."""

RUN_FRAMES = ("history", "points", "run", "events", "paused")
"""Frames of `/ws/runs/<id>/` (see ``crucible.realtime.protocol``)."""

CANARY_FRAMES = ("canary",)
"""Frames of `/ws/canaries/<id>/`: the canary as the API shows it."""

CLIENT_MESSAGES = ("pause", "resume", "ping")
"""What a client may send on a stream's socket."""

TEAM_EVENTS = (
    "canary.decided",
    "canary.paused",
    "canary.resumed",
    "canary.started",
    "checkpoint.promoted",
    "checkpoint.upload_started",
    "checkpoint.uploaded",
    "curriculum.config_changed",
    "curriculum.created",
    "curriculum.deleted",
    "deployment.changed",
    "deployment.created",
    "deployment.deleted",
    "deployment.started",
    "deployment.stopped",
    "deployment.updated",
    "evaluation.started",
    "evaluation.updated",
    "evaluation_suite.changed",
    "evaluation_suite.created",
    "evaluation_suite.deleted",
    "evaluation_suite.updated",
    "experiment.cloned",
    "experiment.created",
    "family.archived",
    "family.created",
    "family.deleted",
    "family.restored",
    "family.updated",
    "health_settings.changed",
    "member.added",
    "member.removed",
    "member.role_changed",
    "model_alias.removed",
    "model_alias.set",
    "model_version.registered",
    "pool.grading_started",
    "pool.job_updated",
    "pool.version_created",
    "preflight.started",
    "preflight.updated",
    "registered_model.changed",
    "registered_model.created",
    "registered_model.deleted",
    "registered_model.updated",
    "report.commented",
    "report.created",
    "report.regression_overridden",
    "report.submitted",
    "report.updated",
    "review_policy.changed",
    "run.cancel_requested",
    "run.changed",
    "run.created_outside",
    "run.curriculum_changed",
    "run.finished_outside",
    "run.launched",
    "run.pause_requested",
    "run.resumed",
    "run.resumed_outside",
    "run.signal_breached",
    "team.created",
    "token.created",
    "token.revoked",
    "verifier.created",
    "verifier.deleted",
    "verifier.example_added",
    "verifier.example_deleted",
    "verifier.example_proposed",
    "verifier.proposal_accepted",
    "verifier.proposal_rejected",
    "verifier.version_created",
)
"""Events of `/ws/events/`: one of the caller's teams changed something."""

INTERNAL = ("access.changed", "layer.reconnected", "event.message", "resync")
"""Messages between the platform's own processes and consumers; never sent to a client."""
