"""Content-Security-Policy and Permissions-Policy on every page: the app, the admin, the API
docs, the API itself and static files, in the production profile too."""

from __future__ import annotations

import json
import re
import secrets

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from crucible.security_headers import SecurityHeadersMiddleware
from tests.crucible.test_settings import _manage

PAGES = ["/", "/login", "/admin/login/", "/api/docs/", "/api/redoc/", "/api/v1/auth/me/"]


def directives(policy: str) -> dict[str, list[str]]:
    parts = [p.split() for p in policy.split(";") if p.strip()]
    return {name: values for name, *values in parts}


def assert_locked_down(headers: dict[str, str], page: str) -> None:
    policy = directives(headers.get("Content-Security-Policy", ""))
    assert policy.get("script-src") == ["'self'"], page  # no inline or eval'd script anywhere
    assert policy.get("object-src") == ["'none'"] and policy.get("frame-ancestors") == ["'none'"]
    assert "camera=()" in headers.get("Permissions-Policy", ""), page


@pytest.mark.django_db
@pytest.mark.parametrize("page", PAGES)
def test_it_sends_its_policies_with_every_kind_of_page(client, page):
    response = client.get(page)
    assert response.status_code in {200, 401}, page
    assert_locked_down(dict(response.items()), page)


@pytest.mark.django_db
def test_it_sends_them_with_static_files(client):
    response = client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert response.status_code == 200
    assert_locked_down(dict(response.items()), "static")


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["/api/docs/", "/api/redoc/"])
def test_it_serves_the_api_docs_without_inline_scripts_or_other_sites(client, page):
    html = client.get(page).content.decode()
    scripts = re.findall(r"<script([^>]*)>", html)
    assert scripts and all("src=" in attributes for attributes in scripts)
    assert "fonts.googleapis.com" not in html


@pytest.mark.django_db
def test_it_serves_swagger_uis_start_up_script_as_a_file(client):
    (script,) = re.findall(r'<script src="(/api/docs/\?[^"]*)"', client.get("/api/docs/").content.decode())
    response = client.get(script.replace("&amp;", "&"))
    assert response["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in response.content.decode()


def test_it_keeps_a_policy_the_view_set_itself():
    def view(request):  # type: ignore[no-untyped-def]
        response = HttpResponse("x")
        response["Content-Security-Policy"] = "default-src 'none'"
        return response

    response = SecurityHeadersMiddleware(view)(RequestFactory().get("/"))
    assert response["Content-Security-Policy"] == "default-src 'none'"
    assert "camera=()" in response["Permissions-Policy"]


PROBE = (
    "import json; from django.test import Client; c = Client(); "
    "print(json.dumps({p: dict(c.get(p, secure=True).items()) for p in %r}))"
)


@pytest.mark.slow
def test_it_sends_them_in_the_production_profile(tmp_path):
    result = _manage(
        "shell", "-c", PROBE % (PAGES[:-1],),
        env={
            "DJANGO_SETTINGS_MODULE": "crucible.settings.production",
            "SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "testserver",
            "CRUCIBLE_VAR_DIR": str(tmp_path),
        },
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    for page, headers in json.loads(result.stdout.strip().splitlines()[-1]).items():
        assert_locked_down(headers, page)
