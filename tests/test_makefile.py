"""`make run` rebuilds the front end only when one of its sources changed."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not shutil.which("make"), reason="make is not installed")


def _planned(*flags: str) -> str:
    """The commands `make frontend` would run, without running them."""
    result = subprocess.run(
        ["make", "-n", *flags, "frontend"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return result.stdout


@pytest.mark.skipif(
    not (ROOT / "frontend" / "dist" / "index.html").exists(), reason="the SPA has not been built"
)
def test_it_does_not_rebuild_an_up_to_date_front_end() -> None:
    # The suite runs after `make frontend`, so the build is as new as its sources.
    assert "npm run build" not in _planned()


def test_it_rebuilds_the_front_end_when_a_source_changes() -> None:
    assert "npm run build" in _planned("-W", "frontend/src/main.tsx")
