from django.urls import path
from rest_framework.routers import SimpleRouter

from tasks_app.api import curricula, environments, example_proposals, families, summary, verifiers

router = SimpleRouter()
router.register("families", families.FamilyViewSet, basename="family")
router.register("pool-versions", families.PoolVersionViewSet, basename="pool-version")
router.register("verifiers", verifiers.VerifierViewSet, basename="verifier")
router.register("curricula", curricula.CurriculumViewSet, basename="curriculum")
router.register(
    "example-proposals", example_proposals.ExampleProposalViewSet, basename="example-proposal"
)

urlpatterns = [
    path("family-kinds/", families.FamilyKindsView.as_view(), name="family-kinds"),
    path("verifier-kinds/", verifiers.LayerKindsView.as_view(), name="verifier-kinds"),
    path("verifiers/playground/", verifiers.PlaygroundView.as_view(), name="verifier-playground"),
    path(
        "verifiers/playground/episode/",
        environments.EpisodePlaygroundView.as_view(),
        name="verifier-playground-episode",
    ),
    path(
        "environment-kinds/",
        environments.EnvironmentKindsView.as_view(),
        name="environment-kinds",
    ),
    path("sandbox/", verifiers.SandboxView.as_view(), name="sandbox"),
    path(
        "teams/<slug:team_slug>/summary/",
        summary.TeamSummaryView.as_view(),
        name="team-summary",
    ),
    *router.urls,
]
