from django.urls import path
from rest_framework.routers import SimpleRouter

from experiments.api import algorithms, experiments, metrics, runs, workers

router = SimpleRouter()
router.register("workers", workers.WorkerViewSet, basename="worker")
router.register("experiments", experiments.ExperimentViewSet, basename="experiment")
router.register("runs", runs.RunViewSet, basename="run")

urlpatterns = [
    path("models/", workers.AvailableModelsView.as_view(), name="models"),
    path("algorithms/", algorithms.AlgorithmsView.as_view(), name="algorithms"),
    path("runs/<int:run_id>/metrics/", metrics.RunMetricsView.as_view(), name="run-metrics"),
    path(
        "runs/<int:run_id>/metrics/raw/",
        metrics.RunMetricsRawView.as_view(),
        name="run-metrics-raw",
    ),
    *router.urls,
]
