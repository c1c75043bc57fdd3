"""The engine's modules import each other one way, at the top of each file."""

import ast
import subprocess
import sys
from pathlib import Path

TRAINING = Path(__file__).resolve().parents[2] / "training"


def _local_imports(path: Path) -> list[str]:
    """`training.*` imports made inside a function: they hide an import cycle."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith(
                    "training"
                ):
                    found.append(f"{path.name}:{inner.lineno} {inner.module}")
    return found


def test_it_imports_training_modules_only_at_module_level() -> None:
    offenders = [hit for path in sorted(TRAINING.glob("*.py")) for hit in _local_imports(path)]
    assert offenders == []


_EACH_FIRST = """
import importlib, sys
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "training" or m.startswith("training.")]:
        del sys.modules[loaded]
    importlib.import_module(name)
"""


def test_it_imports_every_engine_module_first_without_a_cycle() -> None:
    # Each module is imported first in turn (torch stays loaded, ours is forgotten): an
    # import cycle shows as a partially initialised module.
    modules = [f"training.{p.stem}" for p in sorted(TRAINING.glob("*.py")) if p.stem != "__main__"]
    result = subprocess.run(
        [sys.executable, "-c", _EACH_FIRST, *modules], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
