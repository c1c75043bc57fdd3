"""HumanEval problems and deterministic wrong solutions, for the test suite and the bench.

A wrong solution is the canonical one with one mutation applied to its entry function:
a flipped comparison, an off-by-one constant, or a body replaced by a wrong return. The
caller keeps only mutants it has seen fail; :func:`mutants` yields them in a fixed order.
"""

from __future__ import annotations

import ast
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FLIPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


def load(path: str | Path) -> list[dict[str, Any]]:
    """Problems from HumanEval.jsonl(.gz): task_id, prompt, canonical_solution, test, entry_point."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def solution(problem: dict[str, Any]) -> str:
    return problem["prompt"] + problem["canonical_solution"]


def mutants(problem: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(kind, source) pairs, each differing from the canonical solution in one place."""
    source = solution(problem)
    entry = problem["entry_point"]
    for kind, mutate in (
        ("flip_compare", _flip_compare),
        ("off_by_one", _off_by_one),
        ("wrong_return", _wrong_return),
    ):
        tree = ast.parse(source)
        function = _entry(tree, entry)
        if function is not None and mutate(function):
            yield kind, ast.unparse(ast.fix_missing_locations(tree))


def _entry(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _flip_compare(function: ast.FunctionDef) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in FLIPS:
            node.ops[0] = FLIPS[type(node.ops[0])]()
            return True
    return False


def _off_by_one(function: ast.FunctionDef) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            node.value += 1
            return True
    return False


def _wrong_return(function: ast.FunctionDef) -> bool:
    # Keep the docstring so the function stays well-formed; return a value of no use.
    doc = function.body[:1] if ast.get_docstring(function) else []
    function.body = [*doc, ast.Return(ast.Constant("wrong"))]
    return True
