from django.urls import path
from rest_framework.routers import SimpleRouter

from experiments.api import (
    algorithms,
    checkpoint_uploads,
    checkpoints,
    control,
    experiments,
    health,
    metric_catalogue,
    metrics,
    preflight,
    promotion,
    registry,
    reports,
    runs,
    suites,
    usage,
    workers,
)

router = SimpleRouter()
router.register("workers", workers.WorkerViewSet, basename="worker")
router.register("experiments", experiments.ExperimentViewSet, basename="experiment")
router.register("runs", runs.RunViewSet, basename="run")
router.register("runs", control.RunControlViewSet, basename="run-control")
router.register("checkpoints", checkpoints.CheckpointViewSet, basename="checkpoint")
router.register("evaluations", reports.EvaluationViewSet, basename="evaluation")
router.register("preflights", preflight.PreflightViewSet, basename="preflight")
router.register("reports", reports.ReportViewSet, basename="report")
router.register("evaluation-suites", suites.EvaluationSuiteViewSet, basename="evaluation-suite")
router.register("promotions", promotion.PromotionViewSet, basename="promotion")
router.register("registered-models", registry.RegisteredModelViewSet, basename="registered-model")
router.register("model-versions", registry.ModelVersionViewSet, basename="model-version")

urlpatterns = [
    path("models/", workers.AvailableModelsView.as_view(), name="models"),
    path("algorithms/", algorithms.AlgorithmsView.as_view(), name="algorithms"),
    path("algorithms/presets/", algorithms.PresetsView.as_view(), name="algorithm-presets"),
    path(
        "teams/<slug:team_slug>/review-policy/",
        reports.ReviewPolicyView.as_view(),
        name="review-policy",
    ),
    path(
        "teams/<slug:team_slug>/health-thresholds/",
        health.HealthSettingsView.as_view(),
        name="health-thresholds",
    ),
    path("usage/", usage.TeamUsageView.as_view(), name="usage"),
    path("usage/rates/", usage.CostRatesView.as_view(), name="usage-rates"),
    path(
        "metrics/catalogue/",
        metric_catalogue.MetricCatalogueView.as_view(),
        name="metric-catalogue",
    ),
    path("runs/<int:run_id>/metrics/", metrics.RunMetricsView.as_view(), name="run-metrics"),
    path(
        "runs/<int:run_id>/metrics/raw/",
        metrics.RunMetricsRawView.as_view(),
        name="run-metrics-raw",
    ),
    path(
        "runs/<int:run_id>/checkpoint-uploads/",
        checkpoint_uploads.RunUploadsView.as_view(),
        name="run-checkpoint-uploads",
    ),
    path(
        "checkpoint-uploads/<int:upload_id>/",
        checkpoint_uploads.UploadView.as_view(),
        name="checkpoint-upload",
    ),
    path(
        "checkpoint-uploads/<int:upload_id>/files/",
        checkpoint_uploads.UploadChunkView.as_view(),
        name="checkpoint-upload-files",
    ),
    path(
        "checkpoint-uploads/<int:upload_id>/complete/",
        checkpoint_uploads.UploadCompleteView.as_view(),
        name="checkpoint-upload-complete",
    ),
    *router.urls,
]
