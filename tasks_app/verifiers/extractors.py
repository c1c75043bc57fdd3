"""Extractors: turn a raw model response into the piece a verifier judges.

Each extractor is a plain function ``(response) -> str | None``; ``None`` means the response
lacks the required shape, which the runner reports as a ``format_error``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tasks_app.verifiers.numbers import last_number

Extractor = Callable[[str], str | None]

_FENCE_RE = re.compile(r"```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_HASHES_RE = re.compile(r"####\s*(.+)")
_ANSWER_RE = re.compile(r"(?:final\s+)?answer\s*(?:is)?\s*[:=]\s*(.+)", re.IGNORECASE)
_SQL_START_RE = re.compile(r"^\s*(SELECT|WITH)\b", re.IGNORECASE | re.MULTILINE)
_LANGUAGES = {
    "python": {"python", "py", "python3"},
    "sql": {"sql", "sqlite"},
    "json": {"json"},
}


def full_text(response: str) -> str | None:
    """The whole response, stripped."""
    return response.strip() or None


def fenced_blocks(response: str) -> list[tuple[str, str]]:
    """Every fenced block as (language tag in lower case, body); an unclosed last block counts."""
    return [(lang.lower(), body.strip("\n")) for lang, body in _FENCE_RE.findall(response)]


def code_block(response: str) -> str | None:
    """The first fenced block, whatever its language."""
    blocks = fenced_blocks(response)
    return blocks[0][1] if blocks else None


def _block_in(language: str) -> Extractor:
    """The first block tagged with ``language``, else the first block with no tag at all."""

    def extract(response: str) -> str | None:
        blocks = fenced_blocks(response)
        tagged = [body for lang, body in blocks if lang in _LANGUAGES[language]]
        untagged = [body for lang, body in blocks if not lang]
        found = tagged or untagged
        return found[0] if found else None

    extract.__name__ = f"{language}_block"
    extract.__doc__ = f"The first ```{language} block (or the first untagged block)."
    return extract


python_block = _block_in("python")
sql_block = _block_in("sql")
json_block = _block_in("json")


def boxed(response: str) -> str | None:
    """The body of the last \\boxed{...}, with nested braces balanced."""
    start = response.rfind("\\boxed{")
    if start < 0:
        return None
    depth, begin = 0, start + len("\\boxed{")
    for i in range(begin, len(response)):
        depth += {"{": 1, "}": -1}.get(response[i], 0)
        if depth < 0:
            return response[begin:i].strip() or None
    return None


def final_answer(response: str) -> str | None:
    """A marked final answer: \\boxed{X}, else ``#### X``, else the last ``Answer: X`` line."""
    found = boxed(response)
    if found is None:
        found = _last_group(_HASHES_RE, response)
    if found is None:
        found = _last_group(_ANSWER_RE, response)
    return found


def _last_group(pattern: re.Pattern[str], response: str) -> str | None:
    matches = [m.group(1).strip() for m in pattern.finditer(response)]
    matches = [m for m in matches if m]
    return matches[-1].rstrip(".").strip() if matches else None


def final_answer_or_last_number(response: str) -> str | None:
    """A marked final answer, else the last number in the text."""
    return final_answer(response) or last_number(response)


def final_answer_or_last_line(response: str) -> str | None:
    """A marked final answer, else the last non-empty line."""
    lines = [line.strip() for line in response.strip().splitlines() if line.strip()]
    return final_answer(response) or (lines[-1] if lines else None)


def json_object(response: str) -> str | None:
    """A ```json block, else the first balanced {...} span in the text."""
    block = json_block(response)
    if block is not None:
        return block.strip()
    start = response.find("{")
    return _balanced_object(response, start) if start >= 0 else None


def _balanced_object(text: str, start: int) -> str | None:
    """The {...} span starting at ``start``; braces inside JSON strings do not count."""
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        char = text[i]
        if in_string:
            in_string = escaped or char != '"'
            escaped = char == "\\" and not escaped
            continue
        in_string = char == '"'
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return text[start : i + 1]
    return None


def sql_statement(response: str) -> str | None:
    """A ```sql block, else the text from the first line opening with SELECT/WITH to its ';'."""
    block = sql_block(response)
    if block is not None:
        return block.strip()
    match = _SQL_START_RE.search(response)
    if match is None:
        return None
    rest = response[match.start() :].strip()
    end = rest.find(";")
    return rest[: end + 1] if end >= 0 else rest.split("\n\n")[0]


EXTRACTORS: dict[str, Extractor] = {
    "full_text": full_text,
    "last_number": last_number,
    "final_answer": final_answer,
    "final_answer_or_last_number": final_answer_or_last_number,
    "final_answer_or_last_line": final_answer_or_last_line,
    "code_block": code_block,
    "python_block": python_block,
    "sql_block": sql_block,
    "json_block": json_block,
    "json_object": json_object,
    "sql_statement": sql_statement,
}


def extract(name: str, response: str) -> str | None:
    return EXTRACTORS[name](response)


def describe_extractors() -> list[dict[str, str]]:
    """Name and one-line description of every extractor, for the verifier builder."""
    return [
        {"name": name, "description": (fn.__doc__ or name).strip().splitlines()[0]}
        for name, fn in EXTRACTORS.items()
    ]
