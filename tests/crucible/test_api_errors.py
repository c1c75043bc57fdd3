import pytest
from django.core.exceptions import SuspiciousOperation
from django.urls import path
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.test import APIClient

from crucible.urls import handler400, handler403, handler404, handler500  # noqa: F401
from crucible.urls import urlpatterns as app_urlpatterns

pytestmark = pytest.mark.django_db


@api_view(["GET"])
@permission_classes([AllowAny])
def api_boom(request):  # type: ignore[no-untyped-def]
    raise RuntimeError("a bug")


def plain_boom(request):  # type: ignore[no-untyped-def]
    raise RuntimeError("a bug")


def suspicious(request):  # type: ignore[no-untyped-def]
    raise SuspiciousOperation("odd request")


# The app's own URLconf and handlers, plus views that fail in ways no real view should.
urlpatterns = [
    path("api/v1/boom/", api_boom),
    path("api/v1/plain-boom/", plain_boom),
    path("api/v1/suspicious/", suspicious),
    path("boom/", plain_boom),
    *app_urlpatterns,
]


@pytest.fixture
def client(settings) -> APIClient:
    settings.DEBUG = False
    return APIClient(raise_request_exception=False)


def only_error(response) -> dict:  # type: ignore[no-untyped-def]
    assert response["Content-Type"] == "application/json"
    (error,) = response.json()["errors"]
    assert set(error) == {"field", "code", "message"}
    return error


@pytest.mark.parametrize("url", ["/api/v1/no-such-thing/", "/api/nowhere", "/api/v1/families/x/y/"])
def test_it_answers_an_unknown_api_path_with_a_json_404(client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert only_error(response)["code"] == "not_found"


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("url", ["/api/v1/boom/", "/api/v1/plain-boom/"])
def test_it_answers_a_crash_under_the_api_with_a_json_500(client, url):
    response = client.get(url)
    assert response.status_code == 500
    error = only_error(response)
    assert error["code"] == "server_error" and "a bug" not in error["message"]


@pytest.mark.urls(__name__)
def test_it_answers_a_request_django_refuses_with_a_json_400(client):
    response = client.get("/api/v1/suspicious/")
    assert response.status_code == 400
    assert only_error(response)["code"] == "bad_request"


@pytest.mark.urls(__name__)
def test_it_keeps_html_error_pages_outside_the_api(client):
    assert "text/html" in client.get("/boom/")["Content-Type"]
    assert "text/html" in client.get("/static/missing.js")["Content-Type"]


def test_it_names_a_list_item_by_its_index_in_brackets():
    from rest_framework import serializers

    from crucible.api.errors import flatten

    class Entry(serializers.Serializer):
        weight = serializers.FloatField()

    class Body(serializers.Serializer):
        tags = serializers.ListField(child=serializers.CharField(max_length=3))
        entries = Entry(many=True)

    body = Body(data={"tags": ["ok", "too long"], "entries": [{"weight": 1}, {"weight": "x"}]})
    assert not body.is_valid()
    assert {e["field"] for e in flatten(body.errors)} == {"tags[1]", "entries[1].weight"}
