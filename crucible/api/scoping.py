"""Team scoping for every API endpoint in one place.

A user sees only the objects of teams they belong to (narrowed further by a team-bound
token). Another team's object is a 404, never a 403 that would leak its existence.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from rest_framework import exceptions, permissions

from crucible.accounts.models import ApiToken, Membership, Role, Team
from crucible.accounts.services import teams_visible_to


def request_token(request) -> ApiToken | None:  # type: ignore[no-untyped-def]
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, ApiToken) else None


def visible_teams(request) -> QuerySet[Team]:  # type: ignore[no-untyped-def]
    """The caller's teams; an anonymous caller is a 401 here, whatever the view's permissions.

    Every scoped queryset starts from this, so a view that replaces the default permission
    classes still cannot query with an anonymous user (which would be a 500, not a 401).
    """
    if not request.user.is_authenticated:
        raise exceptions.NotAuthenticated()
    return teams_visible_to(request.user, request_token(request))


class TeamScopedMixin:
    """For viewsets over models with a ``team`` foreign key (or ``team_path`` to one).

    - ``get_queryset`` keeps only rows of the caller's teams, optionally ``?team=<slug>``;
    - writes need the ``write_role`` in the object's team (viewers read only).
    """

    team_path = "team"
    write_role = Role.EDITOR

    def scope(self, queryset: QuerySet) -> QuerySet:
        request = self.request  # type: ignore[attr-defined]
        queryset = queryset.filter(**{f"{self.team_path}__in": visible_teams(request)})
        slug = request.query_params.get("team")
        if slug:
            queryset = queryset.filter(**{f"{self.team_path}__slug": slug})
        return queryset

    def team_for_write(self, slug: str | None) -> Team:
        """Resolve the team named in a create request, checking the caller's role."""
        request = self.request  # type: ignore[attr-defined]
        slug = slug or request.query_params.get("team")
        if not slug:
            raise exceptions.ValidationError({"team": ["This field is required."]})
        team = get_object_or_404(visible_teams(request), slug=slug)
        check_role(request, team, self.write_role)
        return team


def check_role(request, team: Team, needed: str) -> None:  # type: ignore[no-untyped-def]
    membership = Membership.objects.filter(user=request.user, team=team).first()
    if membership is None or not membership.allows(needed):
        raise exceptions.PermissionDenied(f"This needs the {needed} role in team '{team.slug}'.")


class TeamMemberPermission(permissions.IsAuthenticated):
    """Signed in and a member of some team (a team-bound token: of its team). For what
    belongs to the platform rather than to a team (workers, their models, cost rates, the
    sandbox): someone who works in no team has no use for it and is not shown it."""

    message = "This needs membership of a team."

    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        return super().has_permission(request, view) and visible_teams(request).exists()


class TeamRolePermission(permissions.IsAuthenticated):
    """Signed-in callers only; object-level: safe methods for any member, writes for the
    view's ``write_role``."""

    def has_object_permission(self, request, view, obj) -> bool:  # type: ignore[no-untyped-def]
        if request.method in permissions.SAFE_METHODS:
            return True
        team = obj
        for part in getattr(view, "team_path", "team").split("__"):
            team = getattr(team, part)
        check_role(request, team, getattr(view, "write_role", Role.EDITOR))
        return True
