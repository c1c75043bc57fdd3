"""Tests made only of literal asserts, decided from the candidate's replies alone.

Most dataset tests are nothing but a ``check(candidate)`` of asserts such as
``assert candidate([1, 2]) == 3``: a call with literal arguments, compared with a literal.
Running such tests in a unit of their own costs a whole fresh process per check, yet all
they can ever do is compare plain data with literals. So the tests' unit, when it compiles
a text and before it runs any of it, also *reads* it (:func:`read`): the calls, in order,
and per counted assert the comparison to make with the reply. The keeper keeps a reading
only once a real run of exactly those tests, in their unit, reported what the reading gives
for the same replies (:func:`decide`); from then on a check of the same text is decided by
the keeper from the candidate's replies, with no tests' unit at all.

The keeper never runs test code: a reading is plain data (exact-typed literals, checked for
shape by :func:`parse`), and deciding it only compares the candidate's plain-data replies
with those literals using builtin operators. A text is read only if nothing else in it can
matter: the tests' module and the prelude may only import, define functions (no decorator,
no call in a default or an annotation) and bind literals; ``check`` is defined once, takes
one argument and holds only counted asserts of the forms in :data:`FORMS`.
"""

from __future__ import annotations

import ast
import dis
from dataclasses import dataclass
from typing import Any

from tasks_app.sandbox import counting, plan, replies, wire

DETAIL_CAP = 2000
# assert <literal> | C | not C | C == L | C != L | L == C | L != C | C is L | C is not L
# | abs(C - L) < T | abs(C - L) <= T, where C is a call of the candidate with literal
# arguments and L, T are literals (L of ``is`` only None, True or False).
FORMS = frozenset(
    {"const", "truthy", "falsy", "eq", "ne", "req", "rne", "is", "is_not", "abs_lt", "abs_le"}
)
# Names the rewritten check looks up (a form's builtin, what a counted assert catches and
# counts into): the text must never bind them.
NAMES_USED = frozenset({"abs", "Exception", counting.TALLY_NAME})
MAX_READING_CHARS = 512 * 1024
_SINGLETONS = (None, True, False)
_ACTIVE = (
    ast.Call,
    ast.Lambda,
    ast.NamedExpr,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


_FOLDABLE = (
    ast.Constant,
    ast.BinOp,
    ast.UnaryOp,
    ast.Tuple,
    ast.operator,
    ast.unaryop,
    ast.expr_context,
)


class Unreadable(Exception):  # noqa: N818
    """The text is not only literal asserts: its tests must run in their unit."""


@dataclass(frozen=True)
class Assertion:
    line: int
    form: str
    call: int | None  # index of the call whose reply it judges; None for ``const``
    operands: tuple[Any, ...]  # decoded literals
    message: tuple[Any, ...]  # (the assert's literal message,) or ()


@dataclass(frozen=True)
class Reading:
    calls: list[dict[str, Any]]  # wire requests, exactly as the tests' proxy would send them
    asserts: tuple[Assertion, ...]


# --- in the tests' unit: reading the text ------------------------------------------------


def read(tests: ast.Module, prelude: str, check_name: str = "check") -> dict[str, Any] | None:
    """The reading of ``tests`` (parsed, not yet rewritten) as plain data, or None."""
    try:
        _inert_module(ast.parse(prelude, "<prelude>"), check_name, allow_check=False)
        check = _inert_module(tests, check_name, allow_check=True)
        calls, asserts = _read_check(check)
        if not calls:
            return None
        data = {"calls": calls, "asserts": asserts}
        if len(wire.dumps(data)) > MAX_READING_CHARS:
            return None
        return data
    except (Unreadable, SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    except wire.WireError:
        return None


def _inert_module(module: ast.Module, check_name: str, allow_check: bool) -> ast.FunctionDef:
    check: ast.FunctionDef | None = None
    for stmt in module.body:
        bound = _bound_names(stmt)
        if bound & NAMES_USED or (check_name in bound and not allow_check):
            raise Unreadable(f"rebinds {sorted(bound & (NAMES_USED | {check_name}))}")
        if isinstance(stmt, ast.FunctionDef) and stmt.name == check_name:
            if check is not None:
                raise Unreadable("defines check twice")
            check = stmt
        elif check_name in bound:
            raise Unreadable("binds check otherwise")
    if allow_check and check is None:
        raise Unreadable("no check")
    return check  # type: ignore[return-value]  # None only for the prelude, which ignores it


def _bound_names(stmt: ast.stmt) -> set[str]:
    """The names ``stmt`` binds, if it is one of the inert shapes; else Unreadable."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return set()
    if isinstance(stmt, ast.Import):
        return {(alias.asname or alias.name).split(".")[0] for alias in stmt.names}
    if isinstance(stmt, ast.ImportFrom):
        if any(alias.name == "*" for alias in stmt.names):
            raise Unreadable("star import")
        return {alias.asname or alias.name for alias in stmt.names}
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
        _literal(stmt.value)
        return {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    if isinstance(stmt, ast.FunctionDef) and not stmt.decorator_list:
        signature = [*stmt.args.defaults, *stmt.args.kw_defaults, stmt.returns]
        every_arg = [
            *stmt.args.posonlyargs,
            *stmt.args.args,
            *stmt.args.kwonlyargs,
            stmt.args.vararg,
            stmt.args.kwarg,
        ]
        signature += [arg.annotation for arg in every_arg if arg is not None]
        for node in signature:
            if node is not None and any(isinstance(n, _ACTIVE) for n in ast.walk(node)):
                raise Unreadable("a default or an annotation runs code")
        return {stmt.name}
    raise Unreadable(f"a {type(stmt).__name__} statement")


def _read_check(check: ast.FunctionDef) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    args = check.args
    if len(args.args) != 1 or args.defaults or plan._has_extra_args(args):
        raise Unreadable("check takes other arguments")
    candidate = args.args[0].arg
    calls: list[dict[str, Any]] = []
    asserts: list[list[Any]] = []
    for stmt in check.body:
        if isinstance(stmt, ast.Pass) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        ):
            continue  # not a counted assert, and does nothing
        if not isinstance(stmt, ast.Assert):
            raise Unreadable(f"a {type(stmt).__name__} in check")
        message = [] if stmt.msg is None else [wire.encode(_literal(stmt.msg))]
        form, call, operands = _form(stmt.test, candidate)
        index = None
        if call is not None:
            index = len(calls)
            calls.append({"args": wire.encode(call[0]), "kwargs": wire.encode(call[1])})
        encoded = [wire.encode(operand) for operand in operands]
        asserts.append([stmt.lineno, form, index, encoded, message])
    return calls, asserts


Call = tuple[tuple[Any, ...], dict[str, Any]]


def _form(test: ast.expr, candidate: str) -> tuple[str, Call | None, list[Any]]:
    call = _call(test, candidate)
    if call is not None:
        return "truthy", call, []
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        call = _call(test.operand, candidate)
        if call is not None:
            return "falsy", call, []
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _compare(test.left, test.ops[0], test.comparators[0], candidate)
    return "const", None, [_literal(test)]


def _compare(
    left: ast.expr, op: ast.cmpop, right: ast.expr, candidate: str
) -> tuple[str, Call | None, list[Any]]:
    call = _call(left, candidate)
    if call is not None:
        value = _literal(right)
        if isinstance(op, (ast.Eq, ast.NotEq)):
            return ("eq" if isinstance(op, ast.Eq) else "ne"), call, [value]
        if isinstance(op, (ast.Is, ast.IsNot)) and any(value is s for s in _SINGLETONS):
            return ("is" if isinstance(op, ast.Is) else "is_not"), call, [value]
        raise Unreadable("another comparison")
    call = _call(right, candidate)
    if call is not None and isinstance(op, (ast.Eq, ast.NotEq)):
        return ("req" if isinstance(op, ast.Eq) else "rne"), call, [_literal(left)]
    difference = _abs_difference(left, candidate)
    if difference is not None and isinstance(op, (ast.Lt, ast.LtE)):
        call, value = difference
        return ("abs_lt" if isinstance(op, ast.Lt) else "abs_le"), call, [value, _literal(right)]
    raise Unreadable("another comparison")


def _abs_difference(node: ast.expr, candidate: str) -> tuple[Call, Any] | None:
    """``abs(C - L)``: the call and L."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "abs"
        and len(node.args) == 1
        and not node.keywords
    ):
        return None
    inner = node.args[0]
    if not (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub)):
        return None
    call = _call(inner.left, candidate)
    return None if call is None else (call, _literal(inner.right))


def _call(node: ast.expr, candidate: str) -> Call | None:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if node.func.id != candidate:
        return None
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        kw.arg is None for kw in node.keywords
    ):
        raise Unreadable("unpacked arguments")
    args = tuple(_literal(arg) for arg in node.args)
    return args, {str(kw.arg): _literal(kw.value) for kw in node.keywords}


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return _folded(node)


def _folded(node: ast.expr) -> Any:
    """An expression of literals that the compiler folds into one constant (``2.0 / 3.0``).

    Nothing is evaluated here: the compiler's own folding, with its limits on the size of
    what it folds, decides; an expression it leaves to run time is not a literal.
    """
    if not all(isinstance(n, _FOLDABLE) for n in ast.walk(node)):
        raise Unreadable("not a literal")
    code = compile(ast.Expression(node), "<literal>", "eval")
    steps = [i for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP", "CACHE")]
    if [i.opname for i in steps] != ["LOAD_CONST", "RETURN_VALUE"]:
        raise Unreadable("not a literal")
    return steps[0].argval


# --- in the keeper: checking and deciding a reading --------------------------------------


def parse(data: Any) -> Reading:
    """A reading a unit offered, checked for shape; ValueError if it is not one."""
    if type(data) is not dict or set(data) != {"calls", "asserts"}:
        raise ValueError("not a reading")
    calls, asserts = data["calls"], data["asserts"]
    if type(calls) is not list or type(asserts) is not list or not calls:
        raise ValueError("not a reading")
    for call in calls:
        if type(call) is not dict or set(call) != {"args", "kwargs"}:
            raise ValueError("not a call")
        try:
            args, kwargs = wire.decode(call["args"]), wire.decode(call["kwargs"])
        except wire.WireError as exc:
            raise ValueError(str(exc)) from None
        if type(args) is not tuple or type(kwargs) is not dict:
            raise ValueError("not a call")
    found = tuple(_assertion(item) for item in asserts)
    judged = [a.call for a in found if a.call is not None]
    if judged != list(range(len(calls))):
        raise ValueError("the asserts do not judge each call once, in order")
    return Reading(calls, found)


def _assertion(item: Any) -> Assertion:
    if type(item) is not list or len(item) != 5:
        raise ValueError("not an assert")
    line, form, call, operands, message = item
    arity = {"const": 1, "truthy": 0, "falsy": 0, "abs_lt": 2, "abs_le": 2}.get(form, 1)
    shape_ok = (
        type(line) is int
        and form in FORMS
        and (call is None) == (form == "const")
        and (call is None or type(call) is int)
        and type(operands) is list
        and len(operands) == arity
        and type(message) is list
        and len(message) <= 1
    )
    if not shape_ok:
        raise ValueError("not an assert")
    try:
        values = tuple(wire.decode(o) for o in operands)
        said = tuple(wire.decode(m) for m in message)
    except wire.WireError as exc:
        raise ValueError(str(exc)) from None
    if form in ("is", "is_not") and not any(values[0] is s for s in _SINGLETONS):
        raise ValueError("``is`` compares only with None, True or False")
    return Assertion(line, form, call, values, said)


def decide(reading: Reading, answers: list[dict[str, Any]]) -> dict[str, Any]:
    """What the tests' unit would report for these replies, in its report's shape.

    ``answers`` are the candidate's checked replies, in call order; fewer than the calls
    means its execution ended there, and, as in the unit, the asserts stop at that call.
    """
    passes = 0
    failures: list[str] = []
    for assertion in reading.asserts:
        if assertion.call is not None and assertion.call >= len(answers):
            break
        try:
            reply = answers[assertion.call] if assertion.call is not None else None
            held = _holds(assertion, reply)
        except Exception as exc:  # as a counted assert catches it
            failures.append(f"line {assertion.line}: {counting.describe(exc)}")
            continue
        if held:
            passes += 1
        else:
            failed = AssertionError(*assertion.message)
            failures.append(f"line {assertion.line}: {counting.describe(failed)}")
    return {
        "passes": passes,
        "total": len(reading.asserts),
        "failure": failures[0][:DETAIL_CAP] if failures else None,
        "raised": None,
        "broken": None,
    }


def _holds(assertion: Assertion, reply: dict[str, Any] | None) -> bool:
    operands = assertion.operands
    if assertion.form == "const":
        return bool(operands[0])
    # The candidate's value, or the exception the tests' proxy would raise for it.
    value = replies.unpack(reply or {})
    form = assertion.form
    if form == "truthy":
        return bool(value)
    if form == "falsy":
        return not value
    if form == "eq":
        return bool(value == operands[0])
    if form == "ne":
        return bool(value != operands[0])
    if form == "req":
        return bool(operands[0] == value)
    if form == "rne":
        return bool(operands[0] != value)
    if form == "is":
        return value is operands[0]
    if form == "is_not":
        return value is not operands[0]
    if form == "abs_lt":
        return bool(abs(value - operands[0]) < operands[1])
    return bool(abs(value - operands[0]) <= operands[1])
