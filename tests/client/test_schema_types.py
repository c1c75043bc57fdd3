"""The client's types are the schema's: the committed module is what the generator writes from
frontend/openapi/schema.yaml, and every path the client calls is one the schema has."""

from __future__ import annotations

import importlib.util
import re
import typing
from pathlib import Path

import yaml
from crucible_client import Crucible, schema_types
from crucible_client.api import API, Collection

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = yaml.safe_load((ROOT / "frontend" / "openapi" / "schema.yaml").read_text())


def generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("generate_types", ROOT / "client" / "generate_types.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_it_commits_the_types_the_schema_generates():
    written = (ROOT / "client" / "crucible_client" / "schema_types.py").read_text()
    assert generator().generate(SCHEMA) == written, "run: python client/generate_types.py"


def test_it_types_a_run_with_the_schemas_required_and_optional_fields():
    run = SCHEMA["components"]["schemas"]["Run"]
    hints = typing.get_type_hints(schema_types.Run)
    assert set(hints) == set(run["properties"])
    assert schema_types.Run.__required_keys__ == frozenset(run["required"])


def test_it_calls_only_paths_the_schema_has():
    paths = set(SCHEMA["paths"])
    client = Crucible("http://127.0.0.1:1", "crc_unused")
    collections = [v for v in vars(client).values() if isinstance(v, Collection)]
    collections += [v for v in vars(client.registry).values() if isinstance(v, Collection)]
    for collection in collections:
        assert collection.path in paths, collection.path
    source = (ROOT / "client" / "crucible_client" / "api.py").read_text()
    actions = re.findall(r'self\.action\(\w+, "([\w/-]+)"', source)
    for action in actions:
        assert any(p.endswith(f"}}/{action}/") for p in paths), action
    assert f"{API}/checkpoints/{{id}}/export/" in paths and f"{API}/auth/me/" in paths
