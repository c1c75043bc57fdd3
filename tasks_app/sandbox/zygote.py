"""The process that forks a keeper's units: forked from the keeper before any request.

A keeper serves many executions and so holds test data of earlier ones, which no unit may
inherit. Units are therefore forked by this small helper, itself forked from the keeper
while the keeper was still a clean copy of the service. It hands each new unit's ends
(channel, stdio pipes, a pidfd) to the keeper, reaps units, and reports each exit status.
It dies with its keeper, and its units with it. When the keeper closes it (or on SIGTERM)
it kills and reaps every unit before it exits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import signal
import socket
import struct
from collections.abc import Callable, Sequence

from tasks_app.sandbox import isolate, linux
from tasks_app.sandbox.unit import Unit, child

EXIT = struct.Struct("!Qi")  # unit number, wait status
BATCH = 4  # units forked back to back (see _fork_units); the rest wait for their turn
FD_NAMES = ("chan", "stdin", "stdout", "stderr", "pidfd")


class Zygote:
    """The keeper's handle: ask for units, learn how they ended."""

    def __init__(self, pid: int, ctl: socket.socket, exits: socket.socket) -> None:
        self.pid = pid
        self.ctl = ctl  # requests out, units' fds back
        self.exits = exits  # exit statuses, in the order the units were reaped
        self.ended: dict[int, int] = {}
        self.made = 0

    @classmethod
    def start(
        cls,
        jail: isolate.Jail,
        body: Callable[[], None],
        output_limit: int,
        conn: socket.socket,
        siblings: Sequence[Zygote] = (),
    ) -> Zygote:
        """Fork the zygote; ``conn`` (the keeper's caller) is closed in it.

        So are the keeper's ends of ``siblings`` (zygotes the keeper started before):
        a copy held here would keep a sibling from seeing its keeper close it.
        """
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        exits_ours, exits_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                conn.close()
                for sibling in siblings:
                    sibling.ctl.close()
                    sibling.exits.close()
                ours.close()
                exits_ours.close()
                _serve(theirs, exits_theirs, jail, body, output_limit)
            finally:
                os._exit(0)
        theirs.close()
        exits_theirs.close()
        return cls(pid, ours, exits_ours)

    def unit(self, output_limit: int) -> Unit:
        """A new isolated unit (its set-up may still be under way; messages wait for it)."""
        self.ctl.sendall(b"unit")
        message, fds, _, _ = socket.recv_fds(self.ctl, 64, len(FD_NAMES))
        if len(fds) != len(FD_NAMES):
            for fd in fds:
                os.close(fd)
            raise OSError("the zygote did not hand over a unit")
        number, pid = struct.unpack("!Qq", message)
        ends = dict(zip(FD_NAMES, fds, strict=True))
        pipes = {name: ends[name] for name in ("stdin", "stdout", "stderr")}
        chan = socket.socket(fileno=ends["chan"])
        unit = Unit(pid, chan, pipes, 0.0, pidfd=ends["pidfd"])
        unit.status_of = lambda block: self.status(number, block)
        unit.out = {name: unit.captured(output_limit) for name in ("stdout", "stderr")}
        return unit

    def status(self, number: int, block: bool) -> int | None:
        """The wait status of unit ``number`` once the zygote has reaped it."""
        while number not in self.ended:
            self.exits.setblocking(block)
            try:
                data = self.exits.recv(EXIT.size)
            except BlockingIOError:
                return None
            finally:
                self.exits.setblocking(True)
            if not data:
                raise OSError("the zygote is gone")
            ended, status = EXIT.unpack(data)
            self.ended[ended] = status
        return self.ended.pop(number)

    def close(self) -> None:
        self.ctl.close()  # the zygote kills its units and exits when this closes
        self.exits.close()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def _serve(
    ctl: socket.socket,
    exits: socket.socket,
    jail: isolate.Jail,
    body: Callable[[], None],
    output_limit: int,
) -> None:
    if linux.IS_LINUX:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        linux.set_name("sandbox-zygote")
    signal.signal(signal.SIGTERM, linux.exit_now)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    units: dict[int, int] = {}  # pid -> unit number
    made = 0
    jail = _share_namespaces(jail)
    isolate.reset_interpreter(jail.python_path)
    # unshare(CLONE_NEWPID) works once per PID namespace we are in; going back to our own
    # before each unit lets every unit be PID 1 of a namespace of its own.
    own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY) if jail.layers.pid else -1
    watched: list[socket.socket | int] = [ctl, wake_r]
    spares: list[tuple[int, list[int]]] = []  # forked and isolating, not yet handed over
    numbers: dict[int, int] = {}  # their unit numbers
    try:
        while True:
            ready, _, _ = select.select(watched, [], [])
            if wake_r in ready:
                os.read(wake_r, 4096)
                _reap(units, exits)
            if ctl not in ready:
                continue
            try:
                request = ctl.recv(16)
            except InterruptedError:
                continue
            if not request:
                return
            if not spares:
                spares = _fork_units(jail, body, own_pid_ns, BATCH)
                for pid, _ in spares:
                    made += 1
                    units[pid] = numbers[pid] = made
            pid, fds = spares.pop()
            try:
                socket.send_fds(ctl, [struct.pack("!Qq", numbers.pop(pid), pid)], fds)
            finally:
                for fd in fds:
                    os.close(fd)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # leaving already: let the reaping finish
        # Every child, not only those in ``units``: one may be forked and not yet recorded.
        linux.end_children(set(units))


def _fork_units(
    jail: isolate.Jail, body: Callable[[], None], own_pid_ns: int, count: int
) -> list[tuple[int, list[int]]]:
    """``count`` units forked back to back; each one's pid and ends (see FD_NAMES).

    Every page this process writes while a unit still shares it is copied, once per
    page, whatever the number of units sharing it. So all their ends are made first,
    the forks follow one another with nothing in between, and the bookkeeping comes
    after the last: its copies are paid once per batch, not once per unit. A unit closes
    the others' ends (inherited from here) with every descriptor above 3, before it
    runs anything of a request.
    """
    ends: list[tuple[int, ...]] = []
    for _ in range(count):
        pair = socket.socketpair()
        ends.append((pair[0].detach(), pair[1].detach(), *os.pipe(), *os.pipe(), *os.pipe()))
    pids: list[int] = []
    for _, theirs, stdin_r, _, _, out_w, _, err_w in ends:
        if own_pid_ns >= 0:
            linux.setns(own_pid_ns, linux.CLONE_NEWPID)
        if jail.layers.pid:
            linux.unshare(linux.CLONE_NEWPID)  # applies to the next child only
        pid = linux.fork_bare()  # this process runs one thread
        if pid == 0:
            child(jail, body, (stdin_r, out_w, err_w), theirs)
        pids.append(pid)
    made: list[tuple[int, list[int]]] = []
    for pid, (ours, theirs, stdin_r, stdin_w, out_r, out_w, err_r, err_w) in zip(
        pids, ends, strict=True
    ):
        for fd in (theirs, stdin_r, out_w, err_w):
            os.close(fd)
        # A zygote runs only where pidfd_open exists (Linux 5.3+).
        made.append((pid, [ours, stdin_w, out_r, err_r, os.pidfd_open(pid)]))
    return made


def _share_namespaces(jail: isolate.Jail) -> isolate.Jail:
    """Enter the network, UTS and IPC namespaces once, here; the units inherit them.

    An empty network namespace costs more to create and tear down than most executions,
    and units cannot use it anyway (seccomp refuses a local socket() and kills every other
    socket() and socketpair()), so this keeper's units, which run one after another, share
    one that holds nothing. The same holds for IPC: seccomp kills shmget, msgget and
    semget, and RLIMIT_MSGQUEUE 0 refuses every POSIX message queue, so no unit can leave
    an object there for the next; a candidate's and a tests' unit come from different
    zygotes, so never share one. Mount and PID namespaces stay one per unit.
    """
    layers = jail.layers
    flags = 0
    for enabled, flag in (
        (layers.network, linux.CLONE_NEWNET),
        (layers.uts, linux.CLONE_NEWUTS),
        (layers.ipc, linux.CLONE_NEWIPC),
    ):
        flags |= flag if enabled else 0
    if not flags:
        return jail
    linux.unshare(flags)
    if layers.uts:
        linux.sethostname("sandbox")
    shared = dataclasses.replace(layers, network=False, uts=False, ipc=False)
    return dataclasses.replace(jail, layers=shared)


def _reap(units: dict[int, int], exits: socket.socket) -> None:
    for pid, status in linux.reaped():
        number = units.pop(pid, None)
        if number is not None:
            with contextlib.suppress(OSError):
                exits.send(EXIT.pack(number, status))
