"""The seccomp filter for sandboxed code, as a classic BPF program (x86_64).

Process creation, sockets, signals to other processes, privilege and namespace changes
and kernel attack surface (bpf, io_uring, keyrings, ...) kill the whole process with
SIGSYS, which the trusted side reports as ``forbidden``. Threads stay allowed: ``clone``
passes only with CLONE_THREAD, and ``clone3`` (whose flags live in memory a filter cannot
read) answers ENOSYS so glibc falls back to ``clone``. A local (AF_UNIX) ``socket`` is
refused with EACCES instead of killing: glibc asks nscd over one before every user or
group lookup (``getpass.getuser()``, ``os.path.expanduser("~")``), and goes on to the
files in the root when it cannot; every other family still kills.
"""

from __future__ import annotations

import errno

from tasks_app.sandbox import linux
from tasks_app.sandbox.linux import CLONE_THREAD

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# <linux/filter.h> opcodes
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
JSET_K = 0x45
RET_K = 0x06

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# offsets into struct seccomp_data
OFF_NR = 0
OFF_ARCH = 4
OFF_ARG0 = 16  # low 32 bits of args[0] on little-endian

SYS_CLONE = 56
SYS_CLONE3 = 435
SYS_SOCKET = 41
AF_UNIX = 1

# name -> x86_64 syscall number
KILLED: dict[str, int] = {
    "fork": 57, "vfork": 58, "execve": 59, "execveat": 322,
    "socketpair": 53, "connect": 42, "accept": 43, "accept4": 288,
    "bind": 49, "listen": 50,
    "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129,
    "rt_tgsigqueueinfo": 297, "pidfd_open": 434, "pidfd_send_signal": 424, "pidfd_getfd": 438,
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "setsid": 112, "setpgid": 109,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272,
    "setns": 308, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "keyctl": 250, "add_key": 248, "request_key": 249,
    "init_module": 175, "finit_module": 313, "delete_module": 176,
    "kexec_load": 246, "kexec_file_load": 320, "reboot": 169, "swapon": 167, "swapoff": 168,
    "acct": 163, "quotactl": 179, "syslog": 103, "iopl": 172, "ioperm": 173,
    "setuid": 105, "setgid": 106, "setreuid": 113, "setregid": 114, "setresuid": 117,
    "setresgid": 119, "setgroups": 116, "setfsuid": 122, "setfsgid": 123, "capset": 126,
    "personality": 135, "mknod": 133, "mknodat": 259,
    "name_to_handle_at": 303, "open_by_handle_at": 304,
    "shmget": 29, "msgget": 68, "semget": 64,
    "sethostname": 170, "setdomainname": 171, "settimeofday": 164, "clock_settime": 227,
    "adjtimex": 159, "clock_adjtime": 305, "vhangup": 153,
}  # fmt: skip


def build_filter() -> list[tuple[int, int, int, int]]:
    """Return the program as (code, jt, jf, k) tuples."""
    killed = sorted(set(KILLED.values()))
    prog: list[tuple[int, int, int, int]] = [
        (LD_W_ABS, 0, 0, OFF_ARCH),
        (JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        (RET_K, 0, 0, RET_KILL_PROCESS),  # another ABI could renumber every syscall
        (LD_W_ABS, 0, 0, OFF_NR),
        (JGE_K, 0, 1, X32_SYSCALL_BIT),
        (RET_K, 0, 0, RET_KILL_PROCESS),
        (JEQ_K, 0, 1, SYS_CLONE3),
        (RET_K, 0, 0, RET_ERRNO | errno.ENOSYS),
        (JEQ_K, 0, 4, SYS_CLONE),
        (LD_W_ABS, 0, 0, OFF_ARG0),
        (JSET_K, 1, 0, CLONE_THREAD),
        (RET_K, 0, 0, RET_KILL_PROCESS),  # clone without CLONE_THREAD is a fork
        (RET_K, 0, 0, RET_ALLOW),
        # The kernel reads socket()'s family as an int: the low 32 bits are all it sees.
        (JEQ_K, 0, 4, SYS_SOCKET),
        (LD_W_ABS, 0, 0, OFF_ARG0),
        (JEQ_K, 0, 1, AF_UNIX),
        (RET_K, 0, 0, RET_ERRNO | errno.EACCES),
        (RET_K, 0, 0, RET_KILL_PROCESS),
    ]
    # Each test jumps forward over the remaining tests to the shared kill at the end.
    for index, number in enumerate(killed):
        prog.append((JEQ_K, len(killed) - index, 0, number))
    prog.append((RET_K, 0, 0, RET_ALLOW))
    prog.append((RET_K, 0, 0, RET_KILL_PROCESS))
    return prog


_prepared: linux.Prepared | None = None


def prepared() -> linux.Prepared:
    """The filter in C memory, built once per process (the service builds it before forking)."""
    global _prepared
    if _prepared is None:
        _prepared = linux.Prepared(build_filter())
    return _prepared
