"""Workflows that wire tasks_app (families, verifiers) into the training engine."""
