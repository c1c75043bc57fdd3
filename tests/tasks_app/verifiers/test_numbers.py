from fractions import Fraction

import pytest

from tasks_app.verifiers.numbers import close_enough, last_number, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,234", Fraction(1234)),
        ("$5", Fraction(5)),
        ("3/4", Fraction(3, 4)),
        ("-2.50", Fraction(-5, 2)),
        ("1e3", Fraction(1000)),
        ("18.", Fraction(18)),
        ("−3", Fraction(-3)),
    ],
)
def test_it_parses_numbers_as_people_write_them(text: str, value: Fraction) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1/0", "12 apples"])
def test_it_rejects_what_is_not_one_number(text: str) -> None:
    assert parse_number(text) is None


def test_it_finds_the_last_number_written() -> None:
    assert last_number("3 apples at $1,234.50 each, so 3/4 of them") == "3/4"
    assert last_number("no digits here") is None


def test_it_compares_with_absolute_or_relative_tolerance() -> None:
    assert close_enough(Fraction("0.3"), Fraction(1, 10) * 3, abs_tol=0, rel_tol=0)
    assert close_enough(Fraction(1001), Fraction(1000), abs_tol=0, rel_tol=0.01)
    assert not close_enough(Fraction(1001), Fraction(1000), abs_tol=0.5, rel_tol=0)
