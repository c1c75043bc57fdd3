"""Writes crucible_client/schema_types.py: a TypedDict per object and a Literal per enum of
the API's OpenAPI schema (frontend/openapi/schema.yaml), so the client's bodies and answers
are typed from the one contract. Run it after ``make types``:

    python client/generate_types.py [schema.yaml]

tests/client/test_schema_types.py fails when the committed file differs from what this
writes."""

from __future__ import annotations

import keyword
import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
SCHEMA = HERE.parent / "frontend" / "openapi" / "schema.yaml"
TARGET = HERE / "crucible_client" / "schema_types.py"
SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
HEADER = '''"""The API's bodies and answers, generated from its OpenAPI schema by
client/generate_types.py: do not edit by hand."""

# ruff: noqa: E501, UP040
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict
'''


def type_of(node: dict[str, Any]) -> str:
    """The Python type of a schema node, as source text."""
    if "$ref" in node:
        text = node["$ref"].rsplit("/", 1)[-1]
    elif "allOf" in node and len(node["allOf"]) == 1:
        text = type_of(node["allOf"][0])
    elif "oneOf" in node or "anyOf" in node:
        options = [type_of(option) for option in node.get("oneOf") or node["anyOf"]]
        text = " | ".join(dict.fromkeys(options))
    elif "enum" in node:
        text = literal(node["enum"])
    elif node.get("type") == "array":
        text = f"list[{type_of(node.get('items', {}))}]"
    elif node.get("type") == "object" or "additionalProperties" in node:
        extra = node.get("additionalProperties")
        text = f"dict[str, {type_of(extra) if isinstance(extra, dict) and extra else 'Any'}]"
    else:
        text = SCALARS.get(node.get("type", ""), "Any")
    if node.get("nullable") and text != "Any" and not text.endswith("| None"):
        text += " | None"
    return text


def literal(values: list[Any]) -> str:
    shown = [repr(value) for value in values if value is not None]
    return f"Literal[{', '.join(shown)}]" if shown else "None"


def definition(name: str, node: dict[str, Any]) -> str:
    properties: dict[str, Any] = node.get("properties") or {}
    if node.get("type") != "object" or not properties:
        text = type_of(node) if "properties" not in node else "dict[str, Any]"
        return f"{name}: TypeAlias = {text!r}\n"
    required = set(node.get("required", []))
    fields = []
    for field, spec in properties.items():
        text = type_of(spec)
        if field not in required:
            text = f"NotRequired[{text}]"
        fields.append((field, text))
    doc = (node.get("description") or "").strip().splitlines()
    if all(field.isidentifier() and not keyword.iskeyword(field) for field, _ in fields):
        body = "".join(f"    {field}: {text}\n" for field, text in fields)
        summary = f'    """{doc[0].replace(chr(92), "")}"""\n\n' if doc else ""
        return f"class {name}(TypedDict):\n{summary}{body}"
    body = "".join(f"        {field!r}: {text!r},\n" for field, text in fields)
    return f"{name} = TypedDict(\n    {name!r},\n    {{\n{body}    }},\n)\n"


def generate(schema: dict[str, Any]) -> str:
    schemas: dict[str, Any] = schema["components"]["schemas"]
    # Aliases first (enums, lists): a class body may name them, an alias may not name a class
    # defined later.
    aliases = [n for n, s in schemas.items() if not (s.get("type") == "object" and s.get("properties"))]
    classes = [n for n in schemas if n not in aliases]
    blocks = [definition(name, schemas[name]) for name in aliases + classes]
    return HEADER + "\n" + "\n\n".join(blocks)


def main(argv: list[str]) -> None:
    source = Path(argv[0]) if argv else SCHEMA
    TARGET.write_text(generate(yaml.safe_load(source.read_text())))


if __name__ == "__main__":
    main(sys.argv[1:])
