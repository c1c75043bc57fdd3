"""The verifier spec: the JSON document the API stores and the browser edits.

Shape::

    {"extract": "final_answer_or_last_number",
     "layers": [{"kind": "numeric_match", "name": "answer", "params": {"abs_tol": 1e-6},
                 "continue_on_fail": false}],
     "reward": {"weights": {"outcome": 1.0, "process": 0.0, "constraint": 0.0, "judge": 0.0},
                "failure_reward": 0.0}}

``validate_spec`` returns every problem as a :class:`FieldError` naming its field
(``layers[2].params.abs_tol: must be a non-negative number``); ``canonical`` fills every default
so two specs that mean the same thing are equal, and ``spec_hash`` is the SHA-256 of that form:
the identity of a verifier version.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tasks_app.verifiers.extractors import EXTRACTORS
from tasks_app.verifiers.layers import LAYER_KINDS, layer_class

Spec = dict[str, Any]
MAX_LAYERS = 32
"""Layers in one spec. Specs arrive in request bodies and are checked and run in the web
process, where 20,000 layers took 5 s just to validate."""
WEIGHT_NAMES = ("outcome", "process", "constraint", "judge")
TURN_WEIGHT_NAMES = ("tool_format", "tool_success", "valid_moves")
"""Parts of a multi-turn episode (``tasks_app.environments.judging``): the share of its turns
free of one per-turn error. Kept in the canonical form only when weighted, so the hash of every
single-turn spec stays what it was before episodes existed."""
_WEIGHT: dict[str, Any] = {"type": "number", "minimum": 0}

SPEC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "extract": {"enum": sorted(EXTRACTORS)},
        "layers": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"enum": sorted(LAYER_KINDS)},
                    "name": {"type": "string", "minLength": 1, "maxLength": 100},
                    "params": {"type": "object"},
                    "continue_on_fail": {"type": "boolean"},
                },
                "required": ["kind"],
                "additionalProperties": False,
            },
        },
        "reward": {
            "type": "object",
            "properties": {
                "weights": {
                    "type": "object",
                    "properties": {name: _WEIGHT for name in WEIGHT_NAMES + TURN_WEIGHT_NAMES},
                    "additionalProperties": False,
                },
                "failure_reward": {"type": "number"},
            },
            "additionalProperties": False,
        },
    },
    "required": ["extract", "layers"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class FieldError:
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}"


class SpecError(ValueError):
    """An invalid spec; ``errors`` holds one FieldError per problem."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors

    def as_dict(self) -> dict[str, list[str]]:
        """{field: [reasons]}, the shape a 400 response carries."""
        out: dict[str, list[str]] = {}
        for error in self.errors:
            out.setdefault(error.field, []).append(error.reason)
        return out


def validate_spec(spec: Any) -> list[FieldError]:
    """Every problem with ``spec``; an empty list means it is valid."""
    if not isinstance(spec, dict):
        return [FieldError("spec", "must be an object")]
    layers = spec.get("layers")
    if isinstance(layers, list) and len(layers) > MAX_LAYERS:
        return [FieldError("layers", f"at most {MAX_LAYERS} layers, got {len(layers)}")]
    errors = schema_errors(spec, SPEC_SCHEMA, prefix="")
    layers = layers if isinstance(layers, list) else []  # anything else: a schema error above
    for index, layer in enumerate(layers):
        errors += _layer_errors(index, layer)
    errors += _name_errors(layers)
    errors += _reward_errors(spec.get("reward") or {})
    return errors


def check_spec(spec: Any) -> None:
    errors = validate_spec(spec)
    if errors:
        raise SpecError(errors)


def _layer_errors(index: int, layer: Any) -> list[FieldError]:
    kind = layer.get("kind") if isinstance(layer, dict) else None
    if not isinstance(kind, str) or kind not in LAYER_KINDS:
        return []  # already reported by the spec schema
    params = layer.get("params", {})
    if not isinstance(params, dict):
        return []
    cls = layer_class(layer["kind"])
    prefix = f"layers[{index}].params"
    errors = schema_errors(params, cls.params_schema, prefix)
    if not errors:
        errors = [FieldError(f"{prefix}.{key}", why) for key, why in cls.check_params(params)]
    return errors


def _name_errors(layers: list[Any]) -> list[FieldError]:
    names = [layer.get("name") if isinstance(layer, dict) else None for layer in layers]
    return [
        FieldError(f"layers[{index}].name", f"{name!r} is used by an earlier layer")
        for index, name in enumerate(names)
        if isinstance(name, str) and name in names[:index]
    ]


def _reward_errors(reward: Any) -> list[FieldError]:
    weights = reward.get("weights") if isinstance(reward, dict) else None
    if not isinstance(weights, dict) or not weights:
        return []
    values = [w for w in weights.values() if isinstance(w, int | float)]
    if len(values) == len(weights) and not any(values):
        return [FieldError("reward.weights", "at least one weight must be positive")]
    return []


def schema_errors(instance: Any, schema: dict[str, Any], prefix: str) -> list[FieldError]:
    """JSON Schema errors as FieldErrors with readable reasons, in document order."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    found = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.path])
    return [FieldError(*_describe(error, prefix)) for error in found]


def field_path(prefix: str, parts: Iterable[Any]) -> str:
    path = prefix
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "spec"


def _describe(error: Any, prefix: str) -> tuple[str, str]:
    where = list(error.absolute_path)
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        return field_path(prefix, [*where, missing[0]]), "is required"
    if error.validator == "additionalProperties":
        extra = sorted(
            key for key in error.instance if key not in error.schema.get("properties", {})
        )
        return field_path(prefix, [*where, extra[0]]), "is not a known field"
    return field_path(prefix, where), _reason(error)


def _reason(error: Any) -> str:
    schema, validator = error.schema, error.validator
    if validator in ("type", "minimum") and schema.get("minimum") == 0:
        return (
            f"must be a non-negative {'integer' if schema.get('type') == 'integer' else 'number'}"
        )
    if validator == "type":
        kind = schema["type"]
        return f"must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    if validator == "enum":
        return "must be one of: " + ", ".join(map(str, error.validator_value))
    reasons = {
        "minimum": f"must be >= {error.validator_value}",
        "maximum": f"must be <= {error.validator_value}",
        "minLength": "must not be empty" if error.validator_value == 1 else error.message,
        "minItems": f"needs at least {error.validator_value} item(s)",
        "maxLength": f"must be at most {error.validator_value} characters",
        "maxItems": f"must have at most {error.validator_value} items",
    }
    return reasons.get(validator, error.message)


def canonical(spec: Spec) -> Spec:
    """The spec with every default written out, numbers as floats and unnamed layers named.

    Raises SpecError when the spec is invalid.
    """
    check_spec(spec)
    return {
        "extract": spec["extract"],
        "layers": _canonical_layers(spec["layers"]),
        "reward": canonical_reward(spec.get("reward") or {}),
    }


def _canonical_layers(layers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    taken = {layer["name"] for layer in layers if "name" in layer}
    out = []
    for layer in layers:
        name = layer.get("name") or _free_name(layer["kind"], taken)
        taken.add(name)
        out.append(
            {
                "kind": layer["kind"],
                "name": name,
                "params": _with_defaults(layer.get("params", {}), layer_class(layer["kind"])),
                "continue_on_fail": bool(layer.get("continue_on_fail", False)),
            }
        )
    return out


def _free_name(kind: str, taken: set[str]) -> str:
    name, n = kind, 1
    while name in taken:
        n += 1
        name = f"{kind}_{n}"
    return name


def _with_defaults(params: dict[str, Any], cls: Any) -> dict[str, Any]:
    properties = cls.params_schema.get("properties", {})
    filled = {k: copy.deepcopy(p["default"]) for k, p in properties.items() if "default" in p}
    filled.update(copy.deepcopy(cls.upgrade_params(params)))
    for key, value in filled.items():
        if properties.get(key, {}).get("type") == "number":
            filled[key] = float(value)  # 1 and 1.0 must hash the same
    return filled


def canonical_reward(reward: dict[str, Any]) -> dict[str, Any]:
    """Weights default to outcome only; once weights are given, a missing one means 0."""
    weights = reward.get("weights") or {"outcome": 1.0}
    turn_weights = {name: float(weights[name]) for name in TURN_WEIGHT_NAMES if weights.get(name)}
    return {
        "weights": {name: float(weights.get(name, 0.0)) for name in WEIGHT_NAMES} | turn_weights,
        "failure_reward": float(reward.get("failure_reward", 0.0)),
    }


def spec_hash(spec: Spec) -> str:
    """SHA-256 of the canonical form: equal for specs that differ only in order or defaults."""
    text = json.dumps(canonical(spec), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()
