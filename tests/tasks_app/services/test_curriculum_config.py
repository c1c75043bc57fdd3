import dataclasses

import pytest
from rest_framework.exceptions import ValidationError
from rest_framework.fields import empty
from rest_framework.serializers import Serializer

from tasks_app import curriculum as policy
from tasks_app.services.curriculum_config import CurriculumConfigSerializer, validated


def dataclass_defaults(cls: type) -> dict[str, object]:
    return {f.name: f.default for f in dataclasses.fields(cls)}


def serializer_defaults(serializer: Serializer) -> dict[str, object]:
    return {name: field.default for name, field in serializer.fields.items()}


def test_it_has_the_fields_and_defaults_of_a_pinned_family() -> None:
    family = CurriculumConfigSerializer().fields["families"].child
    assert serializer_defaults(family) == {
        **dataclass_defaults(policy.PinnedFamily),
        "version": empty,  # required, as in the dataclass
    }
    assert dataclass_defaults(policy.PinnedFamily)["version"] is dataclasses.MISSING


def test_it_has_the_fields_and_defaults_of_the_policy() -> None:
    expected = dataclass_defaults(policy.CurriculumConfig)
    found = serializer_defaults(CurriculumConfigSerializer())
    assert set(found) == set(expected)
    assert found["families"] is empty and expected["families"] is dataclasses.MISSING
    assert found["band"] == list(expected["band"])  # type: ignore[call-overload]
    for name in ("floor", "window", "step", "dynamic"):
        assert found[name] == expected[name], name


def test_it_pins_a_family_with_the_same_knobs_the_policy_gives_it() -> None:
    # A pinned family is the policy's family with a pool version in place of its name.
    pinned = dataclass_defaults(policy.PinnedFamily)
    family = dataclass_defaults(policy.FamilyCurriculum)
    del pinned["version"], family["name"], family["levels"]
    assert pinned.pop("levels") is None  # default: the version's train levels
    assert pinned == family


def test_it_fills_in_the_defaults_of_a_stored_config() -> None:
    assert validated({"families": [{"version": 4}]}) == {
        "families": [{"version": 4, "weight": 1.0, "levels": None, "initial": None}],
        "band": [0.3, 0.7],
        "floor": 0.05,
        "window": 64,
        "step": 0.2,
        "dynamic": True,
    }


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"families": [{"version": 4}], "floor": "0.1"}, "floor"),
        ({"families": [{"version": 4}], "dynamic": 1}, "dynamic"),
        ({"families": [{"version": 4}], "window": 64.0}, "window"),
        ({"families": [{"version": True}]}, "families[0].version"),
        ({"families": [{"version": 4, "weight": True}]}, "families[0].weight"),
        ({"families": [{"version": 4}], "band": [0.3]}, "band"),
        ({"families": [{"version": 4}], "band": [0.3, "0.7"]}, "band"),
        ({"families": [{"version": 4, "levels": [1, 2.5]}]}, "families[0].levels[1]"),
        ({"families": [{"version": 4}], "colour": "red"}, "colour"),
        ({"families": []}, "families"),
        (["not", "an", "object"], ""),
    ],
)
def test_it_refuses_a_value_of_the_wrong_json_type(config: dict, field: str) -> None:
    with pytest.raises(ValidationError) as raised:
        validated(config)
    assert set(raised.value.detail) == {field}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("config", "field", "reason"),
    [
        ({"families": [{"version": 0}]}, "families[0].version", "pool version of your team"),
        ({"families": [{"version": 4, "weight": -1.0}]}, "families[0].weight", "from 0 to"),
        ({"families": [{"version": 4}], "floor": 1.0}, "floor", "below 1"),
        ({"families": [{"version": 4}], "window": 0}, "window", "from 1 to"),
        ({"families": [{"version": 4}], "band": [0.7, 0.3]}, "band", "low < high"),
        ({"families": [{"version": n} for n in range(1, 258)]}, "families", "at most 256"),
    ],
)
def test_it_refuses_a_value_out_of_the_range_its_dataclass_field_gives(
    config: object, field: str, reason: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        validated(config)
    assert set(raised.value.detail) == {field}  # type: ignore[arg-type]
    assert reason in str(raised.value.detail[field][0])  # type: ignore[index,call-overload]


def test_it_stores_a_whole_number_weight_as_a_number_as_before() -> None:
    stored = validated({"families": [{"version": 4, "weight": 2}]})
    assert stored["families"][0]["weight"] == 2.0
    assert isinstance(stored["families"][0]["weight"], float)
