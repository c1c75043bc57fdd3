"""The configuration is defined once, by its dataclasses: every stored leaf is one dataclass
field, and the API's schema of the configuration has exactly their fields, defaults and ranges.
"""

import dataclasses
import typing

import pytest
from drf_spectacular.generators import SchemaGenerator

from experiments import config as cfg
from experiments.api.config_fields import NAMES
from training.config import CONFIGS
from training.field_spec import field_metadata, hints, load, optional
from training.fields import RANGE

GOOD = {
    "curriculum": {"families": [{"pool_version": 4, "verifier_version": 9, "levels": [1, 2]}]},
    "model": "tiny-digit-sort",
    "hyperparameters": {"max_steps": 20},
}


def owner(path: list[str], cls: type, algorithm: str) -> tuple[type, str]:
    """The dataclass and field a stored leaf's path ends at."""
    head, *rest = path
    name = head.split("[")[0]
    assert name in {f.name for f in dataclasses.fields(cls)}, f"{name} is no field of {cls}"
    if not rest:
        return cls, name
    inner, _ = optional(hints(cls)[name])
    if typing.get_origin(inner) is list:
        inner = typing.get_args(inner)[0]
    if name == "hyperparameters" and cls is cfg.ExperimentConfig:
        inner = CONFIGS[algorithm]
    assert dataclasses.is_dataclass(inner), f"{head} holds no dataclass"
    return owner(rest, inner, algorithm)


def fields_stored(
    cls: type, algorithm: str, leave_out: frozenset = frozenset()
) -> set[tuple[type, str]]:
    """Every (dataclass, field) whose value is a leaf of the stored form, nested ones followed."""
    out = set()
    for name, hint in hints(cls).items():
        if name in leave_out:
            continue
        inner, _ = optional(hint)
        if typing.get_origin(inner) is list and dataclasses.is_dataclass(typing.get_args(inner)[0]):
            inner = typing.get_args(inner)[0]
        if name == "hyperparameters" and cls is cfg.ExperimentConfig:
            out |= fields_stored(
                CONFIGS[algorithm], algorithm, frozenset(cfg.RESERVED_HYPERPARAMETERS)
            )
        elif dataclasses.is_dataclass(inner):
            out |= fields_stored(inner, algorithm)
        else:
            out.add((cls, name))
    return out


@pytest.mark.parametrize("algorithm", sorted(CONFIGS))
def test_it_stores_each_leaf_from_exactly_one_dataclass_field(algorithm):
    curriculum = {**GOOD["curriculum"], "origin": {"curriculum": 2, "revision": 1}}
    data = {
        **GOOD,
        "curriculum": curriculum,
        "algorithm": algorithm,
        "eval": {"every": 5, "suite": 3},
        "prompt_format": {"kind": "chat", "system_prompt": "Answer briefly."},
        "lora": {"rank": 8, "target_modules": ["q_proj", "v_proj"]},
    }
    leaves = cfg.leaves(cfg.canonical(data))
    owners = [
        owner(path.replace("]", "").split("."), cfg.ExperimentConfig, algorithm) for path in leaves
    ]
    assert len(set(owners)) == len(owners)
    # ...and every field is stored: nothing kept outside the dataclasses, nothing dropped.
    assert set(owners) == fields_stored(cfg.ExperimentConfig, algorithm)


def components() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]


def properties(schema: dict) -> dict:
    return schema["properties"]


@pytest.mark.django_db
def test_the_request_body_states_what_the_parser_enforces():
    schemas = components()
    for cls, name in NAMES.items():
        body = schemas[f"{name}InputRequest"]
        fields = {f.name: f for f in dataclasses.fields(cls)}
        assert set(properties(body)) == set(fields), name
        required = {
            n
            for n, f in fields.items()
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        assert set(body.get("required", [])) == required, name
        for field_name, prop in properties(body).items():
            f = fields[field_name]
            if f.default is not dataclasses.MISSING and not dataclasses.is_dataclass(f.default):
                default = list(f.default) if isinstance(f.default, tuple) else f.default
                assert prop.get("default") == default, (name, field_name)
            bounds = field_metadata(cls, field_name).get(RANGE)
            if bounds is not None:
                limits = prop if "minimum" in prop else prop["items"]
                assert (limits["minimum"], limits["maximum"]) == (bounds.low, bounds.high), (
                    field_name
                )
    engine_fields = {f.name for c in CONFIGS.values() for f in dataclasses.fields(c)}
    hyper = properties(schemas["HyperparametersInputRequest"])
    assert set(hyper) == engine_fields - set(cfg.RESERVED_HYPERPARAMETERS)
    assert (hyper["learning_rate"]["minimum"], hyper["learning_rate"]["maximum"]) == (0, 1)


@pytest.mark.django_db
def test_the_stored_configuration_has_every_field():
    schemas = components()
    for cls, name in NAMES.items():
        omitted = set(getattr(cls, "omitted_when_null", ()))
        assert set(schemas[name]["required"]) == {f.name for f in dataclasses.fields(cls)} - omitted


def test_a_new_field_needs_only_its_dataclass_field():
    """A field added to a part (a LoRA rank, say) is parsed, range-checked, stored and
    documented with nothing else written for it."""

    @dataclasses.dataclass(frozen=True)
    class WithRank(cfg.BudgetSpec):
        rank: int = dataclasses.field(default=8, metadata={RANGE: cfg.Range(1, 256)})
        """Rank of the adapter."""

    assert load(WithRank, {"rank": 16}).rank == 16
    assert dataclasses.asdict(load(WithRank, {}))["rank"] == 8
    with pytest.raises(ValueError, match="rank: must be a whole number from 1 to 256"):
        load(WithRank, {"rank": 0}, "budget")
