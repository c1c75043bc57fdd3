"""Per-execution memory and pid cgroups (v1 or v2), nested under the service's own cgroups.

Nesting under our own group keeps any limit our parent has in force, and needs no write
access above it. Creating and removing a memory cgroup costs the kernel more than the
execution it holds, so the service recycles them: once an execution's keeper has been
reaped and the group is verified empty, its limits are put back to the ceiling and the
next execution uses it. Memory-limit hits are counted, never reset: an execution compares
the count against the one it found (:func:`oom_count`), so a previous user's cannot leak.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass

ROOT = "/sys/fs/cgroup"


@dataclass(frozen=True)
class Layout:
    """Where the service's cgroups live: one directory per controller (v2: one for both)."""

    memory: str | None
    pids: str | None
    v2: bool

    @property
    def dirs(self) -> list[str]:
        return sorted({d for d in (self.memory, self.pids) if d})


def _own_path(controller: str) -> str | None:
    with open("/proc/self/cgroup") as fh:
        for line in fh:
            _, names, path = line.rstrip("\n").split(":", 2)
            if controller in names.split(",") or (controller == "" and names == ""):
                return path
    return None


def discover(tag: str) -> Layout:
    """Create the service's parent groups; controllers that cannot be used are ``None``."""
    if os.path.exists(os.path.join(ROOT, "cgroup.controllers")):
        base = _try_mkdir(os.path.join(ROOT, (_own_path("") or "/").lstrip("/"), tag))
        if base and not _enable_v2_controllers(base):
            base = None
        return Layout(memory=base, pids=base, v2=True)
    memory = _v1_parent("memory", tag)
    pids = _v1_parent("pids", tag)
    return Layout(memory=memory, pids=pids, v2=False)


def _v1_parent(controller: str, tag: str) -> str | None:
    own = _own_path(controller)
    if own is None:
        return None
    return _try_mkdir(os.path.join(ROOT, controller, own.lstrip("/"), tag))


def _enable_v2_controllers(base: str) -> bool:
    # v2 forbids processes in inner nodes, so the service must not live in ``base``.
    try:
        with open(os.path.join(base, "cgroup.subtree_control"), "w") as fh:
            fh.write("+memory +pids")
        return True
    except OSError:
        return False


def _try_mkdir(path: str) -> str | None:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return None
    return path


def create_unit(layout: Layout, name: str, memory_bytes: int, max_pids: int) -> list[str]:
    """Make the per-execution groups with limits set; returns the directories to join."""
    dirs: list[str] = []
    if layout.memory:
        path = os.path.join(layout.memory, name)
        os.mkdir(path)
        dirs.append(path)
        if layout.v2:
            _write(path, "memory.max", str(memory_bytes))
            _write(path, "memory.swap.max", "0", missing_ok=True)
        else:
            _write(path, "memory.limit_in_bytes", str(memory_bytes))
    if layout.pids:
        path = os.path.join(layout.pids, name)
        if path not in dirs:
            os.mkdir(path)
            dirs.append(path)
        _write(path, "pids.max", str(max_pids))
    return dirs


def set_memory(layout: Layout, name: str, memory_bytes: int) -> None:
    """Change a unit's memory limit (lowering it before the unit has run any code)."""
    if layout.memory:
        key = "memory.max" if layout.v2 else "memory.limit_in_bytes"
        _write(os.path.join(layout.memory, name), key, str(memory_bytes))


def _write(directory: str, name: str, value: str, missing_ok: bool = False) -> None:
    try:
        with open(os.path.join(directory, name), "w") as fh:
            fh.write(value)
    except FileNotFoundError:
        if not missing_ok:
            raise


def join(dirs: list[str], pid: int | None = None) -> None:
    """Move process ``pid`` (by default the caller) into every group; pids are read in the
    caller's namespace."""
    number = str(os.getpid() if pid is None else pid).encode()
    for path in dirs:
        fd = os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY)
        try:
            os.write(fd, number)
        finally:
            os.close(fd)


def oom_count(layout: Layout, name: str) -> int:
    """How often the memory controller has refused memory or killed in the unit, ever."""
    if not layout.memory:
        return 0
    path = os.path.join(layout.memory, name)
    try:
        if layout.v2:
            with open(os.path.join(path, "memory.events")) as fh:
                stats = dict(line.split() for line in fh)
            return int(stats.get("oom_kill", 0)) + int(stats.get("max", 0))
        with open(os.path.join(path, "memory.failcnt")) as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return 0


def oom_killed(layout: Layout, name: str, before: int = 0) -> bool:
    """Whether the memory controller refused memory or killed since the count ``before``."""
    return oom_count(layout, name) > before


def unit_dirs(layout: Layout, name: str) -> list[str]:
    return sorted({os.path.join(d, name) for d in layout.dirs})


def recycle(layout: Layout, name: str, memory_bytes: int, max_pids: int) -> bool:
    """Make an emptied unit ready for the next execution; False (and removed) if not empty.

    Its members died with their keeper's PID namespace; anything still listed means the
    group cannot be trusted to start clean, so it is killed and removed instead.
    """
    if not emptied(layout, name):
        return False
    dirs = unit_dirs(layout, name)
    try:
        if layout.pids:
            _write(os.path.join(layout.pids, name), "pids.max", str(max_pids))
        set_memory(layout, name, memory_bytes)
    except OSError:
        destroy_unit(dirs)
        return False
    return True


def emptied(layout: Layout, name: str) -> bool:
    """Whether the unit's groups are empty, ready for the next execution with the limits
    they have; a group that still has members is killed and removed instead (False)."""
    dirs = unit_dirs(layout, name)
    if any(_members(path) for path in dirs):
        destroy_unit(dirs)
        return False
    return True


def destroy_unit(dirs: list[str]) -> bool:
    """Kill whatever is left in the unit and remove it; True when nothing remains."""
    gone = True
    for path in dirs:
        for _ in range(50):
            pids = _members(path)
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            try:
                os.rmdir(path)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.02)  # SIGKILLed members take a moment to leave
        else:
            gone = False
    return gone


def _members(path: str) -> list[int]:
    try:
        with open(os.path.join(path, "cgroup.procs")) as fh:
            return [int(line) for line in fh if line.strip()]
    except OSError:
        return []
