"""``manage.py createtoken USERNAME [--team SLUG] [--days N]``: print a new API token."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from crucible.accounts import services
from crucible.accounts.models import Team


class Command(BaseCommand):
    help = "Create a personal API token for USERNAME and print it (it is shown only once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--team", help="restrict the token to this team's objects")
        parser.add_argument(
            "--days",
            type=int,
            default=services.DEFAULT_TOKEN_DAYS,
            help=f"days until it expires (1 to {services.MAX_TOKEN_DAYS}; every token expires)",
        )
        parser.add_argument("--name", default="cli", help="a label to recognise the token by")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user named {options['username']!r}")
        if not 1 <= options["days"] <= services.MAX_TOKEN_DAYS:
            raise CommandError(f"--days must be between 1 and {services.MAX_TOKEN_DAYS}")
        team = None
        if options["team"]:
            team = Team.objects.filter(slug=options["team"]).first()
            if team is None:
                raise CommandError(f"no team with slug {options['team']!r}")
        try:
            issued = services.create_token(user, options["name"], team=team, days=options["days"])
        except services.AccessDenied as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(issued.secret)
