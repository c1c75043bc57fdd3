"""The read-only root answers user lookups for the one account inside: nobody, home /tmp."""

from __future__ import annotations

import pytest

from tasks_app.sandbox import capabilities, check_function, run_program

pytestmark = pytest.mark.skipif(
    not capabilities()["readonly_root"], reason="needs the read-only root (root)"
)

SIGNED = (
    "import getpass, os, pwd\n"
    "def signed(text):\n"
    '    """Sign ``text`` with the current user\'s name and home directory."""\n'
    "    entry = pwd.getpwuid(os.getuid())\n"
    "    assert entry.pw_name == getpass.getuser()\n"
    "    return f\"{text} -- {getpass.getuser()} ({os.path.expanduser('~')})\"\n"
)
SIGNED_TESTS = (
    "def check(candidate):\n"
    "    assert candidate('hello') == 'hello -- nobody (/tmp)'\n"
    "    assert candidate('') == ' -- nobody (/tmp)'\n"
)


def test_it_answers_user_lookups_instead_of_killing_the_program() -> None:
    source = (
        "import getpass, grp, os, pwd\n"
        "print(os.path.expanduser('~'), getpass.getuser())\n"
        "entry = pwd.getpwuid(os.getuid())\n"
        "print(entry.pw_name, entry.pw_uid, entry.pw_dir, grp.getgrgid(os.getgid()).gr_name)\n"
    )
    result = run_program(source)
    assert result.status == "ok", result
    assert result.stdout == "/tmp nobody\nnobody 65534 /tmp nogroup\n"


def test_a_function_that_looks_up_its_user_passes() -> None:
    result = check_function(SIGNED, SIGNED_TESTS, "signed")
    assert (result.status, result.tests_passed, result.tests_total) == ("passed", 2, 2), result


def test_it_knows_no_account_but_nobody() -> None:
    source = (
        "import os, pwd\n"
        "print(sorted(os.listdir('/etc')), [e.pw_name for e in pwd.getpwall()])\n"
        "try:\n"
        "    pwd.getpwuid(0)\n"
        "except KeyError:\n"
        "    print('no root')\n"
    )
    result = run_program(source)
    assert result.status == "ok", result
    assert result.stdout == "['group', 'nsswitch.conf', 'passwd'] ['nobody']\nno root\n"


def test_its_account_files_are_read_only() -> None:
    source = (
        "import errno\n"
        "try:\n"
        "    open('/etc/passwd', 'a').write('root::0:0::/:/bin/sh\\n')\n"
        "except OSError as exc:\n"
        "    print(errno.errorcode[exc.errno])\n"
        "print(open('/etc/passwd').read().count(':0:'))\n"
    )
    assert run_program(source).stdout == "EROFS\n0\n"


def test_it_works_when_its_client_runs_with_a_private_umask() -> None:
    # A service started under umask 077 once made its bind directories 0700, so nobody could
    # import a stdlib module that was not preloaded.
    import subprocess
    import sys

    script = (
        "import os; os.umask(0o077)\n"
        "from tasks_app.sandbox import run_program\n"
        "result = run_program('import getpass, textwrap\\nprint(getpass.getuser())')\n"
        "print(result.status, result.stdout.strip())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "ok nobody", out.stderr[-2000:]
