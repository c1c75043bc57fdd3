from django.contrib import admin

from .models import ApiToken, AuditEvent, Membership, Team


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "created_at"]
    inlines = [MembershipInline]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "team", "prefix", "created_at", "expires_at", "revoked_at"]
    readonly_fields = ["key_hash", "prefix"]


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor", "team", "action", "target_type", "target_id"]
    list_filter = ["action"]
