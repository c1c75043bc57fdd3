"""Serves the built single-page app for every path the API does not own."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import ensure_csrf_cookie

NOT_BUILT = """<!doctype html><html><head><title>Crucible</title></head><body>
<h1>Crucible</h1><p>The web app is not built yet. Run <code>make frontend</code>
(or <code>make run</code>, which builds it) and reload. The API is at
<a href="/api/docs/">/api/docs/</a>.</p></body></html>"""


@ensure_csrf_cookie
def index(request: HttpRequest) -> HttpResponse:
    page = settings.FRONTEND_DIST / "index.html"
    if not page.exists():
        return HttpResponse(NOT_BUILT, status=200)
    response = HttpResponse(page.read_bytes(), content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response
