"""Proposed labelled examples: list them per verifier, accept or reject one.

Proposals are made where a verdict is seen (a run's rollout: ``experiments``); here the
verifier's team decides. Reading needs membership of the verifier's team, deciding the
editor role.
"""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.scoping import TeamRolePermission, TeamScopedMixin
from crucible.api.serializers import StrictSerializer
from tasks_app.models import ExampleProposal
from tasks_app.services import example_proposals as services

from . import verifier_reports as reports


class ExampleProposalSerializer(serializers.ModelSerializer):
    verifier_name = serializers.CharField(source="verifier.name", read_only=True)
    version_number = serializers.IntegerField(
        source="version.number", read_only=True, allow_null=True
    )
    expected = reports.json_object(read_only=True)
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    decided_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    label = serializers.ChoiceField(
        choices=ExampleProposal._meta.get_field("label").choices,
        read_only=True,
        help_text="The label proposed: good when the verifier refused it, bad when it passed it.",
    )

    messages = serializers.ListField(
        child=serializers.DictField(),
        read_only=True,
        allow_null=True,
        help_text="For a flagged turn of an episode: the conversation up to and including it.",
    )
    turn = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text="The flagged turn's index in messages; null for a whole response.",
    )

    class Meta:
        model = ExampleProposal
        fields = [
            "id",
            "verifier",
            "verifier_name",
            "version",
            "version_number",
            "response",
            "expected",
            "label",
            "judged_passed",
            "judged_error_type",
            "judged_reward",
            "note",
            "messages",
            "turn",
            "source",
            "source_label",
            "source_path",
            "status",
            "created_by",
            "created_at",
            "decided_by",
            "decided_at",
            "decision_note",
            "example",
        ]
        read_only_fields = fields


class DecisionSerializer(StrictSerializer):
    note = serializers.CharField(
        max_length=300, required=False, allow_blank=True, default="", help_text="Why."
    )


class ExampleProposalViewSet(
    TeamScopedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Responses proposed as labelled examples of the caller's teams' verifiers, newest first."""

    queryset = ExampleProposal.objects.none()
    serializer_class = ExampleProposalSerializer
    permission_classes = [TeamRolePermission]
    team_path = "verifier__team"
    filterset_fields = ["verifier", "status"]

    def get_queryset(self) -> QuerySet[ExampleProposal]:
        rows = ExampleProposal.objects.select_related(
            "verifier__team", "version", "created_by", "decided_by"
        )
        return self.scope(rows)

    @extend_schema(request=DecisionSerializer, responses=ExampleProposalSerializer)
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, pk: str | None = None) -> Response:
        """Add the response as a labelled example with the proposed label."""
        proposal = self.get_object()
        body = DecisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.accept(request.user, proposal, body.validated_data["note"])
        return Response(ExampleProposalSerializer(self.get_object()).data)

    @extend_schema(request=DecisionSerializer, responses=ExampleProposalSerializer)
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str | None = None) -> Response:
        """Keep the verdict: the response does not become an example."""
        proposal = self.get_object()
        body = DecisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.reject(request.user, proposal, body.validated_data["note"])
        return Response(ExampleProposalSerializer(self.get_object()).data)
