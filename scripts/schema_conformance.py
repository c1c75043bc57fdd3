"""Does the OpenAPI schema state what the API enforces? schemathesis against a live server.

    python scripts/schema_conformance.py [--database crucible_conformance] [--examples 10]

Drops and recreates ``--database`` on the PostgreSQL server of ``--postgres`` (a throwaway
database: never point it at one you keep), migrates it and seeds a team with an admin, a
viewer and an editor, a family with a version, a verifier with a version and an example, a
curriculum, an experiment with a run, rollout, checkpoints and an upload, a pre-flight, an
evaluation report, a suite, a registered model with two versions, a deployment and a canary.
It then starts the web server (``python -m crucible.serve``) on that database and runs
schemathesis over ``/api/schema/`` once per role, signed in with each user's token, path
parameters pointed at the seeded objects. Operations that delete run in a second pass, after
the others, so that they do not take the objects the others need.

The checks (positive and negative data, ``--mode all``): ``positive_data_acceptance`` (the
schema allows a request the API rejects with 400/422: "rejected positive data"),
``negative_data_rejection`` (the schema forbids a request the API accepts: "accepted
negative data"), ``status_code_conformance``, ``response_schema_conformance``,
``content_type_conformance`` and ``not_a_server_error``. It prints, per role and check, how
many operations failed and which, and exits 1 when any did. About a quarter of an hour a
role with the default ``--examples`` on two shared cores.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the seeded world lives beside the tests (tests/api_world.py)
CHECKS = [
    "positive_data_acceptance",
    "negative_data_rejection",
    "status_code_conformance",
    "response_schema_conformance",
    "content_type_conformance",
    "not_a_server_error",
]
ROLES = ("admin", "viewer")
# Path parameters named by the collection before them (``/families/{id}/``) or by name.
BY_NAME = ("slug", "team_slug", "number", "example_id", "rollout_id", "run_id", "upload_id")


def recreate_database(server: str, name: str) -> str:
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return f"{server}/{name}"


def seed() -> dict[str, Any]:
    """Migrate the database and create the objects the operations' paths will name."""
    # Django is set up here, once DATABASE_URL names the throwaway database; the project's
    # modules need a configured Django to import.
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from crucible.accounts import services as accounts
    from crucible.accounts.models import Membership, Role
    from tests.api_world import seed_world  # the fuzz test's world, so the two aim alike

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    owner = users.create_user("admin", "admin@example.com", "correct horse battery")
    viewer = users.create_user("viewer", "viewer@example.com", "correct horse battery")
    editor = users.create_user("editor", "editor@example.com", "correct horse battery")
    team = accounts.create_team(owner, "Reasoning", "reasoning")
    Membership.objects.create(user=viewer, team=team, role=Role.VIEWER)
    edited = Membership.objects.create(user=editor, team=team, role=Role.EDITOR)

    world = seed_world(owner, team, "conformance")
    # A token of its own for /tokens/{id}/, so that deleting it signs nobody out.
    spare = accounts.create_token(owner, "spare")
    return {
        "tokens": {
            role: accounts.create_token(user, f"conformance-{role}", team=team).secret
            for role, user in (("admin", owner), ("viewer", viewer))
        },
        "ids": {**world.ids, "tokens": spare.token.id, "members": edited.id},
        "params": world.params,
    }  # fmt: skip


def config_file(world: dict[str, Any], path: Path) -> Path:
    """schemathesis' configuration: each ``{id}`` and named path parameter set to a seeded
    object, per collection."""
    lines = ["[parameters]"]
    lines += [f'"path.{name}" = {json.dumps(value)}' for name, value in world["params"].items()]
    for collection, value in world["ids"].items():
        lines += [
            "",
            "[[operations]]",
            f'include-path-regex = "/{collection}/\\\\{{id\\\\}}"',
            f'parameters = {{ "path.id" = {value} }}',
        ]
    path.write_text("\n".join(lines) + "\n")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(url: str, server: subprocess.Popen, seconds: float = 600) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"the server exited with {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=60):
                return
        except urllib.error.HTTPError:  # it answers, if not "ok" (a busy broker, say)
            return
        except OSError:
            time.sleep(1)
    sys.exit(f"the server did not answer {url} within {seconds} s")


def fetch_schema(base: str, path: Path) -> Path:
    """The live schema, saved: generating it can take longer than schemathesis waits."""
    with urllib.request.urlopen(f"{base}/api/schema/?format=json", timeout=300) as response:
        path.write_bytes(response.read())
    return path


def schemathesis(
    base: str, token: str, cfg: Path, report: Path, args: argparse.Namespace, deleting: bool
) -> None:
    command = [
        str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(cfg), "run",
        str(args.schema_file), "--url", base, "-H", f"Authorization: Bearer {token}",
        "--checks", ",".join(CHECKS), "--mode", "all", "--max-examples", str(args.examples),
        "--phases", "examples,coverage,fuzzing", "--seed", str(args.seed), "--workers", "1",
        "--no-shrink", "--continue-on-failure", "--suppress-health-check", "all",
        "--request-timeout", "30", "--report", "ndjson", "--report-ndjson-path", str(report),
        "--include-method" if deleting else "--exclude-method", "DELETE",
    ]  # fmt: skip
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def failures(report: Path) -> dict[str, dict[str, str]]:
    """Check name -> {operation (``METHOD /path``): the first failure's message}, from an
    NDJSON report."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    if not report.exists():
        return found
    with report.open() as lines:
        for line in lines:
            event = json.loads(line).get("ScenarioFinished")
            if not event:
                continue
            recorder = event["recorder"]
            for case_id, checks in recorder.get("checks", {}).items():
                for check in checks:
                    if check["status"] == "failure":
                        found[check["name"]].setdefault(
                            recorder["label"], _explained(check, recorder, case_id)
                        )
    return found


def _explained(check: dict[str, Any], recorder: dict[str, Any], case_id: str) -> str:
    """The failure's message, the status the API answered and what the case sent."""
    failure = check.get("failure_info", {}).get("failure", {})
    message = " | ".join(line for line in failure.get("message", "").splitlines()[-2:] if line)
    response = recorder.get("interactions", {}).get(case_id, {}).get("response") or {}
    case = recorder.get("cases", {}).get(case_id, {}).get("value", {})
    sent = {k: case[k] for k in ("path_parameters", "query", "body") if case.get(k)}
    return f"{response.get('status_code')}: {message}; sent {json.dumps(sent)[:300]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="crucible_conformance")
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15"))
    parser.add_argument("--examples", type=int, default=2, help="per operation and phase")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--roles", default=",".join(ROLES))
    parser.add_argument("--json", type=Path, help="also write the failures here")
    parser.add_argument("-v", "--verbose", action="store_true", help="say why each failed")
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = recreate_database(args.postgres, args.database)
    os.environ["REDIS_URL"] = args.redis
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings.base")
    # Login and other anonymous calls are throttled per client; a fuzzer is one client.
    os.environ["THROTTLE_ANON"] = os.environ["THROTTLE_LOGIN"] = "100000/min"
    os.environ["THROTTLE_USER"] = "100000/min"
    work = Path(tempfile.mkdtemp(prefix="schema-conformance-"))
    os.environ.setdefault("CRUCIBLE_VAR_DIR", str(work / "var"))
    world = seed()
    cfg = config_file(world, work / "schemathesis.toml")

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "crucible.serve", "--port", str(port)], cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=(work / "server.log").open("w"),
    )  # fmt: skip
    results: dict[str, dict[str, dict[str, str]]] = {}
    try:
        wait_until_up(f"{base}/healthz", server)
        args.schema_file = fetch_schema(base, work / "schema.json")
        for role in args.roles.split(","):
            found: dict[str, dict[str, str]] = defaultdict(dict)
            for deleting in (False, True):
                report = work / f"{role}-{'delete' if deleting else 'rest'}.ndjson"
                started = time.monotonic()
                schemathesis(base, world["tokens"][role], cfg, report, args, deleting)
                print(f"{role}: {report.name} in {time.monotonic() - started:.0f} s", flush=True)
                for check, operations in failures(report).items():
                    found[check] |= operations
            results[role] = {check: dict(sorted(found[check].items())) for check in CHECKS}
    finally:
        server.terminate()
        server.wait(timeout=30)

    for role, by_check in results.items():
        print(f"\n== {role}")
        for check in CHECKS:
            print(f"{check}: {len(by_check[check])}")
            for operation, why in by_check[check].items():
                print(f"    {operation}  [{why}]" if args.verbose else f"    {operation}")
    print(
        "\n"
        + json.dumps({role: {c: len(ops) for c, ops in r.items()} for role, r in results.items()})
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print(f"reports and server log: {work}")
    sys.exit(1 if any(ops for r in results.values() for ops in r.values()) else 0)


if __name__ == "__main__":
    main()
