from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.routers import DefaultRouter

from crucible import health, spa
from crucible.accounts import views as accounts

router = DefaultRouter()
router.register("teams", accounts.TeamViewSet, basename="team")
router.register(r"teams/(?P<team_slug>[-\w]+)/members", accounts.MemberViewSet, basename="member")
router.register("tokens", accounts.TokenViewSet, basename="token")
router.register("audit", accounts.AuditViewSet, basename="audit")

api_v1 = [
    path("auth/login/", accounts.LoginView.as_view(), name="login"),
    path("auth/logout/", accounts.LogoutView.as_view(), name="logout"),
    path("auth/me/", accounts.MeView.as_view(), name="me"),
    path("", include("tasks_app.urls")),
    path("", include("experiments.urls")),
    path("", include("serving.urls")),
    path("", include(router.urls)),
]

# Under /api/ these answer in the API's JSON error shape; elsewhere Django's pages.
handler400 = "crucible.api.errors.bad_request"
handler403 = "crucible.api.errors.permission_denied"
handler404 = "crucible.api.errors.not_found"
handler500 = "crucible.api.errors.server_error"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include((api_v1, "api"), namespace="v1")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file: the policy allows no
    # inline scripts.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", template_name="api/redoc.html"),
        name="redoc",
    ),
    re_path(r"^(?!api/|static/|ws/|admin/|healthz).*$", spa.index, name="spa"),
]
