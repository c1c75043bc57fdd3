"""Workflows over task families, pool versions, verifiers and curricula.

Views, commands and Celery tasks call these; the pure logic they wire lives in
``tasks_app.families``, ``tasks_app.pools``, ``tasks_app.verifiers`` and
``tasks_app.curriculum``.
"""
