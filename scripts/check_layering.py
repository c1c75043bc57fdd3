"""Fails when a package imports across the layering in DESIGN.md.

``training`` and the pure parts of ``tasks_app`` must run without Django; the direction
of imports is crucible <- tasks_app <- experiments <- serving, each -> training. Apps meet
through each other's services: ``experiments`` never reads ``tasks_app``'s tables, and no
app names an app above it in a string (a Celery task name, a dotted path), which would hide
an upward dependency from the import rules. Inside ``serving`` the services run one way:
routing <- deployments <- canaries.

Inside the project, imports run one way too: no import cycle among our modules (counting the
imports a module runs when it loads), and no import of our own code placed inside a function
to dodge one, except in an ``AppConfig.ready``, under ``if TYPE_CHECKING:``, or with a
comment on its line saying why (a heavy optional dependency a light module loads late).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Package or file -> modules it must not import (a name forbids the module and all below it).
RULES = {
    "training": {
        "django", "rest_framework", "channels", "celery", "crucible", "tasks_app", "experiments",
        "serving", "crucible_client",
    },
    "tasks_app/families": {"django", "rest_framework", "crucible", "experiments", "serving", "training"},
    "tasks_app/verifiers": {"django", "rest_framework", "crucible", "experiments", "serving", "training"},
    "tasks_app/sandbox": {"django", "rest_framework", "crucible", "experiments", "serving", "training"},
    "tasks_app/pools": {"django", "rest_framework", "crucible", "experiments", "serving", "training"},
    "tasks_app/environments": {"django", "rest_framework", "crucible", "experiments", "serving", "training"},
    "tasks_app/curriculum.py": {"django", "rest_framework", "crucible", "experiments", "serving", "training"},
    "tasks_app": {"experiments", "serving", "training"},
    "crucible": {"experiments", "serving", "training"},
    "experiments": {"tasks_app.models", "serving"},
    # The canary decision is pure statistics: it runs and is tested without Django.
    "serving/canary_analysis.py": {
        "django", "rest_framework", "channels", "celery", "crucible", "tasks_app", "experiments",
        "serving.models", "serving.services",
    },
    # The OpenAI shapes and the replica client are pure: they run and are tested without Django.
    **{f"serving/openai_api/{name}.py": {
        "django", "rest_framework", "channels", "celery", "crucible", "tasks_app", "experiments",
        "serving.models", "serving.services",
    } for name in ("protocol", "tool_output", "upstream")},
    # The client installs on its own (pip install ./client): it speaks to the platform over
    # HTTP and websockets only.
    "client": {
        "django", "rest_framework", "channels", "celery", "crucible", "tasks_app", "experiments",
        "serving", "training",
    },
    "serving/services/routing.py": {"serving.services.deployments", "serving.services.canaries"},
    "serving/services/deployments.py": {"serving.services.canaries"},
}  # fmt: skip
# The pure modules of experiments (statistics, signals, sizing, formats, job names) import no
# Django, so they run and are tested in a plain process.
PURE_EXPERIMENTS = (
    "adapters", "algorithms", "catalogue", "checkpoint_files", "config", "downsample", "health",
    "ingest", "jobs", "memory", "model_format", "preflight", "report_export", "run_filter",
    "sizing", "stability", "stats",
)  # fmt: skip
NOT_IN_PURE_EXPERIMENTS = {
    "django", "rest_framework", "channels", "celery", "crucible", "experiments.models",
    "experiments.services", "experiments.api", "experiments.tasks", "serving",
}  # fmt: skip
RULES.update({f"experiments/{name}.py": NOT_IN_PURE_EXPERIMENTS for name in PURE_EXPERIMENTS})
# crucible may reach tasks_app's pure sandbox for /healthz only.
# The engine's field contract (what a config field accepts, and the loader that checks JSON
# against it) is what the API layers generate their serializers from and check saved configs
# with: crucible and tasks_app may use these two modules of training, never the engine; the
# pure parts of tasks_app, which run without the engine, not even these.
FIELD_CONTRACT = frozenset({"training.field_spec", "training.fields"})
ALLOWED = {"crucible": FIELD_CONTRACT, "tasks_app": FIELD_CONTRACT}

# Package -> packages it must not name in a string literal ("experiments.tasks.grade").
NAMING_RULES = {
    "tasks_app": {"experiments", "serving"},
    "experiments": {"serving"},
}
DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")
# Our packages: the import graph and the function-local import rule cover them.
OWN = ("crucible", "tasks_app", "experiments", "serving", "training")
# What a comment must say more than: a linter's code alone gives no reason.
NOT_A_REASON = re.compile(r"noqa(:\s*[A-Z]+\d+(,\s*[A-Z]+\d+)*)?|type:\s*ignore(\[[\w,\s-]+\])?")


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


def matches(module: str, forbidden: set[str] | frozenset[str]) -> list[str]:
    return sorted(f for f in forbidden if module == f or module.startswith(f + "."))


def allowed(target: str, module: str) -> bool:
    """Whether ``target``'s rule lets it import ``module`` though the module is under one it
    forbids (a narrower rule of a pure part, ``tasks_app/pools``, allows nothing)."""
    return bool(matches(module, ALLOWED.get(target, frozenset())))


def files_of(root: Path, target: str) -> list[Path]:
    base = root / target
    if base.suffix == ".py":
        return [base] if base.exists() else []
    return sorted(base.rglob("*.py"))


# --- where imports sit, and the graph of those that run when a module loads -----------------


Importing = ast.Import | ast.ImportFrom


def placed_imports(tree: ast.Module) -> Iterator[tuple[Importing, str]]:
    """Each import statement with where it sits: ``"module"`` (it runs when the module loads),
    ``"function"``, ``"ready"`` (an ``AppConfig``'s ``ready``) or ``"type_checking"``."""
    return _placed(tree.body, "module")


def _placed(nodes: list[ast.stmt], where: str) -> Iterator[tuple[Importing, str]]:
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, where
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _placed(node.body, "type_checking")
            yield from _placed(node.orelse, where)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _placed(node.body, "function" if where == "module" else where)
        elif isinstance(node, ast.ClassDef) and _is_app_config(node) and where == "module":
            for item in node.body:
                is_ready = isinstance(item, ast.FunctionDef) and item.name == "ready"
                yield from _placed(item.body, "ready") if is_ready else _placed([item], where)
        else:  # a class body, if, for, while, with, try (its handlers too), match
            for name in ("body", "orelse", "finalbody", "handlers"):
                yield from _placed(getattr(node, name, []), where)
            for case in getattr(node, "cases", []):
                yield from _placed(case.body, where)


def _is_type_checking(test: ast.expr) -> bool:
    name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", "")
    return name == "TYPE_CHECKING"


def _is_app_config(node: ast.ClassDef) -> bool:
    bases = (b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases)
    return any(base.endswith("AppConfig") for base in bases)


def targets(node: Importing, package: str, known: set[str]) -> set[str]:
    """The modules an import names; ``from pkg import mod`` names the submodule when it is
    one of ``known``, else ``pkg`` (whose ``__init__`` defines the name)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = _absolute(node, package)
    if not base:
        return set()
    return {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names}


def module_of(root: Path, path: Path) -> str:
    """``serving/services/routing.py`` -> ``serving.services.routing``; a package's
    ``__init__.py`` -> the package."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def own_modules(root: Path) -> dict[str, Path]:
    return {module_of(root, path): path for package in OWN for path in files_of(root, package)}


def says_why(lines: list[str], node: ast.stmt) -> bool:
    """Whether a line of the import carries a comment with a reason in it."""
    for line in lines[node.lineno - 1 : node.end_lineno or node.lineno]:
        _, hashed, comment = line.partition("# ")
        if hashed and NOT_A_REASON.sub("", comment).strip(" -:;,()"):
            return True
    return False


def local_imports(root: Path, modules: dict[str, Path]) -> list[str]:
    """Imports of our own code placed inside a function without a reason on their line."""
    found = []
    for path in modules.values():
        text = path.read_text()
        lines = text.splitlines()
        package = package_of(root, path)
        for node, where in placed_imports(ast.parse(text, filename=str(path))):
            if where != "function" or says_why(lines, node):
                continue
            named = targets(node, package, set(modules))
            own = sorted(m for m in named if m.split(".")[0] in OWN)
            if own:
                where_ = f"{path.relative_to(root)}:{node.lineno}"
                found.append(f"{where_} imports {', '.join(own)} inside a function")
    return found


def import_graph(root: Path, modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports when it loads (functions and ``if
    TYPE_CHECKING:`` blocks left out)."""
    known = set(modules)
    graph = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        package = package_of(root, path)
        graph[module] = {
            target
            for node, where in placed_imports(tree)
            if where == "module"
            for target in targets(node, package, known)
            if target in known and target != module
        }
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per group of modules that import each other (a strongly connected
    component, Tarjan 1972), as the modules in import order with the first again at the end."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for start in sorted(graph):
        if start in order:
            continue
        order[start] = low[start] = len(order)
        stack.append(start)
        walk = [(start, iter(sorted(graph[start])))]  # no recursion: import chains run deep
        while walk:
            node, following = walk[-1]
            for child in following:
                if child not in order:
                    order[child] = low[child] = len(order)
                    stack.append(child)
                    walk.append((child, iter(sorted(graph[child]))))
                    break
                if child in stack:
                    low[node] = min(low[node], order[child])
            else:
                walk.pop()
                if walk:
                    low[walk[-1][0]] = min(low[walk[-1][0]], low[node])
                if low[node] == order[node]:
                    group = set(stack[stack.index(node) :])
                    del stack[stack.index(node) :]
                    if len(group) > 1:
                        found.append(_way_round(graph, group))
    return sorted(found)


def _way_round(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """The shortest path from the group's first module back to itself (breadth first)."""
    start = min(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & group):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if child not in came_from:
                    came_from[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"{sorted(group)} import each other, so a path leads round")


def violations(root: Path = ROOT) -> list[str]:
    found = []
    for target, forbidden in RULES.items():
        for path in files_of(root, target):
            tree = ast.parse(path.read_text(), filename=str(path))
            modules = imported_modules(tree, package_of(root, path))
            bad = {f for m in modules if not allowed(target, m) for f in matches(m, forbidden)}
            if bad:
                found.append(f"{path.relative_to(root)} imports {', '.join(sorted(bad))}")
    for target, forbidden in NAMING_RULES.items():
        for path in files_of(root, target):
            tree = ast.parse(path.read_text(), filename=str(path))
            named = sorted(n for n in named_modules(tree) if matches(n, forbidden))
            if named:
                found.append(f"{path.relative_to(root)} names {', '.join(named)}")
    modules = own_modules(root)
    found += local_imports(root, modules)
    found += [f"import cycle: {' -> '.join(c)}" for c in cycles(import_graph(root, modules))]
    return found


if __name__ == "__main__":
    problems = violations()
    for problem in problems:
        print(problem)
    sys.exit(1 if problems else 0)
