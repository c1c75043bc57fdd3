"""OpenAPI: our authentication classes, the one error shape, and the ``?team=`` filter."""

from __future__ import annotations

from typing import Any

from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "crucible.accounts.authentication.BearerTokenAuthentication"
    name = "BearerToken"

    def get_security_definition(self, auto_schema):  # type: ignore[no-untyped-def]
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (crc_...), created in Settings → API tokens "
            "or with `manage.py createtoken`.",
        }


class ApiErrorSerializer(serializers.Serializer):
    field = serializers.CharField(
        allow_null=True, help_text="The field path (`spec.layers[2].params`), or null."
    )
    code = serializers.CharField(
        help_text="Machine-readable, e.g. `required`, `not_found`: one of `ApiErrorCode`, or a "
        "field validator's own."
    )
    message = serializers.CharField()


class ApiErrorsSerializer(serializers.Serializer):
    errors = ApiErrorSerializer(many=True)


# The answers any operation can give besides its own: bad input anywhere (a body, a query
# parameter), a missing or rejected credential, a missing role or CSRF token, an unknown
# object or page, and a throttle.
ERROR_STATUSES = {
    "400": "Invalid input; each error names its field.",
    "401": "Not signed in, or the API token is unknown, revoked or expired.",
    "403": "The caller lacks the role this needs (or a session request lacks its CSRF token).",
    "404": "No such object among your teams' (or no such page).",
    "429": "Too many requests; retry after the Retry-After header's seconds.",
}
# And those of operations that take a body.
BODY_ERROR_STATUSES = {
    "413": "The request body is over its size limit.",
    "415": "The body's content type is not one this operation accepts.",
}


class AutoSchema(openapi.AutoSchema):
    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        statuses = dict(ERROR_STATUSES)
        if self.method in {"POST", "PUT", "PATCH"}:
            statuses.update(BODY_ERROR_STATUSES)
        for code, description in sorted(statuses.items()):
            documented = responses.get(code, {})
            if "content" not in documented:
                # An operation's own wording of an error is kept; the body is the one shape.
                description = documented.get("description") or description
                error = OpenApiResponse(ApiErrorsSerializer, description=description)
                responses[code] = self._get_response_for_code(error, code, direction=direction)
        return responses

    def _map_serializer_field(
        self, field: Any, direction: Any, bypass_extensions: bool = False
    ) -> Any:
        """A list of objects states how many items it takes (``many=True, allow_empty=False``
        is ``minItems: 1``), as a list field's length validators already do."""
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if isinstance(field, serializers.ListSerializer) and schema.get("type") == "array":
            least = max(field.min_length or 0, 0 if field.allow_empty else 1)
            if least:
                schema["minItems"] = least
            if field.max_length is not None:
                schema["maxItems"] = field.max_length
        return schema

    def map_parsers(self) -> list[Any]:
        """A body with nested objects or lists is documented as JSON only: a form can carry
        flat fields alone, so a form body the schema allowed would be refused."""
        media_types = super().map_parsers()
        if "multipart/form-data" in media_types and self._has_file_field():
            return media_types
        if _nested(self.get_request_serializer()):
            return [t for t in media_types if t not in FORM_MEDIA_TYPES] or media_types
        return media_types

    def _has_file_field(self) -> bool:
        found = self.get_request_serializer()
        fields = (
            getattr(found, "fields", {}) if isinstance(found, serializers.BaseSerializer) else {}
        )
        return any(isinstance(f, serializers.FileField) for f in fields.values())

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        if self._is_list_view() and getattr(self.view, "team_path", None):
            # TeamScopedMixin.scope narrows every scoped list to one team by its slug.
            parameters.append(
                OpenApiParameter("team", str, description="Only this team's objects (its slug).")
            )
        return parameters


FORM_MEDIA_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
NESTED_FIELDS = (
    serializers.BaseSerializer, serializers.ListField, serializers.DictField,
    serializers.JSONField, serializers.HStoreField,
)  # fmt: skip


def _nested(found: Any) -> bool:
    """Whether a request serializer (class or instance) has a field a form cannot carry."""
    if isinstance(found, type) and issubclass(found, serializers.BaseSerializer):
        found = found()
    if not isinstance(found, serializers.Serializer):
        return False
    return any(isinstance(f, NESTED_FIELDS) for f in found.fields.values())
