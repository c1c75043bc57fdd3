"""Bearer-token authentication for automation (``Authorization: Bearer crc_...``)."""

from __future__ import annotations

from rest_framework import authentication, exceptions

from . import services


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):  # type: ignore[no-untyped-def]
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        if not header or header[0].lower() not in {"bearer", "token"}:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Bearer <token>'")
        try:
            token = services.authenticate_token(header[1])
        except services.TokenRejected as exc:
            raise exceptions.AuthenticationFailed(str(exc)) from exc
        return token.user, token

    def authenticate_header(self, request) -> str:  # type: ignore[no-untyped-def]
        # Makes DRF answer 401 (not 403) to anonymous API calls.
        return self.keyword
