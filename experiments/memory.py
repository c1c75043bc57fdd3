"""A worker's memory, and the limit a run trains under, so that running out of memory fails the
run with that reason instead of the kernel's OOM killer taking the whole worker.

Pure Python (no Django). On a CPU worker the run's tensors live in the worker's own address
space (its process, or the ranks it launches), so the run's allocations are capped with
RLIMIT_AS: one past the cap fails with MemoryError or torch's "can't allocate memory", which
the training job turns into "out of memory: ...". A CUDA worker is left without the cap
(CUDA reserves far more address space than it uses); torch raises its OutOfMemoryError there.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CGROUP_LIMITS = (
    Path("/sys/fs/cgroup/memory.max"),  # cgroup v2
    Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"),  # cgroup v1
)
RUN_SHARE = 0.9
"""Share of the worker's memory a run may hold; the rest keeps the worker's own process, its
heartbeat and the page cache going."""
MIN_ALLOWANCE_BYTES = 256 * 2**20
"""What a run may add however little seems free: enough to fail inside the engine, with a
reason, rather than while importing it."""
OOM_MESSAGES = (
    "can't allocate memory",  # torch's CPU allocator
    "Cannot allocate memory",  # ENOMEM from the C library
    "out of memory",  # torch.OutOfMemoryError (CUDA)
    "MemoryError",
    "OutOfMemoryError",
)
KILLED_MESSAGE = "Signal 9 (SIGKILL)"
"""How torchrun reports a rank killed with SIGKILL, which on a worker is the OOM killer's."""


def machine_memory() -> int:
    """Bytes of memory this process's machine (or its container's cgroup) allows."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limits = [limit for limit in map(_read_limit, CGROUP_LIMITS) if limit]
    return min([physical, *limits])


def _read_limit(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max": no limit


def resident_bytes() -> int:
    return _status_bytes("VmRSS")


def address_space_bytes() -> int:
    return _status_bytes("VmSize")


def _status_bytes(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) * 1024  # reported in kB
    return 0


def run_allowance(offered_bytes: int, processes: int = 1) -> int:
    """Bytes one of a run's processes may still add: its share of what the worker offers runs,
    less what the process already holds."""
    share = int(offered_bytes * RUN_SHARE) // max(1, processes)
    return max(MIN_ALLOWANCE_BYTES, share - resident_bytes())


@contextmanager
def address_space_limit(allowance_bytes: int) -> Iterator[int]:
    """Cap this process's address space at its current size plus ``allowance_bytes`` for the
    block (a tighter cap already in place stays); the cap in force. The soft limit alone is
    lowered, so it is raised back afterwards without privileges."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = address_space_bytes() + allowance_bytes
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        yield soft
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield cap
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def is_out_of_memory(exc: BaseException) -> bool:
    """MemoryError, torch.OutOfMemoryError, or an allocator's error saying so."""
    if isinstance(exc, MemoryError):
        return True
    if any(kind.__name__ == "OutOfMemoryError" for kind in type(exc).__mro__):
        return True  # torch's (CUDA), named so torch need not be imported to recognise it
    return isinstance(exc, RuntimeError) and any(m in str(exc) for m in OOM_MESSAGES[:3])


def output_says_out_of_memory(lines: list[str]) -> bool:
    """Whether the output of a run's processes shows one of them running out of memory."""
    text = "\n".join(lines)
    return KILLED_MESSAGE in text or any(message in text for message in OOM_MESSAGES)
