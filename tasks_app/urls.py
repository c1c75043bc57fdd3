from django.urls import path
from rest_framework.routers import SimpleRouter

from tasks_app.api import verifiers

router = SimpleRouter()
router.register("verifiers", verifiers.VerifierViewSet, basename="verifier")

urlpatterns = [
    path("verifier-kinds/", verifiers.LayerKindsView.as_view(), name="verifier-kinds"),
    path("verifiers/playground/", verifiers.PlaygroundView.as_view(), name="verifier-playground"),
    *router.urls,
]
