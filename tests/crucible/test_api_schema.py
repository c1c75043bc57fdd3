import jsonschema
import pytest

pytestmark = pytest.mark.django_db

METHODS = {"get", "post", "put", "patch", "delete"}


def operations(openapi):  # type: ignore[no-untyped-def]
    for path, item in openapi["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def json_schema(node):  # type: ignore[no-untyped-def]
    """OpenAPI 3.0's ``nullable`` spelt as JSON Schema's null type (a nullable reference,
    ``allOf`` a component, as "that or null")."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {k: json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable") and "type" in node:
        converted["type"] = [node["type"], "null"]
    elif node.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def closed(node):  # type: ignore[no-untyped-def]
    """``node`` with every object that lists its properties closed to any others, so a check
    against it also catches a key the schema does not document."""
    if isinstance(node, list):
        return [closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {k: closed(v) for k, v in node.items()}
    if "properties" in node and "additionalProperties" not in node:
        converted["additionalProperties"] = False
    return converted


def documented(openapi: dict, path: str, method: str, status: str = "200") -> dict:
    """The JSON Schema of an operation's answer, closed: undocumented keys fail it too."""
    operation = openapi["paths"][path][method]
    schema = operation["responses"][status]["content"]["application/json"]["schema"]
    return closed(json_schema({**schema, "components": openapi["components"]}))


def error_schema(openapi) -> dict:  # type: ignore[no-untyped-def]
    components = json_schema(openapi["components"])
    return {"$ref": "#/components/schemas/ApiErrors", "components": components}


def test_it_documents_the_error_answers_of_every_operation_in_the_one_shape(openapi):
    for path, method, operation in operations(openapi):
        expected = {"400", "401", "403", "404", "429"}
        if method in {"post", "put", "patch"}:
            expected |= {"413", "415"}
        responses = operation["responses"]
        assert expected <= set(responses), (method, path)
        for code in expected:
            schema = responses[code]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ApiErrors"}, (method, path, code)


def test_it_answers_errors_that_match_the_documented_shape(api, team, openapi):
    answers = [
        api.get("/api/v1/families/999/"),
        api.post("/api/v1/families/", {"team": "reasoning"}, format="json"),
        api.get("/api/v1/nowhere/"),
    ]
    for response in answers:
        assert response.status_code in {400, 404}
        jsonschema.validate(response.json(), error_schema(openapi))


def test_it_documents_the_team_filter_of_scoped_lists(openapi):
    def query(path: str) -> set[str]:
        parameters = openapi["paths"][path]["get"].get("parameters", [])
        return {p["name"] for p in parameters if p["in"] == "query"}

    for path in ["/api/v1/families/", "/api/v1/verifiers/", "/api/v1/audit/"]:
        assert "team" in query(path), path
    assert "team" not in query("/api/v1/tokens/")
