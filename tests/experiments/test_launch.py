"""Runs of several processes: the accelerate launch command, and real ranks on the CPU."""

from __future__ import annotations

import json

import pytest

from experiments import launch
from experiments.launch import LaunchFailed


def test_it_launches_the_same_job_on_every_rank_with_accelerate():
    command = launch.launch_command(7, 2, "pkg.job:train_rank", gpus=0, port=29555)
    assert command[1:4] == ["-m", "accelerate.commands.launch", "--multi_gpu"]
    assert "--num_processes=2" in command and "--main_process_port=29555" in command
    assert "--mixed_precision=no" in command
    assert command[-4:] == ["-m", "experiments.launch", "7", "pkg.job:train_rank"]


def test_it_shards_with_fsdp_or_deepspeed_on_gpus_as_configured():
    fsdp = launch.launch_command(1, 4, "m:f", gpus=8, strategy="fsdp", mixed_precision="bf16")
    assert "--use_fsdp" in fsdp and "--mixed_precision=bf16" in fsdp
    assert "--use_deepspeed" in launch.launch_command(1, 2, "m:f", gpus=2, strategy="deepspeed")


@pytest.mark.parametrize(
    ("processes", "gpus", "strategy", "field", "reason"),
    [
        (1, 0, "ddp", "num_processes", "2 processes or more"),
        (4, 2, "ddp", "num_processes", "4 asked, the worker has 2 GPUs"),
        (2, 0, "fsdp", "strategy", "fsdp needs GPUs"),
        (2, 2, "zero", "strategy", "must be one of ddp, fsdp, deepspeed"),
    ],
)
def test_it_refuses_a_launch_the_worker_cannot_do(processes, gpus, strategy, field, reason):
    with pytest.raises(ValueError, match=f"^{field}: .*{reason}"):
        launch.launch_command(1, processes, "m:f", gpus=gpus, strategy=strategy)


def test_it_knows_the_main_process_by_its_rank(monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    assert launch.is_main_process() and launch.process_rank() == 0
    monkeypatch.setenv("RANK", "1")
    assert not launch.is_main_process()


@pytest.mark.slow
def test_it_runs_the_target_on_two_cpu_ranks_with_django_set_up(tmp_path, monkeypatch):
    monkeypatch.setenv("LAUNCH_TEST_OUT", str(tmp_path))
    lines: list[str] = []

    target = "tests.experiments.launch_targets:record"
    returned = launch.run_in_processes(7, 2, target, gpus=0, log=lines.append)

    seen = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert [(s["rank"], s["main"], s["world"], s["run"]) for s in seen] == [
        (0, True, 2, 7),
        (1, False, 2, 7),
    ]
    assert all(s["django_ready"] and s["cuda_visible"] == "" for s in seen)
    assert {"rank 0 trained run 7", "rank 1 trained run 7"} <= set(lines)
    assert returned == "succeeded on rank 0"  # the main process's answer


@pytest.mark.slow
def test_it_reports_a_failed_rank_with_its_last_lines(tmp_path):
    target = "tests.experiments.launch_targets:fail_on_second_rank"
    with pytest.raises(LaunchFailed) as exc:
        launch.run_in_processes(7, 2, target, gpus=0)
    assert exc.value.returncode != 0
    assert "ValueError: rank 1 could not load its shard" in "\n".join(exc.value.tail)
    assert "the training processes exited with status" in str(exc.value)
