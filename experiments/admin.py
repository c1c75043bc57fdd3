"""Site admins set cost rates per queue and team quotas here; usage is shown read-only."""

from django.contrib import admin

from .models import CostRate, TeamQuota, Usage


@admin.register(CostRate)
class CostRateAdmin(admin.ModelAdmin):
    list_display = [
        "queue",
        "per_worker_hour",
        "per_million_generated_tokens",
        "per_million_judge_tokens",
        "currency",
        "updated_at",
    ]


@admin.register(TeamQuota)
class TeamQuotaAdmin(admin.ModelAdmin):
    list_display = ["team", "max_concurrent_runs", "max_worker_hours_per_month", "updated_at"]


@admin.register(Usage)
class UsageAdmin(admin.ModelAdmin):
    list_display = ["month", "team", "kind", "run", "family", "queue", "worker_seconds", "cost"]
    list_filter = ["queue", "kind", "month"]
    readonly_fields = [f.name for f in Usage._meta.fields]

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False
