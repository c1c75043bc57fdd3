"""Validation and shapes for the auth, team, member, token and audit endpoints."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from crucible.api.serializers import StrictModelSerializer, StrictSerializer

from .models import ApiToken, AuditEvent, Membership, Role, Team
from .services import MAX_TOKEN_DAYS

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
    team = serializers.SlugField(required=False, allow_null=True)
    days = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_TOKEN_DAYS, default=90
    )


class IssuedTokenSerializer(TokenSerializer):
    token = serializers.CharField(
        read_only=True, help_text="The secret; shown only in this response."
    )

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]
        read_only_fields = fields


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.SlugRelatedField(slug_field="username", read_only=True)
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "actor",
            "action",
            "target_type",
            "target_id",
            "team",
            "created_at",
            "changes",
        ]
        read_only_fields = fields
