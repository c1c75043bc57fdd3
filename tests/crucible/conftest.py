"""Fixtures for the API-wide suites: the OpenAPI document the app serves."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def openapi() -> dict[str, Any]:
    """The schema as /api/schema/ serves it, generated in-process (no database needed)."""
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)
