"""``crucible``: the platform from a shell.

    crucible login --url http://127.0.0.1:8000 --token crc_...   (or --username alice)
    crucible runs list --state running --filter "metrics.reward/mean > 0.5"
    crucible runs watch 42                      a progress bar from the run's socket
    crucible experiments launch -f exp.yaml --watch
    crucible evaluate --team default --checkpoint 7 --suite 3 --wait
    crucible compare 41 42                      runs side by side
    crucible report --candidate 12 --baseline 11
    crucible export 7 -o ./models
    crucible upload 42 ./out/final --step 1000  an outside run's checkpoint, resumable
    crucible upload 42 ./out/lora --step 1000 --adapter   a LoRA adapter on its base
    crucible runs finish 42 --status finished
    crucible sync                               send metrics left on disk by an outage

Exit status: 0 done, 1 the platform refused (its reasons on stderr) or a watched run did not
succeed, 2 a usage error.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import secrets
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml
from tqdm import tqdm

from crucible_client import config
from crucible_client.api import API, Crucible
from crucible_client.http import ApiError, Http
from crucible_client.logger import sync
from crucible_client.stream import progress_of
from crucible_client.uploads import is_adapter_dir

Handler = Callable[[argparse.Namespace], int]


def client() -> Crucible:
    url, token = config.load()
    if not url or not token:
        raise SystemExit("not logged in: run `crucible login --url URL --token TOKEN` first")
    return Crucible(url, token)


def show(value: Any) -> None:
    print(json.dumps(value, indent=2, default=str))


def login(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("CRUCIBLE_TOKEN")
    if not token and args.username:
        password = os.environ.get("CRUCIBLE_PASSWORD") or getpass.getpass("Password: ")
        token = token_for(args.url, args.username, password, args.team)
    if not token:
        token = getpass.getpass("API token (Settings → API tokens): ")
    me = Crucible(args.url, token).me()  # refuses a wrong token before it is saved
    path = config.save(args.url, token)
    print(f"logged in to {args.url} as {me['username']}; token saved in {path}")
    return 0


def token_for(url: str, username: str, password: str, team: str | None) -> str:
    """Sign in with a password once and issue an API token for this machine; the password is
    never stored. Django's CSRF check wants the same secret in a cookie and a header."""
    http = Http(url)
    secret = secrets.token_hex(16)
    http.session.cookies.set("csrftoken", secret)
    http.session.headers.update({"X-CSRFToken": secret, "Referer": f"{http.url}/"})
    body = {"username": username, "password": password}
    signed_in = http.request("POST", f"{API}/auth/login/", json=body)
    # Signing in rotates the CSRF secret: the server's new cookie replaces ours.
    rotated = signed_in.cookies.get("csrftoken")
    if rotated:
        http.session.cookies.clear(domain="", path="/", name="csrftoken")
        http.session.headers["X-CSRFToken"] = rotated
    name = f"crucible CLI on {socket.gethostname()}"[:100]
    issued = http.post(f"{API}/tokens/", {"name": name, "team": team})
    http.post(f"{API}/auth/logout/")
    return str(issued["token"])


def runs_list(args: argparse.Namespace) -> int:
    rows = client().runs.list(
        team=args.team, state=args.state, experiment=args.experiment, filter=args.filter
    )
    if args.json:
        show(rows)
        return 0
    print(f"{'id':>6}  {'state':<10} {'step':>11}  experiment")
    for run in rows:
        steps = f"{run['step']}/{run['max_steps']}"
        print(f"{run['id']:>6}  {run['state']:<10} {steps:>11}  {run['experiment_name']}")
    return 0


def runs_watch(args: argparse.Namespace) -> int:
    return watch(client(), args.run)


def watch(crucible: Crucible, run_id: int) -> int:
    """A progress bar of the run's steps until it ends; 0 when it succeeded."""
    run = crucible.runs.get(run_id)
    stream = crucible.runs.stream(run_id)
    with tqdm(total=run["max_steps"] or None, initial=run["step"], unit="step") as bar:
        bar.set_description(f"run {run_id} {run['state']}")
        for frame in stream.frames(until_finished=True):
            progress = progress_of(frame)
            if progress:
                bar.total = progress[1] or bar.total
                bar.n = progress[0]
                bar.set_description(f"run {run_id} {stream.run and stream.run.get('state')}")
                bar.refresh()
    final = crucible.runs.get(run_id)
    reason = f": {final['failure_reason']}" if final.get("failure_reason") else ""
    print(f"run {run_id} {final['state']} at step {final['step']}{reason}")
    return 0 if final["state"] == "succeeded" else 1


def runs_finish(args: argparse.Namespace) -> int:
    run = client().runs.finish(args.run, args.status, args.reason)
    print(f"run {run['id']} {run['state']}")
    return 0


def upload(args: argparse.Namespace) -> int:
    directory = Path(args.directory)
    if args.adapter and not is_adapter_dir(directory):
        print(f"{directory} has no adapter_config.json: it is not a LoRA adapter", file=sys.stderr)
        return 2
    # Without --adapter, a directory with adapter_config.json still goes as an adapter.
    checkpoint = client().runs.upload_checkpoint(
        args.run, directory, args.step, adapter=args.adapter or None
    )
    kind = " (a LoRA adapter on its base)" if checkpoint.get("adapter") else ""
    print(f"checkpoint {checkpoint['id']} of run {args.run} at step {checkpoint['step']}{kind}")
    return 0


def read_spec(path: str) -> Any:
    text = sys.stdin.read() if path == "-" else Path(path).read_text()
    return yaml.safe_load(text)  # YAML is a superset of JSON: one reader for both


def experiments_launch(args: argparse.Namespace) -> int:
    crucible = client()
    body = read_spec(args.file)
    if not isinstance(body, dict):
        raise SystemExit(f"{args.file}: an experiment is a mapping (team, name, config)")
    if args.team:
        body["team"] = args.team
    experiment = crucible.experiments.create(body)
    run = crucible.experiments.launch(experiment["id"])
    print(f"experiment {experiment['id']} launched: run {run['id']} {run['state']}")
    return watch(crucible, run["id"]) if args.watch else 0


def evaluate(args: argparse.Namespace) -> int:
    crucible = client()
    given = {"checkpoint": args.checkpoint, "suite": args.suite, "model": args.model}
    body = {"team": args.team, **{k: v for k, v in given.items() if v is not None}}
    job = crucible.evaluations.create(body)  # type: ignore[arg-type] # built from the flags
    print(f"evaluation {job['id']} {job['state']}")
    if args.wait:
        job = crucible.evaluations.wait(job["id"])
        show(job)
    return 0 if job["state"] in ("queued", "running", "succeeded") else 1


def compare(args: argparse.Namespace) -> int:
    comparison = client().runs.compare(args.runs)
    if args.json:
        show(comparison)
        return 0
    for difference in comparison["config_differences"]:
        print(f"config {json.dumps(difference, default=str)}")
    for metric in comparison["metrics"]:
        print(f"metric {json.dumps(metric, default=str)}")
    return 0


def report(args: argparse.Namespace) -> int:
    made = client().reports.create({"candidate": args.candidate, "baseline": args.baseline})
    print(f"report {made['id']}")
    return 0


def export(args: argparse.Namespace) -> int:
    target = Path(args.output)
    target.mkdir(parents=True, exist_ok=True)
    path = client().export_checkpoint(args.checkpoint, target, adapter_only=args.adapter_only)
    print(path)
    return 0


def sync_command(args: argparse.Namespace) -> int:
    crucible = client()
    sent, refused, left = sync(crucible.http)
    print(f"sent {sent} point(s), {refused} refused, {left} still waiting")
    return 0 if not left and not refused else 1


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="crucible", description=__doc__.split("\n\n")[0])
    commands = top.add_subparsers(dest="command", required=True)

    def command(name: str, handler: Handler, parent: Any = commands, **kw: Any) -> Any:
        sub = parent.add_parser(name, **kw)
        sub.set_defaults(handler=handler)
        return sub

    sub = command("login", login, help="save the platform's address and an API token")
    sub.add_argument("--url", required=True)
    sub.add_argument("--token", help="an API token (crc_...); else issued with --username")
    sub.add_argument("--username")
    sub.add_argument("--team", help="bind an issued token to this team")
    runs = commands.add_parser("runs", help="list and watch runs").add_subparsers(
        dest="action", required=True
    )
    sub = command("list", runs_list, runs)
    sub.add_argument("--team")
    sub.add_argument("--state")
    sub.add_argument("--experiment", type=int)
    sub.add_argument("--filter", help="e.g. 'metrics.reward/mean > 0.5 and tags.stage = sweep'")
    sub.add_argument("--json", action="store_true")
    command("watch", runs_watch, runs).add_argument("run", type=int)
    sub = command("finish", runs_finish, runs, help="end an outside run")
    sub.add_argument("run", type=int)
    sub.add_argument("--status", choices=["finished", "failed", "killed"], default="finished")
    sub.add_argument("--reason")
    experiments = commands.add_parser("experiments", help="launch experiments")
    sub = command("launch", experiments_launch, experiments.add_subparsers(required=True))
    sub.add_argument("-f", "--file", required=True, help="the experiment, YAML or JSON ('-': stdin)")
    sub.add_argument("--team", help="overrides the file's team")
    sub.add_argument("--watch", action="store_true", help="follow the run until it ends")
    sub = command("evaluate", evaluate, help="queue an evaluation of a checkpoint or model")
    sub.add_argument("--team", required=True)
    sub.add_argument("--checkpoint", type=int)
    sub.add_argument("--model")
    sub.add_argument("--suite", type=int)
    sub.add_argument("--wait", action="store_true")
    sub = command("compare", compare, help="compare runs' configurations and metrics")
    sub.add_argument("runs", type=int, nargs="+")
    sub.add_argument("--json", action="store_true")
    sub = command("report", report, help="a report comparing two finished evaluations")
    sub.add_argument("--candidate", type=int, required=True)
    sub.add_argument("--baseline", type=int, required=True)
    sub = command("export", export, help="download a checkpoint as a Hugging Face directory")
    sub.add_argument("checkpoint", type=int)
    sub.add_argument("-o", "--output", default=".")
    sub.add_argument("--adapter-only", action="store_true")
    sub = command("upload", upload, help="upload a model directory as an outside run's checkpoint")
    sub.add_argument("run", type=int)
    sub.add_argument("directory")
    sub.add_argument("--step", type=int, required=True)
    sub.add_argument(
        "--adapter", action="store_true",
        help="the directory is a LoRA adapter (found out anyway from adapter_config.json)",
    )  # fmt: skip
    command("sync", sync_command, help="send metrics an outage left on disk")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except ApiError as error:
        print(f"crucible: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
