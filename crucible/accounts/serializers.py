"""Validation and shapes for the auth, team, member, token and audit endpoints."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from crucible.api.serializers import StrictModelSerializer, StrictSerializer

from . import links
from .models import ApiToken, AuditEvent, Membership, Role, Team
from .services import DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS

User = get_user_model()


class LoginSerializer(StrictSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(
        max_length=256, trim_whitespace=False, style={"input_type": "password"}
    )


class TeamRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    name = serializers.CharField()
    role = serializers.CharField()


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField()
    is_staff = serializers.BooleanField()
    teams = serializers.SerializerMethodField()

    @extend_schema_field(TeamRefSerializer(many=True))
    def get_teams(self, user) -> list[dict]:  # type: ignore[no-untyped-def]
        token = self.context.get("token")
        memberships = Membership.objects.filter(user=user).select_related("team")
        if token is not None and token.team_id is not None:
            memberships = memberships.filter(team_id=token.team_id)
        return TeamRefSerializer(
            [
                {"id": m.team.id, "slug": m.team.slug, "name": m.team.name, "role": m.role}
                for m in memberships
            ],
            many=True,
        ).data


class TeamSerializer(StrictModelSerializer):
    slug = serializers.SlugField(max_length=60, required=False)
    role = serializers.SerializerMethodField()
    member_count = serializers.SerializerMethodField()

    class Meta:
        model = Team
        fields = ["id", "name", "slug", "created_at", "role", "member_count"]
        read_only_fields = ["id", "created_at"]

    def get_role(self, team: Team) -> str | None:
        membership = team.memberships.filter(user=self.context["request"].user).first()
        return membership.role if membership else None

    def get_member_count(self, team: Team) -> int:
        return team.memberships.count()

    def validate_slug(self, value: str) -> str:
        if Team.objects.filter(slug=value).exists():
            raise serializers.ValidationError(
                "A team with this slug already exists.", code="unique"
            )
        return value


class MembershipSerializer(StrictModelSerializer):
    username = serializers.SlugRelatedField(
        source="user", slug_field="username", queryset=User.objects.filter(is_active=True)
    )
    role = serializers.ChoiceField(choices=Role.choices)

    class Meta:
        model = Membership
        fields = ["id", "username", "role", "joined_at"]
        read_only_fields = ["id", "joined_at"]


class MembershipUpdateSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=Role.choices)


class TokenSerializer(StrictModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)

    class Meta:
        model = ApiToken
        fields = [
            "id",
            "name",
            "prefix",
            "team",
            "created_at",
            "expires_at",
            "last_used_at",
            "revoked_at",
        ]
        read_only_fields = fields


class TokenCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=100)
    team = serializers.SlugField(
        required=False,
        allow_null=True,
        help_text="Bind the token to this team; null for all your teams. A team-bound token "
        "may only create tokens for its own team, which is also the default.",
    )
    days = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_TOKEN_DAYS,
        help_text=f"Days until it expires (default {DEFAULT_TOKEN_DAYS}). A token created with "
        "a token cannot outlive it; without this field it is cut to that token's expiry.",
        error_messages={
            "null": f"Every token expires: give 1 to {MAX_TOKEN_DAYS} days, "
            f"or leave the field out for {DEFAULT_TOKEN_DAYS}."
        },
    )


class IssuedTokenSerializer(TokenSerializer):
    token = serializers.CharField(
        read_only=True, help_text="The secret; shown only in this response."
    )

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]
        read_only_fields = fields


class AuditEventListSerializer(serializers.ListSerializer):
    """Resolves the links of a whole page at once: one query per target type, not per row."""

    def to_representation(self, data: Any) -> list[dict[str, Any]]:
        events = list(data.all() if isinstance(data, models.manager.BaseManager) else data)
        self._context["target_paths"] = links.paths_for(events)
        return super().to_representation(events)


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.SlugRelatedField(slug_field="username", read_only=True)
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    target_label = serializers.CharField(
        read_only=True, help_text="The target's name when the event happened."
    )
    target_path = serializers.SerializerMethodField(
        help_text="The path of the target's page in the web app; null once it is deleted "
        "or when it has no page."
    )

    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "actor",
            "action",
            "target_type",
            "target_id",
            "target_label",
            "target_path",
            "team",
            "created_at",
            "changes",
        ]
        read_only_fields = fields
        list_serializer_class = AuditEventListSerializer

    def get_target_path(self, event: AuditEvent) -> str | None:
        paths = self.context.get("target_paths")
        if paths is None:
            paths = links.paths_for([event])
        return paths.get(event.pk)
