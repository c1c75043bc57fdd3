"""`make lint` type-checks every part of the code that runs without Django."""

import importlib.util
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _layering_rules() -> dict[str, set[str]]:
    path = ROOT / "scripts" / "check_layering.py"
    spec = importlib.util.spec_from_file_location("check_layering", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.RULES


def test_it_type_checks_every_part_that_never_imports_django() -> None:
    pure = {target for target, forbidden in _layering_rules().items() if "django" in forbidden}
    checked = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"])
    assert pure <= checked, sorted(pure - checked)
