"""The `code` of the API's one error shape (``crucible.api.errors``), named once. The OpenAPI
schema lists them as the enum `ApiErrorCode`, so the front end's types come from it.

A field's validator may use a code of its own beyond `FIELD_CODES` (DRF's field codes); every
other code the platform sends is listed here, and a test reads the code for the ones it uses.
"""

from __future__ import annotations

REQUEST_CODES = (
    "bad_request",
    "parse_error",
    "not_authenticated",
    "authentication_failed",
    "invalid_credentials",
    "permission_denied",
    "forbidden",
    "not_found",
    "gone",
    "method_not_allowed",
    "not_acceptable",
    "unsupported_media_type",
    "too_large",
    "too_deep",
    "throttled",
    "unavailable",
    "server_error",
)
"""What went wrong with the request as a whole (the error's `field` is null)."""

FIELD_CODES = (
    "invalid",
    "required",
    "null",
    "blank",
    "empty",
    "max_length",
    "min_length",
    "max_value",
    "min_value",
    "invalid_choice",
    "not_a_list",
    "not_a_dict",
    "does_not_exist",
    "incorrect_type",
    "unique",
    "null_characters_not_allowed",
    "surrogate_characters_not_allowed",
    "unknown_field",
    "unknown_model",
    "invalid_row",
    "invalid_mapping",
)
"""What is wrong with one field (the error's `field` names it)."""

STATE_CODES = (
    "stale",
    "finished",
    "run_finished",
    "paused",
    "not_paused",
    "decided",
    "rejected",
    "over_budget",
    "quota_exceeded",
    "promotion_refused",
    "alias_refused",
    "suite_in_use",
    "archived",
    "conflict",
    "export_refused",
    "outside_run",  # a platform-only action (pause, resume, curriculum) on an outside run
    "platform_run",  # an outside-run action (finish, resume=) on a platform run
    "upload_conflict",
)
"""The object is not in a state that allows the request (mostly 409)."""

ERROR_CODES = REQUEST_CODES + FIELD_CODES + STATE_CODES
