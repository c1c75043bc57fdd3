"""Fails when a package imports across the layering in DESIGN.md.

``training`` and the pure parts of ``tasks_app`` must run without Django; the direction
of imports is crucible <- tasks_app <- experiments -> training.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = {
    "training": {"django", "rest_framework", "channels", "celery", "crucible", "tasks_app", "experiments"},
    "tasks_app/families": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app/verifiers": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app/sandbox": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app/pools": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app/curriculum.py": {"django", "rest_framework", "crucible", "experiments"},
    "tasks_app": {"experiments", "training"},
    "crucible": {"experiments", "training"},
}
# crucible may reach tasks_app's pure sandbox for /healthz only.


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def violations() -> list[str]:
    found = []
    for target, forbidden in RULES.items():
        base = ROOT / target
        files = [base] if base.suffix == ".py" else sorted(base.rglob("*.py"))
        for path in files:
            if not path.exists():
                continue
            bad = imported_roots(path) & forbidden
            if bad:
                found.append(f"{path.relative_to(ROOT)} imports {', '.join(sorted(bad))}")
    return found


if __name__ == "__main__":
    problems = violations()
    for problem in problems:
        print(problem)
    sys.exit(1 if problems else 0)
