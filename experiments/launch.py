"""Runs of more than one process: the worker starts them under ``accelerate launch`` and waits.

The training job (in the worker, holding the run's claim and heartbeat) calls::

    state = launch.run_in_processes(run_id, n, "experiments.services.training_job:train_rank",
                                    gpus=worker_gpus, strategy="ddp", log=append_log_line)

which runs ``accelerate launch --config_file F -m experiments.launch <run_id> <target>``
with ``F`` written from the experiment's ``num_processes`` and ``strategy``
(``training.accelerate_config``): every one of the
``n`` processes sets Django up and calls ``target(run_id)``, the same job on each rank; what
the main process's call returns (JSON-able: a final state, say) is what ``run_in_processes``
returns in the worker.
``accelerate`` sets the distributed environment (``RANK``, ``WORLD_SIZE``...) that the
engine's ``Accelerator`` joins: NCCL on GPUs, gloo on a CPU. Only the main process
(``is_main_process()``) may write metrics, checkpoints and rollouts; the engine already logs,
checkpoints and reports progress from it alone.

A rank that fails makes ``accelerate`` stop the others; ``run_in_processes`` then raises
``LaunchFailed`` carrying the last lines of their output, for the run's failure reason.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from training.accelerate_config import STRATEGIES as STRATEGIES  # experiments.config reads it
from training.accelerate_config import (
    accelerate_config,
    deepspeed_problem,
    to_yaml,
)

ROOT = Path(__file__).resolve().parents[1]
TAIL_LINES = 50
"""Lines of the processes' output kept for the failure reason."""
RESULT_ENV = "CRUCIBLE_LAUNCH_RESULT"
"""Where the main process writes what its target returned, as JSON."""
_PR_SET_PDEATHSIG = 1
_prctl: Callable[..., int] | None
try:  # looked up here: between fork and exec the child must not load libraries
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux
    _prctl = None


class LaunchFailed(RuntimeError):
    """The processes exited with an error; ``tail`` holds the last lines they printed."""

    def __init__(self, returncode: int, tail: list[str]) -> None:
        shown = "\n".join(tail[-20:])
        super().__init__(f"the training processes exited with status {returncode}:\n{shown}")
        self.returncode, self.tail = returncode, tail


def process_rank() -> int:
    """This process's rank among the run's processes (0 outside ``accelerate launch``)."""
    return int(os.environ.get("RANK", "0"))


def is_main_process() -> bool:
    return process_rank() == 0


def launch_config(
    processes: int,
    *,
    gpus: int,
    strategy: str = "ddp",
    mixed_precision: str = "no",
    port: int | None = None,
) -> dict[str, Any]:
    """The accelerate config of a run on this worker (one node); ValueError naming the field
    that cannot be met, ``strategy`` among them when DeepSpeed is not installed here."""
    if processes < 2:
        raise ValueError("num_processes: a launch is for 2 processes or more")
    if gpus and processes > gpus:
        raise ValueError(f"num_processes: {processes} asked, the worker has {gpus} GPUs")
    config = accelerate_config(
        strategy,
        processes,
        on_gpu=bool(gpus),
        mixed_precision=mixed_precision,
        port=port or free_port(),
    )
    if strategy == "deepspeed" and (problem := deepspeed_problem()):
        raise ValueError(problem)
    return config


def launch_command(run_id: int, config_file: Path, target: str) -> list[str]:
    """The ``accelerate launch`` command line running ``target`` on every rank; everything
    about the processes comes from ``config_file`` (written from ``launch_config``)."""
    launcher = [sys.executable, "-m", "accelerate.commands.launch", f"--config_file={config_file}"]
    return [*launcher, "-m", "experiments.launch", str(run_id), target]


def free_port() -> int:
    """A port for the processes' rendezvous: two runs on one machine must not share one."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_in_processes(
    run_id: int,
    processes: int,
    target: str,
    *,
    gpus: int,
    strategy: str = "ddp",
    mixed_precision: str = "no",
    log: Callable[[str], None] | None = None,
) -> Any:
    """Run ``target(run_id)`` (``"module:function"``) on ``processes`` ranks and wait for them;
    what the main process's call returned.

    ``gpus`` is the worker's CUDA devices (its report, which asks ``nvidia-smi`` rather than
    initialise CUDA here); with none, the ranks run on the CPU. Each line the processes print
    goes to ``log``. Raises ``LaunchFailed`` if they fail.
    """
    config = launch_config(processes, gpus=gpus, strategy=strategy, mixed_precision=mixed_precision)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if not gpus:
        env["CUDA_VISIBLE_DEVICES"] = ""
    with tempfile.TemporaryDirectory(prefix="crucible-launch-") as scratch:
        result, config_file = Path(scratch) / "result.json", Path(scratch) / "accelerate.yaml"
        config_file.write_text(to_yaml(config))
        env[RESULT_ENV] = str(result)
        _wait(launch_command(run_id, config_file, target), env, log)
        return json.loads(result.read_text()) if result.exists() else None


def _wait(command: Sequence[str], env: dict[str, str], log: Callable[[str], None] | None) -> None:
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    with subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_die_with_parent,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            tail.append(line.rstrip("\n"))
            if log is not None:
                log(line.rstrip("\n"))
        returncode = process.wait()
    if returncode != 0:
        raise LaunchFailed(returncode, list(tail))


def _die_with_parent() -> None:
    """Linux: the launcher gets SIGTERM when the worker dies (even by kill -9), and torchrun
    takes its ranks down with it, so no orphan keeps training a run that was requeued. (The
    signal follows the thread that started it: call ``run_in_processes`` from the task's own
    thread, as Celery runs it.) Elsewhere the worker's process group still ends them."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def resolve_target(target: str) -> Callable[[int], object]:
    module, _, name = target.partition(":")
    if not module or not name:
        raise ValueError(f"target: {target!r} is not 'module:function'")
    return getattr(importlib.import_module(module), name)


def main(argv: Sequence[str]) -> int:
    """One rank: ``python -m experiments.launch <run_id> <module:function>``."""
    run_id, target = int(argv[0]), argv[1]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings.base")
    import django

    django.setup()
    result = resolve_target(target)(run_id)
    if is_main_process() and os.environ.get(RESULT_ENV):
        Path(os.environ[RESULT_ENV]).write_text(json.dumps(result))
    end_ranks()
    return 0


def end_ranks() -> None:
    """Wait for every rank, then take the process group down before the interpreter exits:
    left to interpreter shutdown, gloo's threads can abort a rank ("terminate called
    without an active exception") after its work is done."""
    from accelerate import PartialState

    state = PartialState()
    if state.num_processes > 1:
        state.wait_for_everyone()
        state.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
