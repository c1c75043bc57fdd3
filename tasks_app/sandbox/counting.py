"""Rewriting a ``check(candidate)`` function so each top-level assert is counted.

Every top-level ``assert`` becomes ``try: assert ... except Exception: tally.failed(...)
else: tally.passed()``, so later asserts still run and give a fraction for a process
reward. The verdict stays "failed" when any of them fails. Errors that end the whole
execution (timeout, crash) are BaseExceptions and pass straight through.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType
from typing import TypedDict

from tasks_app.sandbox import plan

TALLY_NAME = "__sandbox_tally__"
DETAIL_CAP = 500

_EXC = "__sandbox_exc"


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


def compile_tests(
    source: str,
    tally: Tally,
    check_name: str = "check",
    plans: dict[int, plan.Plan] | None = None,
    on_parsed: Callable[[ast.Module], None] | None = None,
) -> CodeType:
    """Compile the tests with the named function's top-level asserts counted into ``tally``.

    With ``plans``, each undecorated definition of the function also gets its call plan,
    keyed by the line it starts on (compare ``co_firstlineno`` of the function that runs).
    ``on_parsed`` sees the tree as parsed, before any rewriting.
    """
    tree = ast.parse(source, "<tests>")
    if on_parsed is not None:
        on_parsed(tree)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == check_name:
            if plans is not None and not node.decorator_list:
                plans[node.lineno] = plan.of_check(node)
            node.body = [_counted(stmt, tally) for stmt in node.body]
    return compile(tree, "<tests>", "exec", optimize=0)  # asserts must never be stripped


class _Location(TypedDict):
    """Where a node sits in the source: the keyword arguments every statement node takes."""

    lineno: int
    col_offset: int
    end_lineno: int | None
    end_col_offset: int | None


def _counted(stmt: ast.stmt, tally: Tally) -> ast.stmt:
    """``try: <assert> except Exception as e: tally.failed(line, e) else: tally.passed()``.

    Built node by node, each placed at the assert's own location, so nothing has to walk
    the (sometimes large) assert to fix locations up afterwards.
    """
    if not isinstance(stmt, ast.Assert):
        return stmt
    tally.total += 1
    at: _Location = {
        "lineno": stmt.lineno,
        "col_offset": stmt.col_offset,
        "end_lineno": stmt.end_lineno,
        "end_col_offset": stmt.end_col_offset,
    }

    def call(method: str, *args: ast.expr) -> ast.stmt:
        tally_ref = ast.Name(id=TALLY_NAME, ctx=ast.Load(), **at)
        func = ast.Attribute(value=tally_ref, attr=method, ctx=ast.Load(), **at)
        return ast.Expr(value=ast.Call(func=func, args=list(args), keywords=[], **at), **at)

    failed = call("failed", ast.Constant(stmt.lineno, **at), ast.Name(_EXC, ast.Load(), **at))
    handler = ast.ExceptHandler(
        type=ast.Name(id="Exception", ctx=ast.Load(), **at), name=_EXC, body=[failed], **at
    )
    return ast.Try(body=[stmt], handlers=[handler], orelse=[call("passed")], finalbody=[], **at)
