"""The seccomp filter: a local socket is refused with an error, any other socket kills."""

from __future__ import annotations

import pytest

from tasks_app.sandbox import capabilities, check_function, run_program

pytestmark = pytest.mark.skipif(not capabilities()["seccomp"], reason="needs seccomp")

INC_TESTS = "def check(candidate):\n    assert candidate(1) == 2\n"


def test_it_refuses_a_local_socket_with_permission_denied() -> None:
    source = (
        "import socket\n"
        "try:\n"
        "    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "except PermissionError as exc:\n"
        "    print('refused', exc.errno)\n"
    )
    result = run_program(source)
    assert (result.status, result.stdout) == ("ok", "refused 13\n"), result


@pytest.mark.parametrize(
    "family", ["socket.AF_INET", "socket.AF_INET6", "socket.AF_NETLINK", "socket.AF_PACKET"]
)
def test_it_still_kills_any_other_socket(family: str) -> None:
    source = (
        "import socket\n"
        "def inc(x):\n"
        f"    socket.socket({family}, socket.SOCK_DGRAM)\n"
        "    return x + 1\n"
    )
    result = check_function(source, INC_TESTS, "inc", timeout=1.0)
    assert result.status == "forbidden", result


def test_a_caught_refusal_cannot_be_used_to_reach_the_network() -> None:
    source = (
        "import socket\n"
        "def inc(x):\n"
        "    try:\n"
        "        socket.socket(socket.AF_UNIX).connect('/run/postgresql/.s.PGSQL.5432')\n"
        "    except PermissionError:\n"
        "        pass\n"
        "    socket.create_connection(('127.0.0.1', 5432), timeout=0.5)\n"
        "    return x + 1\n"
    )
    assert check_function(source, INC_TESTS, "inc", timeout=1.0).status == "forbidden"
