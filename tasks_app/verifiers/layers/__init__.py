"""The registry of layer kinds: name -> "module:Class", imported only when first used."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import Any

from tasks_app.verifiers.layers.base import Layer

_PKG = "tasks_app.verifiers.layers"

LAYER_KINDS: dict[str, str] = {
    # syntax and structure
    "regex": f"{_PKG}.patterns:Regex",
    "json_parse": f"{_PKG}.json_layers:JsonParse",
    "json_schema": f"{_PKG}.json_layers:JsonSchema",
    "python_ast": f"{_PKG}.python_code:PythonAst",
    "sql_parse": f"{_PKG}.sql:SqlParse",
    # semantics and behaviour
    "unit_tests": f"{_PKG}.code_tests:UnitTests",
    "numeric_match": f"{_PKG}.answers:NumericMatch",
    "string_match": f"{_PKG}.answers:StringMatch",
    "json_facts": f"{_PKG}.json_layers:JsonFacts",
    "sql_result": f"{_PKG}.sql:SqlResult",
    # boundary
    "hidden_tests": f"{_PKG}.code_tests:HiddenTests",
    "edge_cases": f"{_PKG}.code_tests:EdgeCases",
    # constraints
    "length": f"{_PKG}.constraints:Length",
    "forbidden": f"{_PKG}.constraints:Forbidden",
    "required_format": f"{_PKG}.patterns:RequiredFormat",
    # model-assisted
    "model_judge": f"{_PKG}.judge:ModelJudge",
}


@cache
def layer_class(kind: str) -> type[Layer]:
    """The class for ``kind``; KeyError for an unknown kind."""
    module_name, class_name = LAYER_KINDS[kind].split(":")
    return getattr(import_module(module_name), class_name)


def describe_layer_kinds() -> list[dict[str, Any]]:
    """Kind, stage, description and params schema of every kind, for the verifier builder."""
    return [
        {
            "kind": kind,
            "stage": str(cls.stage),
            "description": cls.description,
            "biased": cls.biased,
            "params_schema": cls.params_schema,
        }
        for kind, cls in ((kind, layer_class(kind)) for kind in LAYER_KINDS)
    ]
