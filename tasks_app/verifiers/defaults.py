"""The default verifier spec of each built-in family kind, in one place families can import."""

from __future__ import annotations

import copy
from typing import Any

from tasks_app.verifiers.spec import Spec

# Modules a python-function solution has no business importing: they reach the file system,
# processes or the network. The sandbox enforces its own limits too; this makes it a verdict.
FORBIDDEN_IMPORTS = [
    "os",
    "sys",
    "subprocess",
    "socket",
    "shutil",
    "ctypes",
    "multiprocessing",
    "threading",
    "signal",
    "pathlib",
    "importlib",
    "http",
    "urllib",
    "requests",
    "pickle",
    "builtins",
]


def _answer_spec(extract: str, check: dict[str, Any]) -> Spec:
    return {"extract": extract, "layers": [check], "reward": {"weights": {"outcome": 1.0}}}


DEFAULT_SPECS: dict[str, Spec] = {
    "arithmetic": _answer_spec(
        "final_answer_or_last_number", {"kind": "numeric_match", "name": "answer"}
    ),
    "math-word": _answer_spec(
        "final_answer_or_last_number",
        {"kind": "numeric_match", "name": "answer", "params": {"abs_tol": 1e-4}},
    ),
    "string-ops": _answer_spec(
        "final_answer_or_last_line",
        {"kind": "string_match", "name": "answer", "params": {"case_sensitive": True}},
    ),
    "python-function": {
        "extract": "python_block",
        "layers": [
            {"kind": "python_ast", "name": "parses"},
            {
                "kind": "forbidden",
                "name": "no_unsafe_imports",
                "params": {"imports": FORBIDDEN_IMPORTS},
            },
            {"kind": "unit_tests", "name": "tests"},
            {"kind": "hidden_tests", "name": "hidden_tests"},
        ],
        # Fraction of tests passed gives partial credit; all of them earn the outcome.
        "reward": {"weights": {"outcome": 0.7, "process": 0.3}},
    },
    "json-schema": {
        "extract": "json_object",
        "layers": [
            {"kind": "json_parse", "name": "parses"},
            {"kind": "json_schema", "name": "schema"},
            {"kind": "json_facts", "name": "facts"},
        ],
        "reward": {"weights": {"outcome": 0.8, "process": 0.2}},
    },
    "sql-query": {
        "extract": "sql_statement",
        "layers": [
            {"kind": "sql_parse", "name": "parses"},
            {"kind": "sql_result", "name": "rows"},
        ],
        "reward": {"weights": {"outcome": 1.0}},
    },
}


def default_spec(kind: str) -> Spec:
    """A fresh copy of the default spec for family ``kind`` (KeyError for an unknown kind)."""
    return copy.deepcopy(DEFAULT_SPECS[kind])
