"""Python source checks: it parses, it defines the entry point; helpers to list its imports."""

from __future__ import annotations

import ast

from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import Context, Expected, Layer, flag, params_object

_IMPORT_CALLS = {"__import__", "import_module"}


def parse_python(source: str) -> tuple[ast.Module | None, str | None]:
    """(tree, None) when ``source`` parses, else (None, the reason with its line)."""
    try:
        return ast.parse(source), None
    except SyntaxError as exc:
        return None, f"line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        return None, f"cannot parse: {type(exc).__name__}"


def imported_modules(tree: ast.AST) -> set[str]:
    """Every module named by import statements or by __import__("x") / import_module("x")."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Call) and _call_name(node) in _IMPORT_CALLS:
            found.update(_literal_strings(node.args[:1]))
    return found


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _literal_strings(nodes: list[ast.expr]) -> list[str]:
    return [n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def defined_names(tree: ast.Module) -> set[str]:
    """Top-level function, class and assigned names (an entry point may be any of them)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


class PythonAst(Layer):
    kind = "python_ast"
    stage = Stage.SYNTAX
    description = 'The code parses as Python and defines expected["entry_point"] when there is one.'
    params_schema = params_object({"require_entry_point": flag(True)})

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        tree, problem = parse_python(extracted)
        if tree is None:
            return self.fail(ErrorType.PARSE_ERROR, problem or "does not parse")
        entry_point = expected.get("entry_point")
        wanted = self.params.get("require_entry_point", True) and entry_point
        if wanted and entry_point not in defined_names(tree) | _prelude_names(expected):
            return self.fail(ErrorType.FORMAT_ERROR, f"{entry_point!r} is not defined at top level")
        return self.ok()


def _prelude_names(expected: Expected) -> set[str]:
    """Names the task's prelude already defines (it runs before the solution)."""
    tree, _ = parse_python(expected.get("prelude") or "")
    return defined_names(tree) if tree else set()
