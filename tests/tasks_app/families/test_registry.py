import pytest

from tasks_app.families.registry import BUILTIN_KINDS, UnknownKind, describe_kinds, load_kind


def test_it_loads_every_builtin_kind_with_the_full_shape() -> None:
    for name in BUILTIN_KINDS:
        assert load_kind(name).name == name


def test_it_adds_kinds_from_the_extra_mapping() -> None:
    module = load_kind("digits", {"digits": "tasks_app.families.string_ops"})
    assert module.label == "String operations"


def test_it_rejects_unknown_kinds_and_incomplete_modules() -> None:
    with pytest.raises(UnknownKind):
        load_kind("nope")
    with pytest.raises(TypeError, match="lacks"):
        load_kind("broken", {"broken": "tasks_app.families.common"})


def test_it_describes_kinds_as_json() -> None:
    kinds = {k["name"]: k for k in describe_kinds()}
    assert kinds["arithmetic"]["procedural"] and not kinds["math-word"]["procedural"]
    assert kinds["sql-query"]["difficulty_levels"] == [1, 2, 3, 4, 5]


def test_it_describes_each_kinds_default_verifier_from_its_module() -> None:
    from tests.tasks_app.families import echo_kind

    extra = {"echo": "tests.tasks_app.families.echo_kind"}
    kinds = {k["name"]: k for k in describe_kinds(extra)}
    assert kinds["echo"]["default_verifier"] == echo_kind.default_verifier()
    python = kinds["python-function"]["default_verifier"]
    assert [layer["name"] for layer in python["layers"]][:2] == ["parses", "no_unsafe_imports"]
