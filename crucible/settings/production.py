"""Production profile: secrets required, HTTPS enforced. Passes ``manage.py check --deploy``."""

import os

from .env import ConfigError, env_bool, env_int

if not os.environ.get("SECRET_KEY"):
    raise ConfigError("SECRET_KEY must be set in production (50+ random characters)")
if env_bool("DEBUG", False):
    raise ConfigError("DEBUG must be off in production")

from .base import *  # noqa: E402,F403

DEBUG = False
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
