from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "crucible.accounts"
    label = "accounts"
    verbose_name = "Teams and access"

    def ready(self) -> None:
        from crucible.api import schema  # noqa: F401 - registers the OpenAPI auth extension
