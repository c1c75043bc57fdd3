"""Workflows for teams, memberships, tokens and the audit log.

Views and commands call these; each write that must be all-or-nothing is one transaction
and leaves an audit event.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
)
from django.contrib.auth.models import AbstractBaseUser
from django.db import models, transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.text import slugify

from crucible.realtime.publish import publish_to_team

from .models import ApiToken, AuditEvent, Membership, Role, Team, hash_token

TOKEN_PREFIX = "crc_"
DEFAULT_TOKEN_DAYS = 90
# Every token expires: a leaked secret stops working within a year at the latest.
MAX_TOKEN_DAYS = 365
LABEL_CHARS = AuditEvent._meta.get_field("target_label").max_length or 200


class AccessDenied(PermissionError):
    """The caller lacks the role an action needs."""


class TokenRefused(ValueError):
    """A token request asks for more reach or lifetime than its issuer may grant.

    ``field`` names the request field at fault, so the API can point at it.
    """

    def __init__(self, field: str, code: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.code = code


def record(
    actor: AbstractBaseUser | None,
    action: str,
    target: models.Model,
    *,
    team: Team | None = None,
    changes: dict[str, Any] | None = None,
    label: str | None = None,
) -> AuditEvent:
    """Log ``action`` on ``target``; record it before a delete, while the target has its pk.

    ``label`` names the target in the log (default: ``label_of(target)``).
    """
    event = AuditEvent.objects.create(
        actor=actor if actor is not None and actor.is_authenticated else None,
        team=team,
        action=action,
        target_type=target._meta.label_lower,
        target_id=str(target.pk),
        target_label=(label if label is not None else label_of(target))[:LABEL_CHARS],
        changes=changes or {},
    )
    if team is not None:
        # Every audited change is also a live event for the team's open pages.
        live = {
            "type": action,
            "target_type": event.target_type,
            "target_id": event.target_id,
            "target_label": event.target_label,
        }
        transaction.on_commit(lambda: publish_to_team(team.pk, live), robust=True)
    return event


def label_of(target: models.Model) -> str:
    """What the log calls ``target``: its ``audit_label``, else its ``name``, else its text."""
    label = getattr(target, "audit_label", None) or getattr(target, "name", None) or str(target)
    return str(label)


def membership_of(user: AbstractBaseUser, team: Team) -> Membership | None:
    return Membership.objects.filter(user=user, team=team).first()


def require_role(user: AbstractBaseUser, team: Team, needed: str) -> Membership:
    membership = membership_of(user, team)
    if membership is None or not membership.allows(needed):
        raise AccessDenied(f"this needs the {needed} role in team '{team.slug}'")
    return membership


def unique_slug(name: str) -> str:
    base = slugify(name)[:50] or "team"
    slug, n = base, 2
    while Team.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


@transaction.atomic
def create_team(user: AbstractBaseUser, name: str, slug: str | None = None) -> Team:
    team = Team.objects.create(name=name, slug=slug or unique_slug(name))
    Membership.objects.create(user=user, team=team, role=Role.ADMIN)
    record(user, "team.created", team, team=team, changes={"name": name})
    return team


@transaction.atomic
def add_member(
    actor: AbstractBaseUser, team: Team, user: AbstractBaseUser, role: str
) -> Membership:
    require_role(actor, team, Role.ADMIN)
    membership = Membership.objects.create(user=user, team=team, role=role)
    record(
        actor,
        "member.added",
        membership,
        team=team,
        changes={"user": user.get_username(), "role": role},
    )
    return membership


@transaction.atomic
def change_role(actor: AbstractBaseUser, membership: Membership, role: str) -> Membership:
    require_role(actor, membership.team, Role.ADMIN)
    _keep_an_admin(membership, new_role=role)
    old = membership.role
    membership.role = role
    membership.save(update_fields=["role"])
    record(
        actor,
        "member.role_changed",
        membership,
        team=membership.team,
        changes={"role": [old, role]},
    )
    return membership


@transaction.atomic
def remove_member(actor: AbstractBaseUser, membership: Membership) -> None:
    if membership.user_id != actor.pk:
        require_role(actor, membership.team, Role.ADMIN)
    _keep_an_admin(membership, new_role=None)
    record(
        actor,
        "member.removed",
        membership,
        team=membership.team,
        changes={"user": membership.user.get_username()},
    )
    membership.delete()


def _keep_an_admin(membership: Membership, *, new_role: str | None) -> None:
    if membership.role != Role.ADMIN or new_role == Role.ADMIN:
        return
    admins = Membership.objects.select_for_update().filter(team=membership.team, role=Role.ADMIN)
    if admins.count() <= 1:
        raise AccessDenied("a team must keep at least one admin")


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    secret: str  # shown once; only its hash is stored


@transaction.atomic
def create_token(
    user: AbstractBaseUser,
    name: str,
    *,
    team: Team | None = None,
    days: int | None = None,
    issuer: ApiToken | None = None,
) -> IssuedToken:
    """Mint a token for ``user``; ``issuer`` is the token the request came with, if any.

    A token never reaches wider or lives longer than its issuer. ``days=None`` means the
    default lifetime, cut short to the issuer's own expiry.
    """
    if team is not None and membership_of(user, team) is None:
        raise AccessDenied(f"you are not a member of team '{team.slug}'")
    _check_token_reach(team, issuer)
    expires = _token_expiry(days, issuer)
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        team=team,
        name=name,
        prefix=secret[:12],
        key_hash=hash_token(secret),
        expires_at=expires,
    )
    record(
        user, "token.created", token, team=team, changes={"name": name, "expires_at": str(expires)}
    )
    return IssuedToken(token=token, secret=secret)


def default_token_team(issuer: ApiToken | None) -> Team | None:
    """A token minted by a team-bound token stays in that team unless the request names one."""
    return issuer.team if issuer is not None else None


def _check_token_reach(team: Team | None, issuer: ApiToken | None) -> None:
    if issuer is None or issuer.team_id is None:
        return
    if team is None or team.pk != issuer.team_id:
        raise TokenRefused(
            "team",
            "wider_than_token",
            f"A token bound to team '{issuer.team.slug}' can only create tokens "
            "for that team.",
        )


def _token_expiry(days: int | None, issuer: ApiToken | None) -> datetime:
    if days is not None and not 1 <= days <= MAX_TOKEN_DAYS:
        raise TokenRefused(
            "days", "out_of_range", f"A token lives from 1 to {MAX_TOKEN_DAYS} days."
        )
    expires = timezone.now() + timedelta(days=days or DEFAULT_TOKEN_DAYS)
    # Tokens made before every token had to expire may carry no expiry: the cap still holds.
    limit = issuer.expires_at if issuer is not None else None
    if limit is None or expires <= limit:
        return expires
    if days is None:
        return limit
    raise TokenRefused(
        "days",
        "outlives_token",
        f"The token making this request expires at {limit:%Y-%m-%d %H:%M} UTC; "
        "a token it creates cannot live longer.",
    )


@transaction.atomic
def revoke_token(actor: AbstractBaseUser, token: ApiToken) -> ApiToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        record(actor, "token.revoked", token, team=token.team, changes={"name": token.name})
    return token


class TokenRejected(Exception):
    """The presented token is unknown, revoked or expired; the message says which."""


def authenticate_token(raw: str) -> ApiToken:
    token = ApiToken.objects.select_related("user", "team").filter(key_hash=hash_token(raw)).first()
    if token is None:
        raise TokenRejected("unknown API token")
    if token.revoked_at is not None:
        raise TokenRejected("this API token was revoked")
    if token.expires_at is not None and token.expires_at <= timezone.now():
        raise TokenRejected("this API token has expired")
    if not token.user.is_active:
        raise TokenRejected("the token's user is inactive")
    # Only touch the row once a minute: a busy script must not write on every request.
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def session_user(session_key: str | None) -> AbstractBaseUser | None:
    """The active user a session is signed in as now, or None.

    Checked as Django's auth middleware checks a request, but without changing the session:
    None once it was logged out or expired, or once the user's password changed after it
    signed in (its auth hash no longer matches).
    """
    # Django's keys are letters and digits; anything else (a NUL, say) names no session and
    # must not reach the database.
    if not session_key or not (session_key.isascii() and session_key.isalnum()):
        return None
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user_id, backend = session.get(SESSION_KEY), session.get(BACKEND_SESSION_KEY)
    if user_id is None or backend not in settings.AUTHENTICATION_BACKENDS:
        return None
    user = load_backend(backend).get_user(user_id)
    signed = session.get(HASH_SESSION_KEY)
    if user is None or not signed:
        return None
    current = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    return user if any(constant_time_compare(signed, h) for h in current) else None


def signed_in(raw_token: str | None, session_key: str | None) -> bool:
    """Whether a request with this bearer token (else this session) comes from a user."""
    if raw_token is not None:
        try:
            authenticate_token(raw_token)
        except TokenRejected:
            return False
        return True
    return session_user(session_key) is not None


def tokens_visible_to(
    user: AbstractBaseUser, token: ApiToken | None = None
) -> models.QuerySet[ApiToken]:
    """The tokens a request may list and revoke: a team-bound token sees only its team's."""
    tokens = ApiToken.objects.filter(user=user)
    if token is not None and token.team_id is not None:
        tokens = tokens.filter(team_id=token.team_id)
    return tokens


def teams_visible_to(
    user: AbstractBaseUser, token: ApiToken | None = None
) -> models.QuerySet[Team]:
    """The teams whose objects a request may see: the user's, narrowed by a team-bound token."""
    teams = Team.objects.filter(memberships__user=user)
    if token is not None and token.team_id is not None:
        teams = teams.filter(pk=token.team_id)
    return teams


def live_team_ids(user_id: int, token_id: int | None) -> list[int] | None:
    """The teams an open connection may still follow, or None when it must close.

    It closes when its user was deactivated, when the token it authenticated with was
    revoked or has expired, or when a team-bound token lost its one team. A session or an
    unbound token that lost some teams keeps the others (and the user's own events).
    """
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return None
    token = None
    if token_id is not None:
        token = ApiToken.objects.active().filter(pk=token_id, user=user).first()
        if token is None:
            return None
    team_ids = list(teams_visible_to(user, token).values_list("id", flat=True))
    if token is not None and token.team_id is not None and not team_ids:
        return None
    return team_ids
