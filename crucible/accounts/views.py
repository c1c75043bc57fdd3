"""Auth, teams, members, tokens and audit endpoints: validate, then call services."""

from __future__ import annotations

from django.contrib.auth import authenticate, login, logout
from django.shortcuts import get_object_or_404
from drf_spectacular.plumbing import build_array_type, build_basic_type
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, mixins, permissions, status, viewsets
from rest_framework.authentication import SessionAuthentication
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.api.scoping import TeamScopedMixin, request_token, visible_teams

from . import services
from .filters import AuditFilter
from .models import ApiToken, AuditEvent, Membership, Team
from .serializers import (
    AuditEventSerializer,
    IssuedTokenSerializer,
    LoginSerializer,
    MembershipSerializer,
    MembershipUpdateSerializer,
    MeSerializer,
    TeamSerializer,
    TokenCreateSerializer,
    TokenSerializer,
)
from .throttling import LoginRateThrottle


def me_payload(request: Request, user=None) -> dict:  # type: ignore[no-untyped-def]
    return MeSerializer(user or request.user, context={"token": request_token(request)}).data


class LoginView(APIView):
    permission_classes = [permissions.AllowAny]
    throttle_classes = [LoginRateThrottle]

    def check_permissions(self, request: Request) -> None:
        # Login CSRF: without this, a form on another site could sign the visitor's browser
        # into the attacker's account. The app sends its CSRF token with every write.
        SessionAuthentication().enforce_csrf(request)
        super().check_permissions(request)

    @extend_schema(
        request=LoginSerializer,
        responses={
            200: MeSerializer,
            400: OpenApiResponse(description="invalid_credentials or a field error"),
            403: OpenApiResponse(description="the CSRF cookie or X-CSRFToken header is missing"),
        },
    )
    def post(self, request: Request) -> Response:
        data = LoginSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, **data.validated_data)
        if user is None:
            raise exceptions.ValidationError(
                {
                    "non_field_errors": [
                        exceptions.ErrorDetail(
                            "Wrong username or password.", code="invalid_credentials"
                        )
                    ]
                }
            )
        login(request._request, user)
        return Response(me_payload(request, user))


class LogoutView(APIView):
    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        return Response(me_payload(request))


class TeamViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Your teams, with your role in each; creating one makes you its admin."""

    queryset = Team.objects.none()  # for the schema; get_queryset scopes real requests
    serializer_class = TeamSerializer
    lookup_field = "slug"

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return visible_teams(self.request).distinct().order_by("name")

    def perform_create(self, serializer: TeamSerializer) -> None:
        data = serializer.validated_data
        serializer.instance = services.create_team(
            self.request.user, data["name"], data.get("slug")
        )


class MemberViewSet(viewsets.ModelViewSet):
    """Members of a team and their roles (viewer, editor, admin); changes need the admin role."""

    queryset = Membership.objects.none()
    serializer_class = MembershipSerializer
    http_method_names = ["get", "post", "patch", "delete"]

    def team(self):  # type: ignore[no-untyped-def]
        if getattr(self, "swagger_fake_view", False):
            return None
        return get_object_or_404(visible_teams(self.request), slug=self.kwargs["team_slug"])

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return Membership.objects.filter(team=self.team()).select_related("user")

    def perform_create(self, serializer: MembershipSerializer) -> None:
        team = self.team()
        user = serializer.validated_data["user"]
        if Membership.objects.filter(team=team, user=user).exists():
            raise exceptions.ValidationError({"username": ["Already a member of this team."]})
        serializer.instance = services.add_member(
            self.request.user, team, user, serializer.validated_data["role"]
        )

    @extend_schema(request=MembershipUpdateSerializer, responses=MembershipSerializer)
    def partial_update(self, request: Request, *args, **kwargs) -> Response:  # type: ignore[no-untyped-def]
        body = MembershipUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        membership = services.change_role(
            request.user, self.get_object(), body.validated_data["role"]
        )
        return Response(MembershipSerializer(membership).data)

    def perform_destroy(self, instance: Membership) -> None:
        services.remove_member(self.request.user, instance)


class TokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your personal API tokens: the secret is shown once at creation; DELETE revokes."""

    queryset = ApiToken.objects.none()
    serializer_class = TokenSerializer

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return services.tokens_visible_to(
            self.request.user, request_token(self.request)
        ).select_related("team")

    @extend_schema(request=TokenCreateSerializer, responses={201: IssuedTokenSerializer})
    def create(self, request: Request) -> Response:
        body = TokenCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        issuer = request_token(request)
        try:
            issued = services.create_token(
                request.user,
                body.validated_data["name"],
                team=self.requested_team(body.validated_data, issuer),
                days=body.validated_data.get("days"),
                issuer=issuer,
            )
        except services.TokenRefused as exc:
            raise exceptions.ValidationError(
                {exc.field: [exceptions.ErrorDetail(str(exc), code=exc.code)]}
            ) from exc
        data = IssuedTokenSerializer(issued.token).data | {"token": issued.secret}
        return Response(data, status=status.HTTP_201_CREATED)

    def requested_team(self, data: dict, issuer: ApiToken | None) -> Team | None:
        if "team" not in data:
            return services.default_token_team(issuer)
        slug = data["team"]
        return get_object_or_404(visible_teams(self.request), slug=slug) if slug else None

    @extend_schema(responses={204: None})
    def destroy(self, request: Request, pk: str | None = None) -> Response:
        services.revoke_token(request.user, self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


class AuditViewSet(TeamScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Who changed what, in the teams you belong to (newest first)."""

    queryset = AuditEvent.objects.none()
    serializer_class = AuditEventSerializer
    filterset_class = AuditFilter
    # ?search= looks in the action, the target's name and id, and the actor's username.
    search_fields = ["action", "target_label", "target_id", "actor__username"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return self.scope(AuditEvent.objects.select_related("actor", "team"))

    @extend_schema(
        responses={200: build_array_type(build_basic_type(OpenApiTypes.STR))},
        description="The distinct actions in your teams' audit log, sorted.",
    )
    @action(detail=False, methods=["get"], pagination_class=None, filter_backends=[])
    def actions(self, request: Request) -> Response:
        names = self.get_queryset().values_list("action", flat=True).distinct()
        return Response(sorted(set(names)))
