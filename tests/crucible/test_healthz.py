import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_it_reports_database_broker_and_channel_layer():
    response = Client().get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    for name in ("database", "broker", "channel_layer", "cache"):
        assert body["checks"][name]["ok"] is True, body["checks"][name]
    assert "sandbox" in body["checks"]


def test_it_reports_an_unreachable_broker_as_degraded_and_still_serving(settings):
    from crucible.celery_app import app

    original = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        response = Client().get("/healthz")
    finally:
        app.conf.broker_url = original
    # The API still answers without its broker: a load balancer must keep the process.
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["broker"]["ok"] is False


def test_it_serves_the_api_schema_and_docs(api):
    schema = Client().get("/api/schema/")
    assert schema.status_code == 200 and b"/api/v1/tokens/" in schema.content
    docs = Client().get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
