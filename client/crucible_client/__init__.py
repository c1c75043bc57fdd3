"""Crucible's Python client: the REST API typed from its schema, run sockets that reconnect,
and metric logging that never breaks training. See ``Crucible``."""

from crucible_client.api import Crucible
from crucible_client.http import ApiError, Unreachable
from crucible_client.logger import RunLogger, sync
from crucible_client.spool import Spool
from crucible_client.stream import RunStream

__all__ = ["ApiError", "Crucible", "RunLogger", "RunStream", "Spool", "Unreachable", "sync"]
