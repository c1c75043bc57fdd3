"""Which candidate calls a ``check(candidate)`` will certainly make, known before it runs.

Most dataset tests open with a run of asserts like ``assert candidate([1, 2]) == 3``:
one call with literal arguments, made whatever the earlier asserts found (each counted
assert catches its own failure). Those calls can be sent to the sandbox in one message,
and their replies streamed back, instead of one round trip each. The tests still run
unchanged on the trusted side and still compare every reply there; the proxy checks that
each real call is the planned one, in order.

A statement belongs to the plan only if the call it makes cannot be skipped or reordered:
the call is the first thing its assert evaluates (after looking up builtins), it sits on
no short-circuit or conditional path, and nothing else in the assert can reach the
candidate. The plan is the longest such run at the start of ``check``; the first
statement of any other shape ends it.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Any

# Builtins an assert may call around the candidate's result; they reach no other code
# unless the tests or the prelude rebind the name (see :meth:`Plan.usable`).
PURE_BUILTINS = frozenset(
    {"abs", "all", "any", "bool", "float", "int", "len", "list", "max", "min", "round"}
    | {"set", "sorted", "str", "sum", "tuple", "type", "isinstance", "dict", "repr"}
)


@dataclass
class Plan:
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)
    builtins_used: set[str] = field(default_factory=set)

    def usable(self, namespace: dict[str, Any]) -> bool:
        """False when the tests or the prelude rebound a builtin the plan relies on."""
        return not any(
            name in namespace or getattr(builtins, name, None) is not _ORIGINAL[name]
            for name in self.builtins_used
        )


_ORIGINAL = {name: getattr(builtins, name) for name in PURE_BUILTINS}


def of_check(function: ast.FunctionDef) -> Plan:
    """The certain calls at the start of ``function`` (before any rewriting)."""
    plan = Plan()
    if len(function.args.args) != 1 or _has_extra_args(function.args):
        return plan
    candidate = function.args.args[0].arg
    for stmt in function.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring or a bare string
        if not isinstance(stmt, ast.Assert) or not _harmless(stmt.msg, candidate, plan):
            break
        call = _certain_call(stmt.test, candidate, plan)
        if call is None:
            if _harmless(stmt.test, candidate, plan):
                continue  # e.g. ``assert True``: makes no call
            break
        try:
            args = tuple(ast.literal_eval(arg) for arg in call.args)
            kwargs = {str(kw.arg): ast.literal_eval(kw.value) for kw in call.keywords}
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            break
        plan.calls.append((args, kwargs))
    return plan


def _has_extra_args(args: ast.arguments) -> bool:
    return bool(args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg)


def _certain_call(test: ast.expr, candidate: str, plan: Plan) -> ast.Call | None:
    """The one candidate call ``test`` evaluates first and unconditionally, if any."""
    if isinstance(test, ast.UnaryOp):
        return _first(test.operand, candidate, plan)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        call = _first(left, candidate, plan)
        if call is not None:
            return call if _harmless(right, candidate, plan) else None
        if _literal(left):
            return _first(right, candidate, plan)
        return None
    return _first(test, candidate, plan)


def _first(node: ast.expr, candidate: str, plan: Plan) -> ast.Call | None:
    """The candidate call if it is the first thing ``node`` evaluates, and the only one."""
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == candidate:
            arguments = [*node.args, *(kw.value for kw in node.keywords)]
            if any(kw.arg is None for kw in node.keywords):
                return None  # **kwargs
            return node if all(_literal(a) for a in arguments) else None
        if not (isinstance(node.func, ast.Name) and node.func.id in PURE_BUILTINS):
            return None
        if node.keywords or not node.args or isinstance(node.args[0], ast.Starred):
            return None
        call = _first(node.args[0], candidate, plan)
        if call is None or not all(_harmless(a, candidate, plan) for a in node.args[1:]):
            return None
        plan.builtins_used.add(node.func.id)
        return call
    if isinstance(node, ast.BinOp):
        call = _first(node.left, candidate, plan)
        return call if call is not None and _harmless(node.right, candidate, plan) else None
    if isinstance(node, ast.UnaryOp):
        return _first(node.operand, candidate, plan)
    if isinstance(node, ast.Subscript):
        call = _first(node.value, candidate, plan)
        return call if call is not None and _harmless(node.slice, candidate, plan) else None
    return None


def _harmless(node: ast.AST | None, candidate: str, plan: Plan) -> bool:
    """Evaluating ``node`` cannot call the candidate (directly or through other code)."""
    if node is None:
        return True
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == candidate:
            return False
        if isinstance(sub, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(sub, ast.Call):
            if not (isinstance(sub.func, ast.Name) and sub.func.id in PURE_BUILTINS):
                return False
            plan.builtins_used.add(sub.func.id)
    return True


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True
