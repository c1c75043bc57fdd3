"""Where an audit event's target lives in the web app, worked out when the log is read.

Each app registers, for its models, a resolver from target ids to the paths of their pages
(in its ``AppConfig.ready``), so this package never imports the apps above it. A target
that no longer exists gets no link: the resolvers only answer for rows they find.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TypeVar

from django.db import models

from .models import AuditEvent

M = TypeVar("M", bound=models.Model)
Resolver = Callable[[Collection[int]], Mapping[int, str]]
"""Existing target ids -> the path of each one's page (ids that are gone are left out)."""

_resolvers: dict[str, Resolver] = {}


def register(model: type[models.Model], resolver: Resolver) -> None:
    _resolvers[model._meta.label_lower] = resolver


def by_pk(
    model: type[M], path: Callable[[M], str], *, related: tuple[str, ...] = ()
) -> Resolver:
    """A resolver that loads the rows that still exist and asks ``path`` for each one's page.

    ``related`` names the foreign keys ``path`` follows, loaded in the same query.
    """

    def resolve(ids: Collection[int]) -> dict[int, str]:
        rows = model._default_manager.filter(pk__in=ids).select_related(*related)
        return {row.pk: path(row) for row in rows}

    return resolve


def paths_for(events: Iterable[AuditEvent]) -> dict[int, str]:
    """Event id -> the path of its target's page, for the events whose target still exists.

    One query per target type, whatever the number of events.
    """
    linkable = [e for e in events if e.target_type in _resolvers and e.target_id.isdecimal()]
    wanted: dict[str, set[int]] = defaultdict(set)
    for event in linkable:
        wanted[event.target_type].add(int(event.target_id))
    found = {kind: _resolvers[kind](ids) for kind, ids in wanted.items()}
    paths = {}
    for event in linkable:
        path = found[event.target_type].get(int(event.target_id))
        if path is not None:
            paths[event.pk] = path
    return paths
