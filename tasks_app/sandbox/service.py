"""The sandbox service: a small pre-forked process that forks one keeper per caller slot.

Started by the client with an empty environment, it holds no secrets and never sees test
data: a request is just a socket, passed with SCM_RIGHTS, over which the client then
talks to the keeper forked for it, for as many executions as it likes. Having imported
everything up front, a fork costs about a millisecond instead of an interpreter start.
It probes once which isolation layers this host allows and reports them. It exits when
the client's socket closes or on SIGTERM, and not before every process it started, and
every orphan of theirs it adopted, has been killed and reaped: nothing it started
outlives it, not even as a zombie.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import importlib
import json
import os
import select
import shutil
import signal
import socket
import tempfile
import time
from typing import Any

from tasks_app.sandbox import cgroups, isolate, keeper, linux, seccomp, unit, zygote

REQUEST_SIZE = 64
STOP_GRACE = 1.0  # seconds stopped keepers get to reap their zygote and units themselves
# Standard-library modules solutions and tests commonly import, loaded once here so
# that no unit or keeper pays for finding and unmarshalling them. Each fork reseeds random.
PRELOADED = (
    "bisect",
    "collections",
    "copy",
    "fractions",
    "functools",
    "hashlib",
    "heapq",
    "itertools",
    "math",
    "operator",
    "random",
    "re",
    "statistics",
    "string",
    "typing",
)
READONLY_PATHS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/dev/null", "/dev/urandom")


def python_paths() -> tuple[str, ...]:
    """The base interpreter's standard library, first the directory holding os.py.

    Taken from the base installation, not a virtualenv: site-packages stay outside.
    """
    stdlib = os.path.dirname(os.path.realpath(os.__file__))
    paths = [stdlib, os.path.join(stdlib, "lib-dynload")]
    return tuple(p for p in paths if os.path.isdir(p))


def readonly_paths(python: tuple[str, ...]) -> tuple[str, ...]:
    """System directories plus the interpreter's library dirs not already under them."""
    paths = list(READONLY_PATHS)
    for path in python:
        if not any(path == p or path.startswith(p.rstrip("/") + "/") for p in paths):
            paths.append(path)
    return tuple(paths)


class Service:
    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.keepers: set[int] = set()
        self.stopping = False
        self.root_dir = tempfile.mkdtemp(prefix="sandbox-root-")
        self.layout = cgroups.Layout(None, None, False)
        if os.geteuid() == 0:
            self.layout = cgroups.discover(f"sandbox-{os.getpid()}")
        python = python_paths()
        base = isolate.Jail(
            isolate.Layers(), isolate.Limits(), self.root_dir, readonly_paths(python), python
        )
        self.capabilities = probe(base, self.layout)
        self.template = _template(base, self.capabilities)
        if self.template.layers.root:
            self.template = self._prepare_root(self.template)

    def _prepare_root(self, template: isolate.Jail) -> isolate.Jail:
        """Build the read-only root once, in a mount namespace of the service's own."""
        try:
            linux.unshare(linux.CLONE_NEWNS)
            isolate.prepare_root(template.root_dir, template.ro_paths)
        except OSError:
            return template  # each unit builds it then, as the probe did
        return dataclasses.replace(template, root_ready=True)

    def serve(self) -> None:
        warm_up()
        self.control.sendall(json.dumps(self.capabilities).encode())
        # SIGCHLD wakes the loop so finished keepers are reaped and their cgroups removed
        # at once, not at the next request.
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        watched: list[socket.socket | int] = [self.control, wake_r]
        while not self.stopping:
            self.reap()
            ready, _, _ = select.select(watched, [], [])
            if wake_r in ready:
                os.read(wake_r, 4096)
            if self.control not in ready:
                continue
            try:
                message, fds, _, _ = socket.recv_fds(self.control, REQUEST_SIZE, 1)
            except InterruptedError:
                continue
            if not message:
                return  # the client is gone
            for fd in fds:
                self.spawn_keeper(socket.socket(fileno=fd))

    def request_stop(self, signum: int, frame: Any) -> None:
        # Only a flag: the signal's byte on the wakeup fd ends the select, and serve()
        # returns to shutdown(); raising here could land in a keeper between fork and try.
        self.stopping = True

    def spawn_keeper(self, conn: socket.socket) -> None:
        """Fork a keeper that serves the caller at the other end of ``conn``."""
        pid = os.fork()
        if pid == 0:
            self.control.close()
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            try:
                keeper.run(conn, self.template, self.layout)
            finally:
                os._exit(0)
        conn.close()
        self.keepers.add(pid)

    def reap(self) -> None:
        for pid, _ in linux.reaped():
            if pid in self.keepers:
                self.keepers.discard(pid)
                for name in keeper.cgroup_names(pid) if self.layout.dirs else ():
                    cgroups.destroy_unit(cgroups.unit_dirs(self.layout, name))

    def shutdown(self) -> None:
        self.stop_keepers()
        for path in self.layout.dirs:
            cgroups.destroy_unit([os.path.join(path, name) for name in _subdirs(path)])
            with contextlib.suppress(OSError):
                os.rmdir(path)
        if self.template.root_ready:
            linux.umount2(self.root_dir, linux.MNT_DETACH)  # never delete through the binds
        shutil.rmtree(self.root_dir, ignore_errors=True)

    def stop_keepers(self) -> None:
        """Ask every keeper to stop, then kill and reap whatever is left of the tree.

        A keeper stops through its ``finally``: it closes its zygote, which kills and reaps
        its units, and reaps the zygote. One that does not end within STOP_GRACE (trusted
        tests stuck in C) is killed; its zygote and units die by PDEATHSIG and, orphaned,
        come to us as the subreaper, to be killed and reaped as well.
        """
        for pid in self.keepers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        while self.keepers and time.monotonic() < deadline:
            time.sleep(0.005)
            self.reap()
        linux.end_children(self.keepers)  # their cgroups go with the rest in shutdown()


def warm_up() -> None:
    """Do once, before any fork, the work every keeper and unit would otherwise repeat."""
    for name in PRELOADED:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    seccomp.prepared()
    # Objects that exist now are never collected; a fork then does not copy the pages
    # that a collection would touch.
    gc.collect()
    gc.freeze()


def _subdirs(path: str) -> list[str]:
    with contextlib.suppress(OSError):
        return [e.name for e in os.scandir(path) if e.is_dir()]
    return []


def _template(base: isolate.Jail, caps: dict[str, Any]) -> isolate.Jail:
    ns = caps["namespaces"]
    layers = isolate.Layers(
        pid=ns["pid"],
        mount=ns["mount"],
        network=ns["network"],
        ipc=ns["ipc"],
        uts=ns["uts"],
        root=caps["readonly_root"],
        seccomp=caps["seccomp"],
        cgroups=caps["cgroups"],
        uid=caps["uid"],
    )
    return dataclasses.replace(base, layers=layers)


def probe(base: isolate.Jail, layout: cgroups.Layout) -> dict[str, Any]:
    """Try every layer in a throwaway child; report which ones work here."""
    results = _probe_child(base, layout) if linux.IS_LINUX else {}
    ok = results.get
    caps: dict[str, Any] = {
        "namespaces": {n: bool(ok(n)) for n in ("pid", "mount", "network", "ipc", "uts")},
        "readonly_root": bool(ok("mount") and ok("root") and ok("python")),
        "seccomp": bool(ok("seccomp")),
        "cgroups": bool(ok("cgroups")),
        "cgroup_controllers": [c for c in ("memory", "pids") if getattr(layout, c)],
        "uid": isolate.UNPRIVILEGED_UID if ok("uid") else None,
        "rlimits": True,
        "empty_env": True,
        "prefork": True,
    }
    caps["warnings"] = _warnings(caps)
    return caps


def _warnings(caps: dict[str, Any]) -> list[str]:
    missing = [f"{name} namespace" for name, on in caps["namespaces"].items() if not on]
    for key, label in (
        ("readonly_root", "read-only root and private /tmp"),
        ("seccomp", "seccomp filter"),
        ("cgroups", "memory and pid cgroups (RLIMIT_AS/RLIMIT_NPROC only)"),
    ):
        if not caps[key]:
            missing.append(label)
    if caps["uid"] is None:
        missing.append("unprivileged uid (runs as the service's user)")
    return [f"sandbox layer unavailable on this host: {m}" for m in missing]


def _probe_child(base: isolate.Jail, layout: cgroups.Layout) -> dict[str, bool]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _probe_in_child(base, layout, write_fd)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    cgroups.destroy_unit([os.path.join(d, "probe") for d in layout.dirs])
    with contextlib.suppress(ValueError):
        return json.loads(data or b"{}")
    return {}


def _probe_in_child(base: isolate.Jail, layout: cgroups.Layout, out: int) -> None:
    results: dict[str, bool] = {}
    try:
        results["pid"] = _attempt(lambda: linux.unshare(linux.CLONE_NEWPID))
        pid = os.fork()  # the grandchild is PID 1 of the new namespace, like a real unit
        if pid:
            os.waitpid(pid, 0)
            os._exit(0)
        dirs: list[str] = []
        if layout.dirs:
            results["cgroups"] = _attempt(
                lambda: dirs.extend(cgroups.create_unit(layout, "probe", 64 << 20, 8))
            ) and _attempt(lambda: cgroups.join(dirs))
            results["cgroups"] = results["cgroups"] and bool(layout.memory and layout.pids)
        for name, step in isolate.probe_steps(base):
            results[name] = _attempt(step)
        os.write(out, json.dumps(results).encode())
    finally:
        os._exit(0)


def _attempt(step: Any) -> bool:
    try:
        step()
        return True
    except Exception:
        return False


def main(fd: int) -> None:
    """Entry point, run as ``python -I -S -c ...`` with an empty environment."""
    if linux.IS_LINUX:
        # Orphans of dead keepers come back here to be reaped rather than to init.
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
        linux.set_name("sandbox-service")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the client's Ctrl-C is not for us
    service = Service(socket.socket(fileno=fd))
    signal.signal(signal.SIGTERM, service.request_stop)
    try:
        service.serve()
    finally:
        service.shutdown()


_ = unit, zygote  # imported up front so forks do not pay for it
