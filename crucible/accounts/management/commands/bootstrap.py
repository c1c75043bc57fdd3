"""``manage.py bootstrap``: make the embedded default usable on first start.

Creates an ``admin`` superuser with a generated password (kept in var/admin_password,
mode 0600) and a ``default`` team, then prints the URL and the login.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from crucible.accounts import services
from crucible.accounts.models import Team


class Command(BaseCommand):
    help = "Create the admin login and the default team if missing, and print how to sign in."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000")

    def handle(self, *args: Any, **options: Any) -> None:
        password_file = settings.VAR_DIR / "admin_password"
        User = get_user_model()
        user = User.objects.filter(username="admin").first()
        if user is None or not password_file.exists():
            password = secrets.token_urlsafe(12)
            if user is None:
                user = User.objects.create_superuser("admin", "admin@localhost", password)
            else:
                user.set_password(password)
                user.save(update_fields=["password"])
            password_file.write_text(password)
            password_file.chmod(0o600)
        if not Team.objects.filter(slug="default").exists():
            services.create_team(user, "Default team", "default")
        password = password_file.read_text().strip()
        self.stdout.write(self.style.SUCCESS(f"Crucible is at {options['url']}"))
        self.stdout.write(f"  login:    admin / {password}")
        self.stdout.write(f"  API docs: {options['url']}/api/docs/")
