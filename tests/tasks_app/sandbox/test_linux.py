import errno

import pytest

from tasks_app.sandbox import linux


def test_it_reports_a_missing_c_library_as_an_unsupported_call(monkeypatch) -> None:
    # Off Linux there is no libc handle: the capability probe must see an OSError it can
    # read ("not implemented here"), not an AttributeError from deep inside a wrapper.
    monkeypatch.setattr(linux, "_libc", None)
    with pytest.raises(OSError) as raised:
        linux.unshare(linux.CLONE_NEWNS)
    assert raised.value.errno == errno.ENOSYS
