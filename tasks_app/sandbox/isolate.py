"""Turning a freshly forked process into a sandbox, one layer at a time.

Runs in the sandboxed process itself, as PID 1 of a new PID namespace, before any
untrusted byte is compiled. The order matters: join the cgroups while /sys is visible,
build the root while still privileged, set limits, drop to the unprivileged uid, and
install seccomp last (it forbids the very calls the earlier steps need).
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import resource
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from tasks_app.sandbox import cgroups, linux, seccomp

UNPRIVILEGED_UID = 65534  # "nobody": owns no file the sandbox can see
BASE_ADDRESS_SPACE = 0  # bytes mapped by the unit before it runs any code
MAX_MEMORY_MB = 4096  # ceiling a pre-forked unit starts with, before a request lowers it
IDLE_TIMEOUT = 3600.0  # seconds of CPU a pre-forked unit may have before its request
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_LIBC = ctypes.CDLL(None) if linux.IS_LINUX else None  # opened once, before any fork
M_ARENA_MAX = -8  # mallopt: one arena, so threads do not each reserve 64 MiB against RLIMIT_AS
_MALLOPT = _LIBC.mallopt if _LIBC is not None else None  # looked up before any fork
# The one account that exists inside, written into the root (never the host's /etc), so
# that getpass.getuser(), pwd.getpwuid(os.getuid()) and os.path.expanduser("~") answer
# "nobody" with its home at the private /tmp instead of failing. nsswitch.conf keeps the
# lookups in these files: no service is ever asked.
ACCOUNT_FILES = {
    "passwd": f"nobody:x:{UNPRIVILEGED_UID}:{UNPRIVILEGED_UID}:nobody:/tmp:/usr/sbin/nologin\n",
    "group": f"nogroup:x:{UNPRIVILEGED_UID}:\n",
    "nsswitch.conf": "passwd: files\ngroup: files\n",
}


@dataclass(frozen=True)
class Layers:
    """The isolation layers that work on this host (decided once by the probe)."""

    pid: bool = False
    mount: bool = False
    network: bool = False
    ipc: bool = False
    uts: bool = False
    root: bool = False  # minimal read-only root plus a fresh tmpfs, needs ``mount``
    seccomp: bool = False
    cgroups: bool = False
    uid: int | None = None

    def unshare_flags(self) -> int:
        flags = 0
        for enabled, flag in (
            (self.mount, linux.CLONE_NEWNS),
            (self.network, linux.CLONE_NEWNET),
            (self.ipc, linux.CLONE_NEWIPC),
            (self.uts, linux.CLONE_NEWUTS),
        ):
            flags |= flag if enabled else 0
        return flags


@dataclass(frozen=True)
class Limits:
    timeout: float = 5.0  # seconds of wall time for the whole execution
    memory_mb: int = 256
    tmp_mb: int = 16  # size of the private /tmp
    max_pids: int = 32  # threads count as pids
    max_files: int = 64

    def cgroup_bytes(self) -> int:
        # The tmpfs and interpreter pages are charged too; leave room so that the
        # address-space limit, which fails cleanly with MemoryError, usually fires first.
        return (self.memory_mb + self.tmp_mb + 64) << 20


# What a pre-forked unit starts with, before a request lowers it.
CEILING = Limits(timeout=IDLE_TIMEOUT, memory_mb=MAX_MEMORY_MB)


@dataclass(frozen=True)
class Jail:
    """Everything the sandboxed process needs to lock itself in."""

    layers: Layers
    limits: Limits
    root_dir: str  # an empty host directory used as the mount point of the new root
    ro_paths: tuple[str, ...]  # host paths bound read-only at the same place inside
    python_path: tuple[str, ...]  # sys.path inside: the standard library only
    cgroup_dirs: list[str] = field(default_factory=list)
    root_ready: bool = False  # root_dir already holds the read-only root (prepare_root)


def enter(jail: Jail, stdio: tuple[int, int, int], channel: int) -> None:
    """Apply every enabled layer; the channel ends up as fd 3 and nothing else stays open."""
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL) if linux.IS_LINUX else None
    global BASE_ADDRESS_SPACE
    BASE_ADDRESS_SPACE = _current_address_space()
    address_space = BASE_ADDRESS_SPACE + (jail.limits.memory_mb << 20)
    if jail.cgroup_dirs:
        cgroups.join(jail.cgroup_dirs)
    if jail.layers.unshare_flags():
        linux.unshare(jail.layers.unshare_flags())
    if jail.layers.uts:
        linux.sethostname("sandbox")
    if jail.layers.root and jail.root_ready:
        enter_root(jail.root_dir, jail.limits.tmp_mb)
    elif jail.layers.root:
        build_root(jail.root_dir, jail.ro_paths, jail.limits.tmp_mb)
    _reset_fds(stdio, channel)
    set_rlimits(jail.limits, address_space, cgroup_pids=jail.layers.cgroups)
    if jail.layers.uid is not None:
        drop_privileges(jail.layers.uid)
    if jail.layers.seccomp:
        linux.install_seccomp(seccomp.prepared())


def build_root(root: str, ro_paths: tuple[str, ...], tmp_mb: int) -> None:
    """A tmpfs root holding read-only binds of ``ro_paths`` and a fresh size-capped /tmp."""
    prepare_root(root, ro_paths)
    enter_root(root, tmp_mb)


def prepare_root(root: str, ro_paths: tuple[str, ...]) -> None:
    """Lay out the read-only root at ``root`` in the current mount namespace.

    Done once by the service in a mount namespace of its own; every unit then copies it
    with its own namespace and only has to add its /tmp (:func:`enter_root`).
    """
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    linux.mount("tmpfs", root, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=1m,mode=755")
    for path in ro_paths:
        _bind_readonly(path, root + path)
    _write_accounts(root + "/etc")
    os.mkdir(root + "/tmp")
    flags = linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV
    linux.mount(None, root, None, flags)


def enter_root(root: str, tmp_mb: int) -> None:
    """Mount a fresh /tmp on the prepared root and make it ours: the host's mounts go."""
    options = f"size={tmp_mb}m,nr_inodes=4096,mode=1777"
    linux.mount("tmpfs", root + "/tmp", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, options)
    os.chdir(root)
    linux.pivot_root(".", ".")  # the old root ends up stacked on top; detach it
    linux.umount2(".", linux.MNT_DETACH)
    os.chdir("/tmp")


def _write_accounts(etc: str) -> None:
    os.mkdir(etc)
    os.chmod(etc, 0o755)  # explicit: the service's umask may be stricter than the unit needs
    for name, text in ACCOUNT_FILES.items():
        path = os.path.join(etc, name)
        with open(path, "x") as fh:
            fh.write(text)
        os.chmod(path, 0o644)


def _bind_readonly(source: str, target: str) -> None:
    if os.path.islink(source):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.symlink(os.readlink(source), target)
        return
    if not os.path.exists(source):
        return
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:  # a device node such as /dev/null: bind onto an empty file
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "w").close()
    linux.mount(source, target, None, linux.MS_BIND | linux.MS_REC)
    # Device nodes must stay usable, so only directories get nodev.
    nodev = linux.MS_NODEV if os.path.isdir(source) else 0
    flags = linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | linux.MS_NOSUID | nodev
    linux.mount(None, target, None, flags)


def _reset_fds(stdio: tuple[int, int, int], channel: int) -> None:
    for target, fd in enumerate(stdio):
        os.dup2(fd, target)
    os.dup2(channel, 3)
    os.closerange(4, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def reset_interpreter(python_path: tuple[str, ...]) -> None:
    """What every unit inherits: no environment, the standard library only, a private
    umask and one malloc arena. Done once by the zygote that forks the units, which
    imports nothing after it, instead of in every unit."""
    os.environ.clear()
    sys.path[:] = list(python_path)
    sys.argv[:] = ["sandbox"]
    os.umask(0o077)
    if _MALLOPT is not None:
        _MALLOPT(M_ARENA_MAX, 1)


def _current_address_space() -> int:
    # Forked from the service, we already map the interpreter; budgets come on top.
    # os.open, not open(): no buffered file object to build in every unit.
    try:
        fd = os.open("/proc/self/statm", os.O_RDONLY)
        try:
            return int(os.read(fd, 256).split()[0]) * PAGE
        finally:
            os.close(fd)
    except (OSError, ValueError, IndexError):
        return 256 << 20


def tighten(limits: Limits, rounds: int = 1) -> None:
    """Lower the limits of a pre-forked unit to one request's (lowering needs no privilege).

    A unit that will serve ``rounds`` requests (a shared tests' unit) keeps a hard CPU
    limit for all of them; :func:`next_round` moves its soft limit on for each one.
    """
    memory = BASE_ADDRESS_SPACE + (limits.memory_mb << 20)
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = int(usage.ru_utime + usage.ru_stime)
    cpu = used + math.ceil(limits.timeout) + 1
    hard = used + math.ceil(limits.timeout) * max(rounds, 1) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, hard))


def next_round(limits: Limits) -> None:
    """Give a unit that serves another request one more request's CPU time, up to its hard limit."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    cpu = int(usage.ru_utime + usage.ru_stime) + math.ceil(limits.timeout) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (min(cpu, hard), hard))


def set_rlimits(limits: Limits, address_space: int, cgroup_pids: bool) -> None:
    cpu = math.ceil(limits.timeout) + 1
    # Without a pids cgroup, RLIMIT_NPROC (per uid, shared by concurrent sandboxes) is the
    # only thread cap; seccomp already forbids fork.
    nproc = 1024 if cgroup_pids else 256
    for name, value in (
        ("RLIMIT_AS", address_space),
        ("RLIMIT_CPU", (cpu, cpu + 1)),
        ("RLIMIT_FSIZE", limits.tmp_mb << 20),
        ("RLIMIT_NOFILE", limits.max_files),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_NPROC", nproc),
        ("RLIMIT_MEMLOCK", 0),
        ("RLIMIT_MSGQUEUE", 0),
    ):
        soft, hard = value if isinstance(value, tuple) else (value, value)
        if hasattr(resource, name):
            resource.setrlimit(getattr(resource, name), (soft, hard))


def drop_privileges(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def probe_steps(jail: Jail) -> list[tuple[str, Callable[[], None]]]:
    """The same layers as :func:`enter`, as separately testable steps for the probe."""
    flag_names = (
        ("mount", linux.CLONE_NEWNS),
        ("network", linux.CLONE_NEWNET),
        ("ipc", linux.CLONE_NEWIPC),
        ("uts", linux.CLONE_NEWUTS),
    )
    steps: list[tuple[str, Callable[[], None]]] = [
        (name, functools.partial(linux.unshare, flag)) for name, flag in flag_names
    ]
    steps += [
        ("root", lambda: build_root(jail.root_dir, jail.ro_paths, 1)),
        ("python", lambda: _import_check(jail.python_path)),
        ("uid", lambda: drop_privileges(UNPRIVILEGED_UID)),
        ("seccomp", lambda: linux.install_seccomp(seccomp.build_filter())),
    ]
    return steps


def _import_check(python_path: tuple[str, ...]) -> None:
    # The standard library must stay readable inside the new root.
    with open(os.path.join(python_path[0], "os.py"), "rb") as fh:
        fh.read(1)
