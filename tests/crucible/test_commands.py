from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from crucible.accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def test_it_prints_a_working_token_for_a_user(owner, team):
    out = StringIO()
    call_command("createtoken", "owner", "--team", "reasoning", "--days", "3", stdout=out)
    secret = out.getvalue().strip()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert client.get("/api/v1/auth/me/").json()["teams"][0]["slug"] == "reasoning"
    assert ApiToken.objects.get().team.slug == "reasoning"


def test_it_names_an_unknown_user_or_team(owner):
    with pytest.raises(CommandError, match="no user named 'ghost'"):
        call_command("createtoken", "ghost")
    with pytest.raises(CommandError, match="no team with slug 'nope'"):
        call_command("createtoken", "owner", "--team", "nope")



def test_it_refuses_a_token_that_never_expires_on_the_command_line(owner):
    with pytest.raises(CommandError, match="--days must be between 1 and 365"):
        call_command("createtoken", "owner", "--days", "0")
    assert ApiToken.objects.count() == 0

def test_it_bootstraps_an_admin_login_and_default_team_once(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    first, second = StringIO(), StringIO()
    call_command("bootstrap", stdout=first)
    call_command("bootstrap", stdout=second)
    password = (tmp_path / "admin_password").read_text()
    assert f"admin / {password}" in first.getvalue() and f"admin / {password}" in second.getvalue()
    assert APIClient().login(username="admin", password=password)
