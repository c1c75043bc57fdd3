"""The run search language, parsed (pure: no Django).

Like MLflow's ``search_runs`` filter: conditions joined by ``and``::

    metrics.reward/mean > 0.5 and params.lr = 0.001 and tags.stage = "sweep"

- ``metrics.<key>``: the run's last value of a metric (its summary), compared as a number;
- ``params.<path>``: its configuration at a dotted path (an outside run's params, a platform
  run's experiment configuration), a number or a string;
- ``tags.<name>``: a tag, a string;
- ``attributes.<name>`` or the bare name: ``state``, ``source``, ``name``, ``step``,
  ``experiment``.

A name with characters outside ``[A-Za-z0-9_./:@%+-]`` goes in backticks
(``metrics.`pass@1 (mean)```). A value is a number, a quoted string ('...' or "...", no
escapes), or a bare word read as a string. Operators: ``= != > >= < <=`` and, for strings,
``like`` (``%`` any run of characters, ``_`` one; case-insensitive). The text is at most
``MAX_FILTER_CHARS`` long with at most ``MAX_CONDITIONS`` conditions; nothing in it reaches
the database but as a bound parameter. A mistake raises ``FilterError`` naming the token.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_FILTER_CHARS = 2000
MAX_CONDITIONS = 20
MAX_PARAM_DEPTH = 8
NAMESPACES = ("metrics", "params", "tags", "attributes")
ATTRIBUTES = {
    "state": "string",
    "source": "string",
    "name": "string",
    "step": "number",
    "experiment": "number",
}
OPERATORS = ("=", "!=", ">", ">=", "<", "<=", "like")
ORDERING_OPERATORS = (">", ">=", "<", "<=")

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<backtick>`[^`]*`)
      | (?P<string>'[^']*'|"[^"]*")
      | (?P<op>!=|>=|<=|=|>|<)
      | (?P<word>[A-Za-z0-9_./:@%+\-]+(?:`[^`]*`)?)
    )""",
    re.VERBOSE,
)


class FilterError(ValueError):
    """The filter cannot be read; the message names the token at fault."""


@dataclass(frozen=True)
class Condition:
    namespace: str
    """metrics, params, tags or attributes."""
    path: tuple[str, ...]
    """The key (metrics, tags, attributes: one part; params: the dotted path's parts)."""
    op: str
    value: float | str


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    at: int


def tokens(text: str) -> list[Token]:
    out: list[Token] = []
    position = 0
    while position < len(text):
        if text[position:].strip() == "":
            break
        found = _TOKEN.match(text, position)
        if found is None or found.lastgroup is None:
            start = len(text) - len(text[position:].lstrip())
            raise FilterError(f"unexpected {text[start:start + 20]!r} at character {start}")
        kind = found.lastgroup
        out.append(Token(kind, found.group(kind), found.start(kind)))
        position = found.end()
    return out


def parse(text: str) -> list[Condition]:
    """The conditions of ``text`` (all of which a run must meet); [] for an empty filter."""
    if len(text) > MAX_FILTER_CHARS:
        raise FilterError(f"the filter is {len(text)} characters; at most {MAX_FILTER_CHARS}")
    found = tokens(text)
    conditions: list[Condition] = []
    index = 0
    while index < len(found):
        if conditions:
            joiner = found[index]
            if joiner.kind != "word" or joiner.text.lower() != "and":
                raise FilterError(f"expected 'and' before {_quoted(joiner)}")
            index += 1
        conditions.append(_condition(found[index : index + 3], found[index - 1]))
        index += 3
        if len(conditions) > MAX_CONDITIONS:
            raise FilterError(f"at most {MAX_CONDITIONS} conditions")
    return conditions


def _condition(parts: list[Token], before: Token) -> Condition:
    if len(parts) < 3:
        last = parts[-1] if parts else before
        raise FilterError(f"incomplete condition after {_quoted(last)}")
    name, op_token, value_token = parts
    namespace, path = _name(name)
    op = op_token.text.lower()
    if op not in OPERATORS or op_token.kind not in ("op", "word"):
        raise FilterError(f"expected an operator ({' '.join(OPERATORS)}), got {_quoted(op_token)}")
    value = _value(value_token)
    kind = _kind(namespace, path)
    if kind == "number" and not isinstance(value, float):
        raise FilterError(f"{name.text} is compared with a number, got {_quoted(value_token)}")
    if kind == "string" and isinstance(value, float):
        value = value_token.text  # a tag or a state is a string, whatever it looks like
    if isinstance(value, float) and not math.isfinite(value):
        raise FilterError(f"a number is finite, got {_quoted(value_token)}")
    if op == "like" and not isinstance(value, str):
        raise FilterError(f"'like' compares strings, got {_quoted(value_token)}")
    if op in ORDERING_OPERATORS and not isinstance(value, float):
        raise FilterError(f"{op!r} compares numbers, got {_quoted(value_token)}")
    return Condition(namespace, path, op, value)


def _name(token: Token) -> tuple[str, tuple[str, ...]]:
    if token.kind != "word":
        raise FilterError(f"expected a name (metrics.<key>, params.<path>...), got {_quoted(token)}")
    head, dot, rest = token.text.partition(".")
    if not dot and head in ATTRIBUTES:
        return "attributes", (head,)
    if head not in NAMESPACES or not dot:
        raise FilterError(
            f"unknown name {_quoted(token)}: use {', '.join(f'{n}.<name>' for n in NAMESPACES)}"
            f" or one of {', '.join(ATTRIBUTES)}"
        )
    return head, _path(head, _unquoted(rest), token)


def _unquoted(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == "`" else text


def _path(namespace: str, rest: str, token: Token) -> tuple[str, ...]:
    if not rest:
        raise FilterError(f"{_quoted(token)} names no key")
    if namespace == "attributes" and rest not in ATTRIBUTES:
        raise FilterError(f"unknown attribute {_quoted(token)}: one of {', '.join(ATTRIBUTES)}")
    if namespace != "params":
        return (rest,)
    parts = tuple(rest.split("."))
    if len(parts) > MAX_PARAM_DEPTH or not all(parts):
        raise FilterError(f"{_quoted(token)}: a path of 1 to {MAX_PARAM_DEPTH} non-empty parts")
    return parts


def _value(token: Token) -> float | str:
    if token.kind == "string":
        return token.text[1:-1]
    if token.kind != "word":
        raise FilterError(f"expected a value, got {_quoted(token)}")
    try:
        return float(token.text)
    except ValueError:
        return token.text


def _kind(namespace: str, path: tuple[str, ...]) -> str:
    if namespace == "metrics":
        return "number"
    if namespace == "tags":
        return "string"
    if namespace == "attributes":
        return ATTRIBUTES[path[0]]
    return "any"


def _quoted(token: Token) -> str:
    return f"{token.text[:40]!r} (character {token.at})"
