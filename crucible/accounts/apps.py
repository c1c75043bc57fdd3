from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "crucible.accounts"
    label = "accounts"
    verbose_name = "Teams and access"

    def ready(self) -> None:
        from crucible.api import schema  # noqa: F401 - registers the OpenAPI auth extension

        from . import links, signals
        from .models import Membership, Team

        signals.connect()
        # Team and membership events open the team's settings page.
        links.register(Team, links.by_pk(Team, lambda team: "/settings/team"))
        links.register(Membership, links.by_pk(Membership, lambda member: "/settings/team"))
