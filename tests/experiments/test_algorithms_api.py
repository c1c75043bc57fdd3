"""GET /api/v1/algorithms/: the wizard's algorithms and hyper-parameters, for signed-in users."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_it_answers_every_algorithm_with_typed_documented_fields(api):
    response = api.get("/api/v1/algorithms/")
    assert response.status_code == 200
    body = {a["name"]: a for a in response.json()}
    assert {"grpo", "rloo", "ppo", "sft", "rejection"} <= set(body)
    fields = {f["path"]: f for f in body["grpo"]["fields"]}
    assert fields["group_size"] == {
        "path": "group_size",
        "type": "int",
        "nullable": False,
        "default": 8,
        "help": "Completions sampled per prompt (G).",
        "choices": None,
        "range": {
            "low": 1,
            "high": 1024,
            "low_open": False,
            "high_open": False,
            "text": "from 1 to 1024",
        },
    }
    assert fields["lr_schedule"]["choices"] == ["constant", "linear", "cosine"]
    assert fields["lr_schedule"]["range"] is None


def test_it_serves_the_range_the_engine_checks_for_every_numeric_field(api):
    body = {a["name"]: a for a in api.get("/api/v1/algorithms/").json()}
    for algorithm in body.values():
        for field in algorithm["fields"]:
            numeric = field["type"] in ("int", "float", "float_pair")
            assert (field["range"] is not None) == numeric, (algorithm["name"], field["path"])
    grpo = {f["path"]: f for f in body["grpo"]["fields"]}
    assert grpo["learning_rate"]["range"]["text"] == "above 0 and at most 1"
    assert grpo["sampling.max_new_tokens"]["range"]["high"] == 32768


def test_it_refuses_anonymous_callers_in_the_api_error_shape(client_for):
    response = client_for(None).get("/api/v1/algorithms/")
    assert response.status_code in (401, 403)
    assert response.json()["errors"][0]["code"] == "not_authenticated"
