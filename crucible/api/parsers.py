"""Request-body parsers for the API: bounded JSON nesting, and only text PostgreSQL can store.

PostgreSQL refuses U+0000 in text columns and in jsonb strings, and a jsonb string with a
lone surrogate, so such text that reached a query or a save would be a 500. Checking parsed
bodies here covers every field of every endpoint, the contents of free-form JSON fields
(specs, params, configs) included, and names the field that carried it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

from django.http import QueryDict
from rest_framework import parsers
from rest_framework.exceptions import ErrorDetail, ParseError, ValidationError

# Deeper than any spec, config or params object the API accepts; deep enough nesting would
# otherwise exhaust the interpreter's stack in the decoder or in code that walks the value.
MAX_JSON_DEPTH = 64
# Enough to show where the bad text is without echoing a huge body back.
MAX_REPORTED = 20
NUL = "\x00"
SURROGATE = re.compile("[\ud800-\udfff]")

Problem = tuple[str, ErrorDetail]  # (field path, what is wrong with its text)


class TooDeep(ParseError):
    default_detail = f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels."


def unstorable(text: str) -> ErrorDetail | None:
    """Why PostgreSQL would refuse ``text``, in the words and codes of DRF's own checks."""
    if NUL in text:
        return ErrorDetail("Null characters are not allowed.", code="null_characters_not_allowed")
    surrogate = SURROGATE.search(text)
    if surrogate:
        return ErrorDetail(
            f"Surrogate characters are not allowed: U+{ord(surrogate.group()):X}.",
            code="surrogate_characters_not_allowed",
        )
    return None


def unstorable_json(value: Any) -> Iterator[Problem]:
    """Strings and keys PostgreSQL would refuse, by path (``a.b[2].c``; ``""``: the whole).

    Walks without recursion and raises ``TooDeep`` past ``MAX_JSON_DEPTH`` levels.
    """
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            problem = unstorable(item)
            if problem:
                yield path, problem
        elif isinstance(item, (dict, list)):
            if depth >= MAX_JSON_DEPTH:
                raise TooDeep()
            children = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in children:
                problem = unstorable(key) if isinstance(key, str) else None
                if problem:
                    yield _child_path(path, printable(key)), problem
                    continue
                stack.append((child, _child_path(path, key), depth + 1))


def unstorable_form(data: QueryDict) -> Iterator[Problem]:
    """Form fields (or query parameters) whose name or any value PostgreSQL would refuse."""
    for key, values in data.lists():
        for text in [key, *(v for v in values if isinstance(v, str))]:
            problem = unstorable(text)
            if problem:
                yield printable(key), problem
                break


def printable(key: str) -> str:
    """A field name as JSON escapes it, so an error can name a key holding a NUL."""
    return json.dumps(key)[1:-1] if unstorable(key) else key


def _child_path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def first_problems(problems: Iterable[Problem]) -> list[Problem]:
    return list(islice(problems, MAX_REPORTED))


def reject(problems: Iterable[Problem]) -> None:
    """A 400 naming each field of ``problems`` (the first ``MAX_REPORTED``), if any."""
    detail = {path or "non_field_errors": [problem] for path, problem in first_problems(problems)}
    if detail:
        raise ValidationError(detail)


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise TooDeep() from None
        reject(unstorable_json(data))
        return data


class FormParser(parsers.FormParser):
    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        data = super().parse(stream, media_type, parser_context)
        reject(unstorable_form(data))
        return data


class MultiPartParser(parsers.MultiPartParser):
    """Form fields are checked; uploaded files are bytes for their importer to judge."""

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        result = super().parse(stream, media_type, parser_context)
        reject(unstorable_form(result.data))
        return result
