"""ASGI entry: HTTP through Django, websockets under /ws/ through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings.base")
# Each sync request runs on its own thread here: PostgreSQL connections come from a pool.
os.environ.setdefault("DB_POOL", "1")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from crucible.api.request_size import BodySizeLimit  # noqa: E402
from crucible.realtime.auth import TokenOrSessionAuthMiddleware  # noqa: E402
from crucible.realtime.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Django's handler spools a whole body before any middleware runs; refuse first.
        "http": BodySizeLimit(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(
            TokenOrSessionAuthMiddleware(URLRouter(websocket_urlpatterns))
        ),
    }
)
