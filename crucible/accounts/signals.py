"""Open websockets lose what their user or token loses, when they lose it.

Any write that can narrow access (a membership changed or deleted, a token revoked or
deleted, a user deactivated or given a new password, a session logged out) tells that
user's open sockets to re-check, whichever path made it: the API's services, the admin, a
management command, or a cascade from a deleted team.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from crucible.realtime.publish import publish_access_changed

from .models import ApiToken, Membership


def access_changed(user_id: int) -> None:
    # After commit: the sockets re-read memberships and tokens and must see the change.
    transaction.on_commit(lambda: publish_access_changed(user_id), robust=True)


def _membership_changed(sender: Any, instance: Membership, **kwargs: Any) -> None:
    access_changed(instance.user_id)


def _token_changed(sender: Any, instance: ApiToken, created: bool = False, **kwargs: Any) -> None:
    # A new token narrows nothing; saves after that may revoke it or shorten its life.
    if not created:
        access_changed(instance.user_id)


def _user_saved(
    sender: Any, instance: Any, created: bool = False, update_fields: Any = None, **kwargs: Any
) -> None:
    # A password change ends the sessions signed in with the old one (their auth hash no
    # longer matches); a save of other fields alone (the last login) changes no access.
    if created or (update_fields is not None and not {"password", "is_active"} & update_fields):
        return
    access_changed(instance.pk)


def _logged_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is None:
        return
    # Django ends the session just after this signal; end it first, so a socket that
    # re-checks at once already finds it gone. (Channels' logout sends no request.)
    session = getattr(request, "session", None)
    if session is not None:
        session.flush()
    access_changed(user.pk)


def connect() -> None:
    post_save.connect(_membership_changed, sender=Membership, dispatch_uid="access.membership")
    post_delete.connect(_membership_changed, sender=Membership, dispatch_uid="access.left")
    post_save.connect(_token_changed, sender=ApiToken, dispatch_uid="access.token")
    post_delete.connect(_token_changed, sender=ApiToken, dispatch_uid="access.token_deleted")
    post_save.connect(_user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="access.user")
    user_logged_out.connect(_logged_out, dispatch_uid="access.logged_out")
