"""GET /api/v1/metrics/catalogue/: the engine's metric catalogue, for signed-in users."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from training import metric_catalogue

pytestmark = pytest.mark.django_db


def test_it_answers_every_metric_with_its_unit_description_and_algorithms(api):
    response = api.get("/api/v1/metrics/catalogue/")
    assert response.status_code == 200
    body = {m["name"]: m for m in response.json()}
    assert list(body) == [spec.name for spec in metric_catalogue.CATALOGUE]
    assert body["kl"]["unit"] == "nats"
    assert body["kl"]["algorithms"] == ["grpo", "rloo", "ppo"]
    assert body["loss/value"]["algorithms"] == ["ppo"]
    assert "Healthy:" in body["reward/mean"]["description"]
    assert body["reward/mean"]["placeholders"] == []


def test_it_serves_a_template_with_a_pattern_that_reads_its_parts(api):
    body = {m["name"]: m for m in api.get("/api/v1/metrics/catalogue/").json()}
    level = body["success/{family}/d{difficulty}"]
    assert level["placeholders"] == ["family", "difficulty"]
    assert re.fullmatch(level["pattern"], "success/digits/d3").groups() == ("digits", "3")
    assert re.fullmatch(level["pattern"], "success/digits") is None
    assert "{family}" in level["description"]


def test_it_refuses_an_anonymous_caller_in_the_error_shape():
    response = APIClient().get("/api/v1/metrics/catalogue/")
    assert response.status_code == 401
    assert [e["code"] for e in response.json()["errors"]] == ["not_authenticated"]


def test_it_serves_what_the_front_end_tests_describe_metrics_with(api):
    """frontend/src/testing/metric-catalogue.json is the answer, for the charts' tests;
    after a change to the catalogue: python -m training.metric_catalogue > that file."""
    copy = Path(__file__).parents[2] / "frontend/src/testing/metric-catalogue.json"
    assert api.get("/api/v1/metrics/catalogue/").json() == json.loads(copy.read_text())
