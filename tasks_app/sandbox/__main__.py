"""Command line for operators and tests.

    python -m tasks_app.sandbox check --solution FILE --tests FILE --entry NAME
        [--prelude FILE] [--timeout S] [--memory MB]
    python -m tasks_app.sandbox run FILE [--stdin FILE] [--timeout S] [--memory MB]
    python -m tasks_app.sandbox capabilities

Each prints one JSON line. The exit status is 0 whenever a verdict was reached: the
verdict is in the JSON, never in the exit status.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from tasks_app.sandbox import capabilities, check_function, run_program


def _read(path: str | None) -> str:
    return Path(path).read_text(encoding="utf-8") if path else ""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tasks_app.sandbox")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="run tests against a sandboxed function")
    check.add_argument("--solution", required=True, help="file with the code to sandbox")
    check.add_argument("--tests", required=True, help="trusted file defining check(candidate)")
    check.add_argument("--entry", required=True, help="name of the function under test")
    check.add_argument("--prelude", help="trusted helpers the tests may call")
    run = commands.add_parser("run", help="run a whole program in the sandbox")
    run.add_argument("file", help="the program")
    run.add_argument("--stdin", help="file fed to the program's standard input")
    run.add_argument("--output-limit", type=int, default=64_000, help="bytes per stream")
    for sub in (check, run):
        sub.add_argument("--timeout", type=float, default=5.0, help="seconds of wall time")
        sub.add_argument("--memory", type=int, default=256, help="MiB")
    commands.add_parser("capabilities", help="which isolation layers are active here")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    output: dict[str, Any]
    if args.command == "check":
        result = check_function(
            _read(args.solution),
            _read(args.tests),
            args.entry,
            prelude=_read(args.prelude),
            timeout=args.timeout,
            memory_mb=args.memory,
        )
        output = dataclasses.asdict(result)
    elif args.command == "run":
        program = run_program(
            _read(args.file),
            stdin=_read(args.stdin),
            timeout=args.timeout,
            memory_mb=args.memory,
            output_limit=args.output_limit,
        )
        output = dataclasses.asdict(program)
    else:
        output = capabilities()
    sys.stdout.write(json.dumps(output) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
