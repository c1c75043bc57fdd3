"""Reading numbers the way people and models write them: "1,234", "$5", "3/4", "-2.50", "12%"."""

from __future__ import annotations

import re
from fractions import Fraction

# A signed number with optional thousands separators, decimals, exponent or a fraction part.
NUMBER_RE = re.compile(
    r"[-+−]?\$?\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s?/\s?\d+(?:\.\d+)?)?"
    r"|[-+−]?\$?\.\d+"
)
_NOISE = re.compile(r"[\s$€£,%]")


def parse_number(text: str) -> Fraction | None:
    """The value of ``text`` if it is one number (currency, separators, % and fractions allowed)."""
    cleaned = _NOISE.sub("", str(text).strip().rstrip(".")).replace("−", "-")
    cleaned = cleaned.removeprefix("+")
    if not cleaned:
        return None
    try:
        if "/" in cleaned:
            top, bottom = cleaned.split("/", 1)
            return Fraction(top) / Fraction(bottom)
        return Fraction(cleaned)
    except (ValueError, ZeroDivisionError):
        return None


def last_number(text: str) -> str | None:
    """The last number written in ``text``, as written (None when there is none)."""
    found = NUMBER_RE.findall(text)
    return found[-1].strip() if found else None


def close_enough(got: Fraction, want: Fraction, *, abs_tol: float, rel_tol: float) -> bool:
    """math.isclose semantics, computed on exact fractions so "0.1+0.2" style drift cannot bite."""
    diff = abs(got - want)
    return diff <= abs_tol or diff <= rel_tol * max(abs(got), abs(want))
