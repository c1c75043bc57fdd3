"""Runs of several processes: the accelerate launch command, and real ranks on the CPU."""

from __future__ import annotations

import json

import pytest

from experiments import launch
from experiments.launch import LaunchFailed
from training.accelerate_config import deepspeed_problem


def test_it_launches_the_same_job_on_every_rank_from_a_config_file(tmp_path):
    command = launch.launch_command(7, tmp_path / "accelerate.yaml", "pkg.job:train_rank")
    assert command[1:3] == ["-m", "accelerate.commands.launch"]
    assert command[3] == f"--config_file={tmp_path / 'accelerate.yaml'}"
    assert command[-4:] == ["-m", "experiments.launch", "7", "pkg.job:train_rank"]


def test_it_configures_ddp_ranks_on_the_cpu_without_mixed_precision():
    config = launch.launch_config(2, gpus=0, mixed_precision="bf16", port=29555)
    assert config["distributed_type"] == "MULTI_GPU" and config["num_processes"] == 2
    assert config["mixed_precision"] == "no" and config["main_process_port"] == 29555
    assert config["num_machines"] == 1 and "main_process_ip" not in config


def test_it_shards_with_fsdp_on_gpus_as_configured():
    config = launch.launch_config(4, gpus=8, strategy="fsdp", mixed_precision="bf16")
    assert config["distributed_type"] == "FSDP" and config["mixed_precision"] == "bf16"
    assert config["fsdp_config"]["fsdp_sharding_strategy"] == "FULL_SHARD"


def test_it_names_the_strategy_when_deepspeed_is_not_installed():
    if deepspeed_problem() is None:
        pytest.skip("deepspeed is installed here: the refusal is for workers without it")
    with pytest.raises(ValueError, match="^strategy: deepspeed is not installed"):
        launch.launch_config(2, gpus=2, strategy="deepspeed")


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
        launch.launch_config(processes, gpus=gpus, strategy=strategy)


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
