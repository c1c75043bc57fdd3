"""Fails when a package imports across the layering in DESIGN.md.

``training`` and the pure parts of ``tasks_app`` must run without Django; the direction
of imports is crucible <- tasks_app <- experiments <- serving, each -> training. Apps meet
through each other's services: ``experiments`` never reads ``tasks_app``'s tables, and no
app names an app above it in a string (a Celery task name, a dotted path), which would hide
an upward dependency from the import rules. Inside ``serving`` the services run one way:
routing <- deployments <- canaries.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Package or file -> modules it must not import (a name forbids the module and all below it).
RULES = {
    "training": {
        "django", "rest_framework", "channels", "celery", "crucible", "tasks_app", "experiments",
        "serving",
    },
    "tasks_app/families": {"django", "rest_framework", "crucible", "experiments", "serving"},
    "tasks_app/verifiers": {"django", "rest_framework", "crucible", "experiments", "serving"},
    "tasks_app/sandbox": {"django", "rest_framework", "crucible", "experiments", "serving"},
    "tasks_app/pools": {"django", "rest_framework", "crucible", "experiments", "serving"},
    "tasks_app/curriculum.py": {"django", "rest_framework", "crucible", "experiments", "serving"},
    "tasks_app": {"experiments", "serving", "training"},
    "crucible": {"experiments", "serving", "training"},
    "experiments": {"tasks_app.models", "serving"},
    # The canary decision is pure statistics: it runs and is tested without Django.
    "serving/canary_analysis.py": {
        "django", "rest_framework", "channels", "celery", "crucible", "tasks_app", "experiments",
        "serving.models", "serving.services",
    },
    "serving/services/routing.py": {"serving.services.deployments", "serving.services.canaries"},
    "serving/services/deployments.py": {"serving.services.canaries"},
}  # fmt: skip
# crucible may reach tasks_app's pure sandbox for /healthz only.

# Package -> packages it must not name in a string literal ("experiments.tasks.grade").
NAMING_RULES = {
    "tasks_app": {"experiments", "serving"},
    "experiments": {"serving"},
}
DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def imported_modules(tree: ast.AST, package: str = "") -> set[str]:
    """Every module a file imports, relative imports resolved against ``package`` (the
    file's own package, dotted); ``from a import b`` counts ``a`` and ``a.b`` (``b`` may be
    a module)."""
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, package)
            if module:
                modules.add(module)
                modules.update(f"{module}.{alias.name}" for alias in node.names)
    return modules


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if node.level == 0:
        return node.module or ""
    parts = package.split(".") if package else []
    if node.level - 1 > len(parts):
        return ""
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def package_of(root: Path, path: Path) -> str:
    """``serving/services/routing.py`` -> ``serving.services``."""
    return ".".join(path.relative_to(root).parent.parts)


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
            modules = imported_modules(tree, package_of(root, path))
            bad = {f for m in modules for f in matches(m, forbidden)}
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
