"""Verifies with another revision's sandbox: ``python trusted_worker.py TREE``.

``TREE`` holds that revision's ``tasks_app`` (see ``trusted_side.py``), imported instead of
this checkout's. Speaks JSON lines on stdin/stdout: first the items, the timeout and the
warm-up concurrency (answered ``{"ready": true}`` after an untimed warm-up), then one
``{"workers": w, "group": g}`` per timed pass, answered with its results and wall time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, sys.argv[1])
sys.path.insert(1, str(Path(__file__).resolve().parent))

from timing import timed_once  # noqa: E402

from tasks_app.sandbox import check_function  # noqa: E402  # the tree's, not this checkout's


def main() -> None:
    setup = json.loads(sys.stdin.readline())
    timeout = float(setup["timeout"])
    items = setup["items"]

    def verdict(problem: dict[str, Any], source: str) -> bool:
        result = check_function(
            source,
            problem["test"],
            problem["entry_point"],
            prelude=problem["prompt"],
            timeout=timeout,
        )
        return result.status == "passed"

    warm = max(int(setup["warm_workers"]), 1)
    timed_once(verdict, items[: 2 * warm], warm)  # start-up, untimed as for the other sides
    answer({"ready": True})
    for line in sys.stdin:
        command = json.loads(line)
        results, wall = timed_once(verdict, items, int(command["workers"]), int(command["group"]))
        answer({"results": results, "wall": wall})


def answer(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
