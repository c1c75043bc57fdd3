"""Shared fixtures; service-dependent tests skip (or fail under REQUIRE_SERVICES=1)."""
