"""ASGI entry: HTTP through Django, websockets under /ws/ through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings.base")
# Each sync request runs on its own thread here: PostgreSQL connections come from a pool.
os.environ.setdefault("DB_POOL", "1")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from crucible.api.request_size import BodySizeLimit  # noqa: E402
from crucible.realtime.auth import (  # noqa: E402
    BrowserOriginValidator,
    TokenOrSessionAuthMiddleware,
)
from crucible.realtime.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Django's handler spools a whole body before any middleware runs; refuse first.
        "http": BodySizeLimit(django_asgi_app),
        # Browsers are held to ALLOWED_HOSTS; scripts without an Origin authenticate by token.
        "websocket": BrowserOriginValidator(
            TokenOrSessionAuthMiddleware(URLRouter(websocket_urlpatterns))
        ),
    }
)
