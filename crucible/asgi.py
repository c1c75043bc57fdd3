"""ASGI entry: HTTP through Django (or an app of ``ASGI_PREFIX_APPS`` for its prefix),
websockets under /ws/ through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings.base")
# Each sync request runs on its own thread here: PostgreSQL connections come from a pool.
os.environ.setdefault("DB_POOL", "1")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.utils.module_loading import import_string  # noqa: E402

from crucible.api.prefix_router import PrefixRouter  # noqa: E402
from crucible.api.request_size import BodySizeLimit  # noqa: E402
from crucible.realtime.auth import (  # noqa: E402
    BrowserOriginValidator,
    TokenOrSessionAuthMiddleware,
)
from crucible.realtime.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Django's handler spools a whole body before any middleware runs; refuse first.
        # A prefix app (the OpenAI-compatible endpoints) reads its own bodies under its limit.
        "http": PrefixRouter(
            {prefix: import_string(path) for prefix, path in settings.ASGI_PREFIX_APPS.items()},
            BodySizeLimit(django_asgi_app),
        ),
        # Browsers are held to ALLOWED_HOSTS; scripts without an Origin authenticate by token.
        "websocket": BrowserOriginValidator(
            TokenOrSessionAuthMiddleware(URLRouter(websocket_urlpatterns))
        ),
    }
)
