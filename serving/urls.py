from rest_framework.routers import SimpleRouter

from serving.api import deployments

router = SimpleRouter()
router.register("deployments", deployments.DeploymentViewSet, basename="deployment")
router.register("canaries", deployments.CanaryViewSet, basename="canary")

urlpatterns = router.urls
