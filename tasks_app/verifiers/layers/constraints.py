"""Constraint layers: length limits and forbidden patterns or imports."""

from __future__ import annotations

import re
from typing import Any

from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import (
    Context,
    Expected,
    Layer,
    Params,
    params_object,
    string_list,
)
from tasks_app.verifiers.layers.patterns import pattern_problem
from tasks_app.verifiers.layers.python_code import imported_modules, parse_python

_TARGET: dict[str, Any] = {"enum": ["response", "extracted"]}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
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
    description = "No forbidden regex pattern, and no forbidden Python import (found via the AST)."
    params_schema = params_object(
        {
            "patterns": string_list("regular expressions that must not occur"),
            "imports": string_list("modules that must not be imported (submodules included)"),
            "target": {**_TARGET, "default": "extracted"},
        }
    )

    @classmethod
    def check_params(cls, params: Params) -> list[tuple[str, str]]:
        patterns = params.get("patterns", [])
        problems = [(f"patterns[{i}]", pattern_problem(p)) for i, p in enumerate(patterns)]
        return [(where, why) for where, why in problems if why]

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        text = extracted if self.params.get("target", "extracted") == "extracted" else response
        found = self._patterns_found(text) + self._imports_found(text)
        if found:
            return self.fail(ErrorType.FORBIDDEN, "forbidden: " + ", ".join(found))
        return self.ok()

    def _patterns_found(self, text: str) -> list[str]:
        return [p for p in self.params.get("patterns", []) if re.search(p, text)]

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
