"""The memory cap a CPU worker trains a run under: an allocation past it fails in the run's
process, which lives on with its limit restored. Real processes, real allocations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from experiments import memory
from experiments.launch import LaunchFailed

ROOT = Path(__file__).resolve().parents[2]
OVER_THE_CAP = """
import json, resource, torch
from experiments import memory
before = resource.getrlimit(resource.RLIMIT_AS)
seen = {}
with memory.address_space_limit(256 * 2**20) as cap:
    seen["cap"] = cap
    try:
        torch.empty(2 * 2**30, dtype=torch.uint8)  # 2 GiB, eight times the allowance
    except Exception as exc:
        seen["oom"] = memory.is_out_of_memory(exc)
        seen["error"] = str(exc).splitlines()[0]
    try:
        bytearray(2 * 2**30)
    except MemoryError as exc:
        seen["python_oom"] = memory.is_out_of_memory(exc)
seen["restored"] = resource.getrlimit(resource.RLIMIT_AS) == before
seen["after"] = len(bytearray(512 * 2**20))  # the process goes on, uncapped
print(json.dumps(seen))
"""


def test_it_turns_an_allocation_past_the_cap_into_an_error_the_process_survives():
    done = subprocess.run(
        [sys.executable, "-c", OVER_THE_CAP], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["oom"] and "can't allocate memory" in seen["error"]
    assert seen["python_oom"] and seen["restored"] and seen["after"] == 512 * 2**20


def test_it_keeps_a_tighter_cap_already_in_place():
    script = (
        "import resource; from experiments import memory\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2**40, resource.RLIM_INFINITY))\n"
        "with memory.address_space_limit(2**50) as cap: print(cap == 2**40)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.strip() == "True", done.stderr[-2000:]


def test_it_offers_runs_what_the_machine_has_less_what_the_process_holds():
    total = memory.machine_memory()
    assert total > memory.resident_bytes() > 0
    assert memory.run_allowance(total) < total
    assert memory.run_allowance(total, 4) < memory.run_allowance(total, 1)
    assert memory.run_allowance(1) == memory.MIN_ALLOWANCE_BYTES


def test_it_reads_a_killed_or_starved_rank_in_the_launcher_output():
    killed = LaunchFailed(1, ["exitcode  : -9 (pid: 4242)", "Signal 9 (SIGKILL) received by PID 4242"])
    starved = LaunchFailed(1, ["RuntimeError: DefaultCPUAllocator: can't allocate memory: 9 GB"])
    other = LaunchFailed(1, ["ValueError: rank 1 could not load its shard"])
    assert memory.output_says_out_of_memory(killed.tail)
    assert memory.output_says_out_of_memory(starved.tail)
    assert not memory.output_says_out_of_memory(other.tail)
