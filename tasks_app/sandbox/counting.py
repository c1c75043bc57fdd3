"""Rewriting a ``check(candidate)`` function so each top-level assert is counted.

Every top-level ``assert`` becomes ``try: assert ... except Exception: tally.failed(...)
else: tally.passed()``, so later asserts still run and give a fraction for a process
reward. The verdict stays "failed" when any of them fails. Errors that end the whole
execution (timeout, crash) are BaseExceptions and pass straight through.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from types import CodeType

TALLY_NAME = "__sandbox_tally__"
DETAIL_CAP = 500

_TEMPLATE = f"""
try:
    pass
except Exception as __sandbox_exc:
    {TALLY_NAME}.failed(0, __sandbox_exc)
else:
    {TALLY_NAME}.passed()
"""


@dataclass
class Tally:
    total: int = 0
    passes: int = 0
    failures: list[str] = field(default_factory=list)

    def passed(self) -> None:
        self.passes += 1

    def failed(self, line: int, exc: Exception) -> None:
        self.failures.append(f"line {line}: {describe(exc)}")


def describe(exc: BaseException) -> str:
    message = str(exc)
    name = type(exc).__name__
    text = f"{name}: {message}" if message else name
    return text[:DETAIL_CAP]


def compile_tests(source: str, tally: Tally, check_name: str = "check") -> CodeType:
    """Compile the tests with the named function's top-level asserts counted into ``tally``."""
    tree = ast.parse(source, "<tests>")
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == check_name:
            node.body = [_counted(stmt, tally) for stmt in node.body]
    ast.fix_missing_locations(tree)
    return compile(tree, "<tests>", "exec", optimize=0)  # asserts must never be stripped


def _counted(stmt: ast.stmt, tally: Tally) -> ast.stmt:
    if not isinstance(stmt, ast.Assert):
        return stmt
    tally.total += 1
    wrapper = ast.parse(_TEMPLATE).body[0]
    assert isinstance(wrapper, ast.Try)
    wrapper.body = [stmt]
    call = wrapper.handlers[0].body[0]
    assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
    call.value.args[0] = ast.Constant(stmt.lineno)
    original = {id(node) for node in ast.walk(stmt)}
    for node in ast.walk(wrapper):
        if id(node) not in original and hasattr(node, "lineno"):
            ast.copy_location(node, stmt)
    return wrapper
