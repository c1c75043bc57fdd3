"""Fails when a package imports across the layering in DESIGN.md.

``training`` and the pure parts of ``tasks_app`` must run without Django; the direction
of imports is crucible <- tasks_app <- experiments -> training. Apps meet through each
other's services: ``experiments`` never reads ``tasks_app``'s tables, and ``tasks_app``
never names ``experiments`` code in a string (a Celery task name, a dotted path), which
would hide an upward dependency from the import rules.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Package or file -> modules it must not import (a name forbids the module and all below it).
RULES = {
    "training": {"django", "rest_framework", "channels", "celery", "crucible", "tasks_app", "experiments"},
    "tasks_app/families": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app/verifiers": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app/sandbox": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app/pools": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app/curriculum.py": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app": {"experiments", "training"},
    "crucible": {"experiments", "training"},
    "experiments": {"tasks_app.models"},
}
# crucible may reach tasks_app's pure sandbox for /healthz only.

# Package -> packages it must not name in a string literal ("experiments.tasks.grade").
NAMING_RULES = {
    "tasks_app": {"experiments"},
}
DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def imported_modules(tree: ast.AST) -> set[str]:
    """Every absolute module a file imports; ``from a import b`` counts ``a`` and ``a.b``
    (``b`` may be a module)."""
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def named_modules(tree: ast.AST) -> set[str]:
    """Dotted names written as whole string literals (task names, import paths)."""
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and DOTTED.fullmatch(node.value)
    }


def matches(module: str, forbidden: set[str]) -> list[str]:
    return sorted(f for f in forbidden if module == f or module.startswith(f + "."))


def files_of(root: Path, target: str) -> list[Path]:
    base = root / target
    if base.suffix == ".py":
        return [base] if base.exists() else []
    return sorted(base.rglob("*.py"))


def violations(root: Path = ROOT) -> list[str]:
    found = []
    for target, forbidden in RULES.items():
        for path in files_of(root, target):
            tree = ast.parse(path.read_text(), filename=str(path))
            bad = {f for m in imported_modules(tree) for f in matches(m, forbidden)}
            if bad:
                found.append(f"{path.relative_to(root)} imports {', '.join(sorted(bad))}")
    for target, forbidden in NAMING_RULES.items():
        for path in files_of(root, target):
            tree = ast.parse(path.read_text(), filename=str(path))
            named = sorted(n for n in named_modules(tree) if matches(n, forbidden))
            if named:
                found.append(f"{path.relative_to(root)} names {', '.join(named)}")
    return found


if __name__ == "__main__":
    problems = violations()
    for problem in problems:
        print(problem)
    sys.exit(1 if problems else 0)
