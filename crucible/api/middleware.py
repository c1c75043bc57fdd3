"""Keep NUL characters in a request's URL and cookies away from the database.

Query parameters reach filters and ``?team=`` scoping as text, the session cookie reaches a
session lookup, and PostgreSQL refuses U+0000 in text, so a NUL there would be a 500. Under
/api/ a NUL in the URL is refused; on any path a cookie carrying one is ignored, as a cookie
we never set. Bodies are checked by ``crucible.api.parsers``.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from .errors import is_api, json_error
from .parsers import first_problems, unstorable, unstorable_form


class RejectNullCharactersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for name in [name for name, value in request.COOKIES.items() if unstorable(name + value)]:
            del request.COOKIES[name]
        if is_api(request):
            refused = self.refusal(request)
            if refused is not None:
                return refused
        return self.get_response(request)

    def refusal(self, request: HttpRequest) -> HttpResponse | None:
        if unstorable(request.path_info):
            # No route or object is named with a NUL, so nothing is there.
            return json_error(404, "not_found", "Not found.")
        problems = first_problems(unstorable_form(request.GET))
        if not problems:
            return None
        errors = [{"field": name, "code": p.code, "message": str(p)} for name, p in problems]
        return JsonResponse({"errors": errors}, status=400)


class SyncChainMiddleware:
    """Last in ``MIDDLEWARE``, sync only, does nothing but keep the chain in one mode.

    Under ASGI, Django runs a middleware that can do both in the mode of the handler inside
    it, and the innermost handler is async; a ``MiddlewareMixin`` in async mode hops to a
    thread and back for each of its hooks, twice a request per middleware. Ending the chain
    with a sync-only middleware puts every one of them in sync mode: the request hops to a
    thread once, runs the chain and the (sync) view there, and hops back."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)
