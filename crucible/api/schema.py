"""OpenAPI descriptions for our authentication classes."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


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
