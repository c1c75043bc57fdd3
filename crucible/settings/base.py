"""Settings for every profile; values come from the environment with safe defaults.

The embedded default (no environment at all) runs on SQLite under var/, kombu's
filesystem broker and the in-memory channel layer.
"""

from __future__ import annotations

from pathlib import Path

from crucible.api.schema_enums import SCHEMA_ENUMS
from crucible.realtime.protocol import SOCKET_PROTOCOL

from .env import (
    database_from_url,
    env_bool,
    env_int,
    env_list,
    env_networks,
    env_str,
    persistent_secret_key,
    redis_channel_layer,
)

BASE_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = Path(env_str("CRUCIBLE_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY") or persistent_secret_key(VAR_DIR / "secret_key")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # The admin, its login throttled like the API's.
    "crucible.accounts.admin_site.ThrottledAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "channels",
    "crucible.accounts",
    "tasks_app",
    "experiments",
    "serving",
]

MIDDLEWARE = [
    # First, so an oversized body is refused before anything can read it.
    "crucible.api.request_size.BodySizeLimitMiddleware",
    # Before anything reads REMOTE_ADDR: the client's address, behind trusted proxies only.
    "crucible.accounts.throttling.ClientAddressMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Before WhiteNoise, so the static files it answers carry the policies too.
    "crucible.security_headers.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before the session middleware: it drops cookies the session lookup could not take.
    "crucible.api.middleware.RejectNullCharactersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: keeps the chain in sync mode under ASGI (one thread hop a request, not dozens).
    "crucible.api.middleware.SyncChainMiddleware",
]

ROOT_URLCONF = "crucible.urls"
WSGI_APPLICATION = "crucible.wsgi.application"
ASGI_APPLICATION = "crucible.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "crucible" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'crucible.sqlite3'}")
# ASGI servers (crucible.asgi sets DB_POOL) lend PostgreSQL connections from a pool of at
# most DB_POOL_SIZE; workers and management commands keep one persistent connection.
DATABASES = {
    "default": database_from_url(
        DATABASE_URL,
        base_dir=BASE_DIR,
        pool=env_int("DB_POOL_SIZE", 20) if env_bool("DB_POOL", False) else 0,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
FRONTEND_DIST = BASE_DIR / "frontend" / "dist"
STATICFILES_DIRS = [FRONTEND_DIST] if FRONTEND_DIST.exists() else []
WHITENOISE_USE_FINDERS = True
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 10 * 1024 * 1024)
# A whole multipart body (an uploaded file and its form fields), refused with a 413 from its
# Content-Length before any of it is read (crucible.api.request_size).
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 50 * 1024 * 1024)
# Any body from a caller not signed in (no valid token or session), under ASGI: anyone can
# send one into the web process's event loop, and logins and forms are far smaller.
ANONYMOUS_BODY_MAX_BYTES = env_int("ANONYMOUS_BODY_MAX_BYTES", 1024 * 1024)
# Larger uploads go to a temporary file on disk, never into memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_TEMP_DIR = None

# --- browser policies (crucible.security_headers) ----------------------------------------
# Scripts come only from this origin (the SPA's bundle, the admin's files, the API docs'
# sidecar). Styles may be inline: Swagger UI, ReDoc and the exported report carry theirs in
# the page. data: images are Swagger UI's icons; ReDoc's search runs in a blob: worker;
# 'self' in connect-src covers the same origin's websockets.
CONTENT_SECURITY_POLICY = env_str(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'",
)
# Nothing here uses the camera, microphone, location, payments or other device features.
PERMISSIONS_POLICY = env_str(
    "PERMISSIONS_POLICY",
    "accelerometer=(), autoplay=(), camera=(), display-capture=(), geolocation=(), "
    "gyroscope=(), magnetometer=(), microphone=(), midi=(), payment=(), "
    "publickey-credentials-get=(), screen-wake-lock=(), serial=(), usb=(), xr-spatial-tracking=()",
)

# --- bundled datasets (HumanEval, GSM8K), shipped in tasks_app/datasets ----------------
BUNDLED_DATASETS_DIR = Path(
    env_str("CRUCIBLE_DATASETS_DIR", str(BASE_DIR / "tasks_app" / "datasets"))
)

# --- REST API ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "crucible.accounts.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "crucible.api.parsers.JSONParser",
        "crucible.api.parsers.FormParser",
        "crucible.api.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "crucible.api.pagination.StandardPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "crucible.api.filtering.FilterBackend",
        "rest_framework.filters.OrderingFilter",
        "rest_framework.filters.SearchFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "crucible.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "crucible.api.errors.exception_handler",
    # X-Forwarded-For is resolved once, by ClientAddressMiddleware: DRF reads REMOTE_ADDR.
    "NUM_PROXIES": 0,
    "DEFAULT_THROTTLE_CLASSES": [
        # DRF's own, counting in this process while the shared cache is down.
        "crucible.accounts.throttling.AnonRateThrottle",
        "crucible.accounts.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON", "60/min"),
        "user": env_str("THROTTLE_USER", "2000/min"),
        "login": env_str("THROTTLE_LOGIN", "20/min"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Crucible API",
    "DESCRIPTION": "Task families, verifiers, curricula and RL experiments.\n" + SOCKET_PROTOCOL,
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    # Error codes and websocket frame types, as enums the front end's types come from.
    "APPEND_COMPONENTS": SCHEMA_ENUMS,
    "ENUM_NAME_OVERRIDES": {
        # Background jobs (pool grading, pre-flights) share one set of states.
        "JobStateEnum": "experiments.models.preflight.PreflightState",
        "RunStateEnum": "experiments.models.runs.RunState",
        "RunSourceEnum": "experiments.models.runs.RunSource",
        "UploadStateEnum": "experiments.models.uploads.UploadState",
        "RunEventKindEnum": "experiments.models.control.RunEventKind",
        "ModeEnum": ["append", "replace"],
        "DecisionEnum": "experiments.models.evaluation.ReviewDecision",
        "RoleEnum": "crucible.accounts.models.Role",
        "ReplicaRoleEnum": "serving.models.ReplicaRole",
        "CanaryModeEnum": "serving.models.CanaryMode",
        "CanaryDecisionEnum": "serving.services.canaries.DECISIONS",
        "PromptFormatKindEnum": "training.prompting.KINDS",
    },
}

# --- Celery / channels --------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
BROKER_DIR = VAR_DIR / "broker"

if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # Longer than the longest single step a worker holds a message unacknowledged.
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 6 * 3600),
    }
    CHANNEL_LAYERS = {"default": redis_channel_layer(REDIS_URL)}
else:
    for _sub in ("out", "processed", "control"):
        (BROKER_DIR / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "out"),
        "data_folder_out": str(BROKER_DIR / "out"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- client addresses and the shared cache ------------------------------------------------
# The reverse proxies in front of the web processes: addresses or networks, comma separated.
# X-Forwarded-For is believed only when the peer is one of them.
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")

# Throttle counters must be shared by every web process, or each process grants its own
# allowance: Redis in production, files under var/ in the embedded default.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "crucible",
            # One pool per process, not one per request thread (crucible.redis_pool).
            "OPTIONS": {"pool_class": "crucible.redis_pool.SharedConnectionPool"},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

from kombu import Queue  # noqa: E402

# gpu: training runs, one worker per GPU node; cpu: evaluation, verification, grading;
# serve: model replicas of deployments (long-lived jobs, one per replica); default: short
# bookkeeping.
CELERY_TASK_QUEUES = (Queue("gpu"), Queue("cpu"), Queue("serve"), Queue("default"))
CELERY_TASK_ROUTES = {
    "experiments.tasks.run_training": {"queue": "gpu"},
    "experiments.tasks.run_evaluation": {"queue": "cpu"},
    "experiments.tasks.grade_pool_version": {"queue": "cpu"},
    "experiments.tasks.run_preflight": {"queue": "cpu"},
    "serving.tasks.serve_replica": {"queue": "serve"},
    # The name serving's replicas were queued under before the serving app: still served.
    "experiments.tasks.serve_replica": {"queue": "serve"},
}
(VAR_DIR / "results").mkdir(exist_ok=True)
CELERY_RESULT_BACKEND = REDIS_URL or f"file://{VAR_DIR / 'results'}"
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TRACK_STARTED = True
# A broker outage is waited out, at start-up and after a lost connection (no retry limit), and
# the tasks running when the connection was lost are cancelled rather than left to finish and
# acknowledge a message the broker has already handed back: a training run is then given back
# to the queue by its task and resumes from its last checkpoint.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Celery's own consumer exits on a lost Redis connection while a task runs (see the module).
CELERY_WORKER_CONSUMER = "crucible.worker_consumer:Consumer"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)

# --- logging ----------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

CRUCIBLE_VERSION = "0.1.0"
SPECTACULAR_SETTINGS.update(
    {
        # Swagger UI and ReDoc assets ship in a Python package: the docs work offline.
        "SWAGGER_UI_DIST": "SIDECAR",
        "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
        "REDOC_DIST": "SIDECAR",
    }
)
INSTALLED_APPS.append("drf_spectacular_sidecar")

# --- task pools -------------------------------------------------------------------------
# Extra family kinds: {"kind-name": "dotted.module.path"}, merged over the built-in ones.
TASK_FAMILY_KINDS: dict[str, str] = {}
# Extra environment kinds (multi-turn): {"kind-name": "dotted.module.path"}, likewise.
ENVIRONMENT_KINDS: dict[str, str] = {}
TASK_IMPORT_MAX_BYTES = env_int("TASK_IMPORT_MAX_BYTES", 512 * 1024 * 1024)
TASK_IMPORT_MAX_ROWS = env_int("TASK_IMPORT_MAX_ROWS", 1_000_000)
# What the rows may take once decoded: a compressed (Parquet) file may be small on disk.
TASK_IMPORT_MAX_DECODED_BYTES = env_int("TASK_IMPORT_MAX_DECODED_BYTES", TASK_IMPORT_MAX_BYTES)

# --- models and workers -----------------------------------------------------------------
# Hugging Face model directories a worker offers (and where it builds the tiny demo model).
MODELS_DIR = Path(env_str("CRUCIBLE_MODELS_DIR", str(VAR_DIR / "models")))
# Seconds between a worker's heartbeats (its Worker row, and the runs it is training).
WORKER_HEARTBEAT_SECONDS = env_int("WORKER_HEARTBEAT_SECONDS", 5)
# A running run (or a worker) silent this long is taken for dead: the run is queued again.
RUN_STALE_SECONDS = env_int("RUN_STALE_SECONDS", 60)
# A run still queued this long after it was last sent is sent again by the workers' reaper: a
# broker that restarted without persistence lost its message. A duplicate is harmless (the
# claim is a conditional update, so the second message finds the run taken and is dropped); a
# run waiting behind busy workers gets one extra message per period.
RUN_QUEUED_RESEND_SECONDS = env_int("RUN_QUEUED_RESEND_SECONDS", 300)
# Times a run is given back to the queue after a transient database error (a dropped
# connection, a database restart) before it fails: it resumes from its last checkpoint.
RUN_DATABASE_RETRIES = env_int("RUN_DATABASE_RETRIES", 3)
# Bytes of memory a worker offers runs (0: what its machine or cgroup allows). A launch is
# sized against it, and a CPU worker's run trains under a cap derived from it, so a run that
# outgrows it fails with "out of memory" instead of the kernel killing the worker.
WORKER_MEMORY_BYTES = env_int("WORKER_MEMORY_BYTES", 0)

# --- serving ----------------------------------------------------------------------------
# Where a replica listens (a free port on this address) and the host others reach it by
# (set it to the worker's name when web processes run on other hosts).
SERVING_HOST = env_str("SERVING_HOST", "127.0.0.1") or "127.0.0.1"
SERVING_ADVERTISE_HOST = env_str("SERVING_ADVERTISE_HOST", "") or ""
# Where the platform answers its users: `make run` serves http://$(HOST):$(PORT), by default
# http://127.0.0.1:8000 (Makefile, crucible/supervise.py). Commands that call the platform's
# own API, as `manage.py replay_traffic` does, send there unless told otherwise.
PLATFORM_URL = (env_str("PLATFORM_URL", "") or "http://127.0.0.1:8000").rstrip("/")
# CPU threads each replica's generation uses.
SERVING_THREADS = env_int("SERVING_THREADS", 1)
# How often a replica hands on a streamed completion's new text, at most, in seconds (its
# first piece goes at once): fewer, larger pieces for the replica, the web process and the
# client to handle (training.serving.STREAM_INTERVAL_S). 0: every token.
SERVING_STREAM_INTERVAL_S = float(env_str("SERVING_STREAM_INTERVAL_S", "0.02") or 0.02)
# How long a web process keeps a deployment's route (its replicas and canary) at most: a
# canary's changes bump a shared revision and are read at once; the rest (a replica getting
# ready) within this many seconds.
SERVING_ROUTE_CACHE_S = float(env_str("SERVING_ROUTE_CACHE_S", "1.0") or 1.0)
# The longest prompt a generate request may send, in characters.
SERVING_MAX_PROMPT_CHARS = env_int("SERVING_MAX_PROMPT_CHARS", 20_000)
# ASGI apps that answer a path prefix before Django does (crucible.asgi): the OpenAI-compatible
# endpoints skip the REST machinery to keep a request to a few milliseconds of the web tier.
ASGI_PREFIX_APPS = {"/v1/": "serving.openai_api.app.application"}

# --- runs -------------------------------------------------------------------------------
# Each run's folder: its checkpoints and its full log (RUNS_DIR/<run id>/).
RUNS_DIR = Path(env_str("CRUCIBLE_RUNS_DIR", str(VAR_DIR / "runs")))
# Checkpoints kept per run (the newest ones); older ones are deleted as new ones land.
RUN_CHECKPOINTS_KEEP = env_int("RUN_CHECKPOINTS_KEEP", 3)
# A checkpoint an outside run uploads (a Hugging Face model directory, all files) at most.
CHECKPOINT_UPLOAD_MAX_BYTES = env_int("CHECKPOINT_UPLOAD_MAX_BYTES", 20 * 1024**3)
# A training job is stopped (and its run failed, saying so) after this long.
RUN_TIME_LIMIT_SECONDS = env_int("RUN_TIME_LIMIT_SECONDS", 3 * 24 * 3600)
# Log lines kept on the run's row for the page and the API (the whole log is in its folder).
RUN_LOG_TAIL_LINES = env_int("RUN_LOG_TAIL_LINES", 200)
