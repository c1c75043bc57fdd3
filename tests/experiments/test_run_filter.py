"""The run search language, parsed without a database."""

from __future__ import annotations

import pytest

from experiments.run_filter import Condition, FilterError, parse


def test_it_reads_conditions_joined_by_and():
    assert parse("metrics.reward/mean > 0.5 AND params.optim.lr = 1e-3 and tags.x = y") == [
        Condition("metrics", ("reward/mean",), ">", 0.5),
        Condition("params", ("optim", "lr"), "=", 0.001),
        Condition("tags", ("x",), "=", "y"),
    ]


def test_names_in_backticks_and_quoted_values_keep_their_characters():
    assert parse("metrics.`pass@1 (mean)` >= 1 and tags.`a b` = 'two words'") == [
        Condition("metrics", ("pass@1 (mean)",), ">=", 1.0),
        Condition("tags", ("a b",), "=", "two words"),
    ]


def test_a_tag_or_a_state_is_a_string_whatever_it_looks_like():
    assert parse("tags.seed = 42 and attributes.state = running and step < 10") == [
        Condition("tags", ("seed",), "=", "42"),
        Condition("attributes", ("state",), "=", "running"),
        Condition("attributes", ("step",), "<", 10.0),
    ]


def test_an_empty_filter_has_no_conditions():
    assert parse("   ") == []


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("metrics.x", "incomplete"),
        ("metrics.x = 1 metrics.y = 2", "expected 'and'"),
        ("metrics. = 1", "names no key"),
        ("params.a..b = 1", "non-empty parts"),
        ("attributes.colour = red", "unknown attribute"),
        ("metrics.x like 'a%'", "number"),
        ("name > b", "compares numbers"),
        ("metrics.x = inf", "finite"),
        ("tags.x = \"unterminated", "unexpected"),
        ("metrics.x == 1", "'='"),
    ],
)
def test_a_mistake_names_its_token(text, named):
    with pytest.raises(FilterError, match=None) as raised:
        parse(text)
    assert named in str(raised.value)
