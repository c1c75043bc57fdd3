"""Serializer fields and helpers shared by the tasks_app endpoints."""

from __future__ import annotations

from typing import Any

from django.db.models import Model
from django.utils.text import slugify
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.accounts.models import Team
from crucible.api.field_errors import slug_conflicts_refused, slug_taken, slug_taken_message
from crucible.api.scoping import TeamRolePermission, TeamScopedMixin


class TeamSlugField(serializers.SlugRelatedField):
    """The owning team by slug; resolution and role checks happen in the view's create."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("slug_field", "slug")
        kwargs.setdefault("queryset", Team.objects.all())
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str) or not data:
            raise serializers.ValidationError("must be a team slug")
        return data


def unique_slug_for(model: type[Model], team: Team, name: str) -> str:
    base = slugify(name)[:50] or model._meta.model_name or "item"
    slug, n = base, 2
    while model.objects.filter(team=team, slug=slug).exists():  # type: ignore[attr-defined]
        slug, n = f"{base}-{n}", n + 1
    return slug


def checked_slug(model: type[Model], team: Team, slug: str | None, name: str) -> str:
    """The requested slug if free in the team, else a 400; a fresh one when none was asked."""
    if not slug:
        return unique_slug_for(model, team, name)
    if model.objects.filter(team=team, slug=slug).exists():  # type: ignore[attr-defined]
        raise slug_taken(model)
    return slug


class SlugFreeInTeamMixin:
    # On an edit, a slug that another object of the same team has is a 400 on ``slug``; on
    # create the team is only resolved in the view, which calls ``checked_slug``. (A comment,
    # not a docstring: the schema would show it as the serializer's description.)

    def validate_slug(self, value: str) -> str:
        instance = self.instance  # type: ignore[attr-defined]
        if instance is None or value == instance.slug:
            return value
        model = type(instance)
        if model.objects.filter(team=instance.team_id, slug=value).exists():
            raise serializers.ValidationError(slug_taken_message(model), code="unique")
        return value


class TeamOwnedViewSet(TeamScopedMixin, viewsets.ModelViewSet):
    """CRUD over a team-owned, slugged model; subclasses say how to create one.

    The team comes from the body (or ``?team=``) and needs the editor role; the team of an
    existing object never changes.
    """

    permission_classes = [TeamRolePermission]
    search_fields = ["name", "slug", "description"]
    http_method_names = ["get", "post", "patch", "delete"]
    model: type[Model]

    def create_object(self, team: Team, slug: str, data: dict[str, Any]) -> Model:
        raise NotImplementedError

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        with slug_conflicts_refused(self.model):
            return super().create(request, *args, **kwargs)

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        with slug_conflicts_refused(self.model):
            return super().update(request, *args, **kwargs)

    def perform_create(self, serializer: serializers.Serializer) -> None:
        data = serializer.validated_data
        team = self.team_for_write(data.pop("team", None))
        slug = checked_slug(self.model, team, data.pop("slug", None), data["name"])
        serializer.instance = self.create_object(team, slug, data)

    def perform_update(self, serializer: serializers.Serializer) -> None:
        serializer.validated_data.pop("team", None)
        super().perform_update(serializer)

    def refuse_delete_if_versioned(self, instance: Model, what: str) -> None:
        if instance.versions.exists():  # type: ignore[attr-defined]
            raise serializers.ValidationError(
                {"non_field_errors": [f"A {what} with versions is kept: experiments may pin them."]}
            )
