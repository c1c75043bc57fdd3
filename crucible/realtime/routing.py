from django.urls import path
from django.utils.module_loading import import_string

from .consumers import EventsConsumer

# Apps' consumers by dotted path, as the URLconf includes "experiments.urls": crucible is
# imported by the apps, never the other way.
RunMetricsConsumer = import_string("experiments.consumers.RunMetricsConsumer")
CanaryConsumer = import_string("serving.consumers.CanaryConsumer")

websocket_urlpatterns = [
    path("ws/events/", EventsConsumer.as_asgi()),
    path("ws/runs/<int:run_id>/", RunMetricsConsumer.as_asgi()),
    path("ws/canaries/<int:canary_id>/", CanaryConsumer.as_asgi()),
]
