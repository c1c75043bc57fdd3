"""Constraint layers: length limits and forbidden patterns or imports."""

from __future__ import annotations

import re
from typing import Any

from tasks_app.verifiers import safe_regex
from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import (
    Context,
    Expected,
    Layer,
    Params,
    params_object,
    string_list,
)
from tasks_app.verifiers.layers.python_code import imported_modules, parse_python

_TARGET: dict[str, Any] = {"enum": ["response", "extracted"]}
SCOPES = ("response", "answer")
"""What a forbidden layer checks: the whole response, or the extractor's answer only."""
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
PATTERNS_TIMEOUT_S = 1.0  # all of a layer's forbidden patterns together, on one response
# A fallback when the code does not parse: import lines found by text.
_IMPORT_LINE_RE = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w., ]+))", re.MULTILINE)


class Length(Layer):
    kind = "length"
    stage = Stage.CONSTRAINT
    description = "Character and whitespace-token counts stay within limits."
    params_schema = params_object(
        {
            "max_chars": _COUNT,
            "min_chars": _COUNT,
            "max_tokens": _COUNT,
            "min_tokens": _COUNT,
            "target": {**_TARGET, "default": "response"},
        }
    )

    @classmethod
    def check_params(cls, params: Params) -> list[tuple[str, str]]:
        if not any(key in params for key in ("max_chars", "min_chars", "max_tokens", "min_tokens")):
            return [
                ("max_chars", "give at least one of max_chars, min_chars, max_tokens, min_tokens")
            ]
        return []

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        text = response if self.params.get("target", "response") == "response" else extracted
        counts: dict[str, Any] = {"chars": len(text), "tokens": len(text.split())}
        for unit, count in counts.items():
            problem = self._out_of_range(unit, count)
            if problem:
                return self.fail(ErrorType.LENGTH_LIMIT, problem, **counts)
        return self.ok(**counts)

    def _out_of_range(self, unit: str, count: int) -> str | None:
        low, high = self.params.get(f"min_{unit}"), self.params.get(f"max_{unit}")
        if high is not None and count > high:
            return f"{count} {unit} > max {high}"
        if low is not None and count < low:
            return f"{count} {unit} < min {low}"
        return None


class Forbidden(Layer):
    kind = "forbidden"
    stage = Stage.CONSTRAINT
    description = (
        "No forbidden regex pattern and no forbidden Python import (found via the AST). Checks "
        "the whole response by default (scope: response), so a refusal or a pasted secret "
        "outside the answer still fails; scope: answer checks only the extracted answer."
    )
    params_schema = params_object(
        {
            "patterns": {
                **string_list("regular expressions that must not occur"),
                "maxItems": 100,
            },
            "imports": string_list("modules that must not be imported (submodules included)"),
            "scope": {
                "enum": list(SCOPES),
                "default": "response",
                "description": "what is checked: the whole response, or only the extracted answer",
            },
            # Specs saved before ``scope`` say ``target``; canonical() rewrites it as scope.
            "target": {
                **_TARGET,
                "deprecated": True,
                "description": "old name of scope ('extracted' is scope 'answer')",
            },
        }
    )

    @classmethod
    def upgrade_params(cls, params: Params) -> Params:
        if "target" not in params or "scope" in params:
            return params
        upgraded = {key: value for key, value in params.items() if key != "target"}
        # The old default was the extracted answer, and stored specs spell it out.
        upgraded["scope"] = "answer" if params["target"] == "extracted" else "response"
        return upgraded

    @classmethod
    def check_params(cls, params: Params) -> list[tuple[str, str]]:
        if "target" in params and "scope" in params:
            return [("target", "is the old name of scope; give only scope")]
        patterns = params.get("patterns", [])
        problems = [
            (f"patterns[{i}]", safe_regex.pattern_problem(p)) for i, p in enumerate(patterns)
        ]
        return [(where, why) for where, why in problems if why]

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        scope = self.params.get("scope", "response")
        text = extracted if scope == "answer" else response
        try:
            found = self._patterns_found(text) + self._imports_found(text)
        except safe_regex.TimeLimit as exc:
            return self.fail(ErrorType.TIMEOUT, str(exc), scope=scope)
        if found:
            where = "the answer" if scope == "answer" else "the response"
            detail = f"forbidden in {where}: " + ", ".join(found)
            return self.fail(ErrorType.FORBIDDEN, detail, scope=scope)
        return self.ok(scope=scope)

    def _patterns_found(self, text: str) -> list[str]:
        with safe_regex.time_limit(PATTERNS_TIMEOUT_S):
            return [p for p in self.params.get("patterns", []) if safe_regex.search(p, text)]

    def _imports_found(self, text: str) -> list[str]:
        banned = self.params.get("imports", [])
        if not banned:
            return []
        modules = _modules_in(text)
        return sorted({f"import {m}" for m in modules for b in banned if _is_within(m, b)})


def _modules_in(text: str) -> set[str]:
    tree, _ = parse_python(text)
    if tree is not None:
        return imported_modules(tree)
    # Unparseable code is caught by python_ast; still report what it plainly tries to import.
    names = [frm or imp for frm, imp in _IMPORT_LINE_RE.findall(text)]
    return {
        part.strip().split(" ")[0] for name in names for part in name.split(",") if part.strip()
    }


def _is_within(module: str, banned: str) -> bool:
    return module == banned or module.startswith(banned + ".")
