from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "crucible.accounts"
    label = "accounts"
    verbose_name = "Teams and access"
