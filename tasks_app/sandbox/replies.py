"""A candidate's reply as the tests see it: its plain value, or the exception it stands for.

Shared by the tests' proxy of the candidate (:mod:`tester`), in the tests' unit, and by
the keeper deciding literal asserts (:mod:`literals`), so both turn a reply into exactly
the same value or exception.
"""

from __future__ import annotations

import builtins
from typing import Any

from tasks_app.sandbox import wire

DETAIL_CAP = 2000

# Exceptions a candidate may "raise" here; anything else becomes CandidateError.
SAFE_EXCEPTIONS = {
    name: obj
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, Exception) and not issubclass(obj, Warning)
}


class CandidateError(Exception):
    """The sandboxed function raised an exception that has no safe builtin counterpart."""


def unpack(reply: dict[str, Any]) -> Any:
    """The reply's value, or raise the exception it reports.

    The keeper already turned a MemoryError, an unsupported value or a broken reply into
    the end of the execution; what arrives here is a value or a plain exception.
    """
    if "value" in reply:
        return wire.decode(reply["value"])
    name, message = (str(part)[:DETAIL_CAP] for part in reply["raised"][:2])
    raise SAFE_EXCEPTIONS.get(name, CandidateError)(f"candidate raised {name}: {message}")
