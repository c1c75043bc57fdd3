from __future__ import annotations

import pytest

from tasks_app.sandbox import wire


def test_it_round_trips_exact_plain_data() -> None:
    value = [
        1,
        -0.0,
        float("inf"),
        "s",
        True,
        None,
        (1, (2,)),
        {3, 4},
        {(1, 2): [{"k": b"x".hex()}]},
    ]
    assert wire.decode(wire.loads(wire.dumps(wire.encode(value))[4:])) == value
    assert type(wire.decode(wire.encode((1,)))) is tuple


@pytest.mark.parametrize("value", [b"bytes", frozenset(), object()])
def test_it_refuses_other_types(value: object) -> None:
    with pytest.raises(wire.WireError):
        wire.encode(value)


def test_it_refuses_subclasses_of_plain_types() -> None:
    class Sneaky(int):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = int.__hash__

    with pytest.raises(wire.WireError):
        wire.encode([Sneaky(1)])


@pytest.mark.parametrize("data", [["x", []], ["s", [["l", []]]], ["d", [[1]]], [1, 2, 3]])
def test_it_refuses_malformed_values(data: object) -> None:
    with pytest.raises(wire.WireError):
        wire.decode(data)


def test_it_refuses_values_nested_too_deeply() -> None:
    value: list[object] = []
    for _ in range(wire.MAX_DEPTH + 5):
        value = [value]
    with pytest.raises(wire.WireError):
        wire.encode(value)
