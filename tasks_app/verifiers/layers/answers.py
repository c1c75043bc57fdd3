"""Final-answer comparisons: a number within tolerance, a string after normalisation."""

from __future__ import annotations

import re
import string
import unicodedata
from typing import Any

from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import Context, Expected, Layer, flag, number, params_object
from tasks_app.verifiers.numbers import close_enough, last_number, parse_number

_PUNCTUATION = str.maketrans("", "", string.punctuation)


def _answers(expected: Expected) -> list[Any] | None:
    """expected["answer"] as a list of acceptable answers (a list there means any of them)."""
    answer = expected.get("answer")
    if answer is None:
        return None
    return list(answer) if isinstance(answer, list | tuple) else [answer]


class AnswerLayer(Layer):
    """Compares the extracted text with expected["answer"] (a list there means any of them)."""

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        answers = _answers(expected)
        if answers is None:
            return self.missing("answer")
        return self.compare(extracted, answers)

    def compare(self, extracted: str, answers: list[Any]) -> LayerResult:
        raise NotImplementedError

    def wrong(self, extracted: str, answers: list[Any]) -> LayerResult:
        return self.fail(ErrorType.WRONG_ANSWER, f"got {extracted[:80]!r}, expected {answers[0]!r}")


class NumericMatch(AnswerLayer):
    kind = "numeric_match"
    stage = Stage.SEMANTIC
    description = 'The number equals expected["answer"] within abs_tol or rel_tol.'
    params_schema = params_object(
        {
            "abs_tol": number(default=1e-6),
            "rel_tol": number(default=0.0),
            "lenient": flag(True, "read the last number when the text is not one number"),
        }
    )

    def compare(self, extracted: str, answers: list[Any]) -> LayerResult:
        got = self._read(extracted)
        if got is None:
            return self.fail(ErrorType.FORMAT_ERROR, f"no number in {extracted[:80]!r}")
        for answer in answers:
            want = parse_number(str(answer))
            if want is not None and close_enough(got, want, **self._tolerances()):
                return self.ok(got=str(got))
        return self.wrong(extracted, answers)

    def _read(self, extracted: str) -> Any:
        value = parse_number(extracted)
        if value is None and self.params.get("lenient", True):
            value = parse_number(last_number(extracted) or "")
        return value

    def _tolerances(self) -> dict[str, float]:
        return {
            "abs_tol": float(self.params.get("abs_tol", 1e-6)),
            "rel_tol": float(self.params.get("rel_tol", 0.0)),
        }


def normalise(text: str, *, case_sensitive: bool, punctuation: bool, whitespace: bool) -> str:
    """NFKC-normalised text; case folded, punctuation dropped and spaces collapsed as asked."""
    text = unicodedata.normalize("NFKC", str(text)).strip()
    if not case_sensitive:
        text = text.casefold()
    if not punctuation:
        text = text.translate(_PUNCTUATION)
    if not whitespace:
        text = re.sub(r"\s+", " ", text).strip()
    return text


class StringMatch(AnswerLayer):
    kind = "string_match"
    stage = Stage.SEMANTIC
    description = 'The text equals expected["answer"] after normalising case, spaces, punctuation.'
    params_schema = params_object(
        {
            "case_sensitive": flag(False),
            "keep_punctuation": flag(True),
            "keep_whitespace": flag(False, "compare runs of spaces exactly instead of collapsing"),
            "strip_quotes": flag(True, 'read "x" and `x` as x'),
        }
    )

    def compare(self, extracted: str, answers: list[Any]) -> LayerResult:
        got = self._normalise(extracted)
        if any(got == self._normalise(str(answer)) for answer in answers):
            return self.ok()
        return self.wrong(extracted, answers)

    def _normalise(self, text: str) -> str:
        if self.params.get("strip_quotes", True):
            text = _strip_quotes(text.strip())
        return normalise(
            text,
            case_sensitive=self.params.get("case_sensitive", False),
            punctuation=self.params.get("keep_punctuation", True),
            whitespace=self.params.get("keep_whitespace", False),
        )


def _strip_quotes(text: str) -> str:
    """'"olleh"' and '`olleh`' are the answer olleh: models often quote what they return."""
    for quote in ('"', "'", "`"):
        if len(text) >= 2 and text[0] == text[-1] == quote:
            return text[1:-1]
    return text
