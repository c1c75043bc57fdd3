"""Thin ctypes wrappers for the Linux calls Python 3.11's ``os`` module lacks.

Each raises ``OSError`` with the real errno so the capability probe can tell
"not permitted here" from a bug.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import platform
import signal
from collections.abc import Iterator
from typing import Any

IS_LINUX = platform.system() == "Linux"
_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True) if IS_LINUX else None
# fork(2) called with the GIL held, past Python's own os.fork() (see fork_bare).
_bare_fork = ctypes.PyDLL(None, use_errno=True).fork if IS_LINUX else None

# <linux/sched.h>
CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_THREAD = 0x00010000

# <linux/mount.h>
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2

# <linux/prctl.h>
PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
SECCOMP_MODE_FILTER = 2

SYS_PIVOT_ROOT = 155  # x86_64; glibc has no wrapper


def _check(result: int) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def reaped() -> Iterator[tuple[int, int]]:
    """(pid, wait status) of every child that has ended, without blocking."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        yield pid, status


def children() -> list[int]:
    """Pids of this process's children, zombies and orphans adopted as a subreaper included."""
    try:
        tasks = os.listdir("/proc/self/task")
    except FileNotFoundError:
        return []  # no /proc (not Linux): callers name the children they know of
    pids: list[int] = []
    try:
        for task in tasks:
            with open(f"/proc/self/task/{task}/children") as fh:
                pids += [int(pid) for pid in fh.read().split()]
    except FileNotFoundError:  # a kernel without CONFIG_PROC_CHILDREN, or a thread just ended
        return _children_by_scan()
    return pids


def _children_by_scan() -> list[int]:
    own, pids = os.getpid(), []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if entry.isdigit() and _parent_of(entry) == own:
                pids.append(int(entry))
    return pids


def _parent_of(pid: str) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[1])


def end_children(known: set[int]) -> None:
    """Kill every child and reap it, until none is left; returns once all are gone.

    Each round kills all current children and reaps one. The orphans of a dying child
    come to us (as its subreaper) before that child can be reaped, so the next round
    sees and kills them too: nothing we started outlives us, not even as a zombie.
    ``known`` is the caller's own record of unreaped children (all /proc cannot list
    where it is missing); each one reaped here leaves it, so no reused pid is ever killed.
    """
    while True:
        for pid in known | set(children()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        try:
            pid, _ = os.waitpid(-1, 0)
        except ChildProcessError:
            known.clear()
            return
        known.discard(pid)


def fork_bare() -> int:
    """fork(2) without Python's at-fork handlers; only for a parent that runs no other thread.

    ``os.fork()`` re-creates the threading module's state, logging's and the import
    system's locks and reseeds ``random`` in the child, writing a few hundred pages that
    it then copies on write: about as much as a sandboxed unit's own set-up. With a
    single thread in the parent none of those locks can be held and no other thread's
    state exists, so the child needs none of it; it must reseed ``random`` itself.
    """
    if _bare_fork is None:
        return os.fork()
    return _check(_bare_fork())


def exit_now(signum: int, frame: Any) -> None:
    """Signal handler: leave through the ``finally`` blocks, which no second signal disturbs."""
    signal.signal(signum, signal.SIG_IGN)
    raise SystemExit(128 + signum)


def set_name(name: str) -> None:
    """The name ps, top and /proc/PID/comm show for this process (15 bytes at most)."""
    buffer = ctypes.create_string_buffer(name.encode()[:15])
    prctl(PR_SET_NAME, ctypes.addressof(buffer))


def _c() -> ctypes.CDLL:
    """The C library, which these calls need; elsewhere they fail as "not implemented"."""
    if _libc is None:
        raise OSError(errno.ENOSYS, "Linux system calls are not available on this platform")
    return _libc


def unshare(flags: int) -> None:
    _check(_c().unshare(ctypes.c_int(flags)))


def setns(fd: int, nstype: int) -> None:
    _check(_c().setns(ctypes.c_int(fd), ctypes.c_int(nstype)))


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    enc = [s.encode() if s is not None else None for s in (source, target, fstype, data or None)]
    _check(_c().mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]))


def umount2(target: str, flags: int) -> None:
    _check(_c().umount2(target.encode(), ctypes.c_int(flags)))


def pivot_root(new_root: str, put_old: str) -> None:
    _check(_c().syscall(ctypes.c_long(SYS_PIVOT_ROOT), new_root.encode(), put_old.encode()))


def sethostname(name: str) -> None:
    data = name.encode()
    _check(_c().sethostname(data, ctypes.c_size_t(len(data))))


def prctl(option: int, arg2: int = 0, arg3: int | ctypes.c_void_p = 0) -> None:
    _check(_c().prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), arg3, 0, 0))


class SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


class Prepared:
    """A BPF program laid out in C memory once, so a forked unit only has to load it."""

    def __init__(self, program: list[tuple[int, int, int, int]]) -> None:
        self.insns = (SockFilter * len(program))(*[SockFilter(*insn) for insn in program])
        self.fprog = SockFprog(len(program), self.insns)
        self.pointer = ctypes.cast(ctypes.pointer(self.fprog), ctypes.c_void_p)


def install_seccomp(program: list[tuple[int, int, int, int]] | Prepared) -> None:
    """Load a classic BPF program; no_new_privs first, as the kernel requires for non-root."""
    prepared = program if isinstance(program, Prepared) else Prepared(program)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prepared.pointer)
