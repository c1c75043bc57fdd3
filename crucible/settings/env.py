"""Small typed readers for configuration from the environment (12-factor).

Each reader fails loudly with the variable's name when a value cannot be parsed.
"""

from __future__ import annotations

import os
import secrets
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from crucible.redis_pool import resilience_options


class ConfigError(RuntimeError):
    """A configuration value is missing or malformed."""


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None or value == "" else value


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name}={value!r} is not a boolean (use 1/0, true/false, yes/no)")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ConfigError(f"{name}={value!r} is not an integer") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value == "":
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_networks(name: str) -> list[IPv4Network | IPv6Network]:
    """Comma-separated addresses or networks (``10.0.0.0/8, 192.0.2.7``); none by default."""
    networks = []
    for item in env_list(name, []):
        try:
            networks.append(ip_network(item, strict=False))
        except ValueError as exc:
            raise ConfigError(f"{name}: {item!r} is not an IP address or network") from exc
    return networks


def database_from_url(url: str, *, base_dir: Path, pool: int = 0) -> dict:
    """Turn ``DATABASE_URL`` into a Django ``DATABASES['default']`` entry.

    Supports ``sqlite:///relative/or/absolute.db`` and ``postgres://user:pw@host:port/name``.
    """
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        raw = unquote(parsed.path)
        # sqlite:///var/db.sqlite3 is relative to the project; sqlite:////abs/path is absolute.
        path = Path(raw[1:]) if raw.startswith("/") and not raw.startswith("//") else Path(raw[1:])
        if not path.is_absolute():
            path = base_dir / path
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(path),
            "OPTIONS": {
                "timeout": 30,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    if parsed.scheme in {"postgres", "postgresql", "pgsql"}:
        options: dict = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
        if pool:
            # An ASGI server runs each sync request on a thread of its own: a connection per
            # thread kept for CONN_MAX_AGE would be one per request, until PostgreSQL refuses
            # more clients. A pool lends one per request instead (and takes it back after).
            options["pool"] = {"min_size": 2, "max_size": pool, "timeout": 10}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": 0 if pool else 60,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": options,
        }
    raise ConfigError(
        f"DATABASE_URL scheme {parsed.scheme!r} is not supported (use sqlite or postgres)"
    )


# channels-redis waits for a socket's next message with a blocking read of 5 s (BZPOPMIN);
# redis-py's default socket timeout is also 5 s, so an idle socket's read timed out on the
# client first and closed the websocket (1011). The read timeout must outlast the blocking
# read with room for a slow network, yet still notice a dead Redis.
CHANNEL_LAYER_SOCKET_TIMEOUT_S = 30


def redis_channel_layer(url: str) -> dict:
    """The channels-redis layer on ``url``, with a read timeout longer than its blocking read."""
    return {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [
                {
                    "address": url,
                    "socket_timeout": CHANNEL_LAYER_SOCKET_TIMEOUT_S,
                    # Fail fast while Redis is down, reconnect at once when it is back.
                    **resilience_options(asyncio=True),
                }
            ],
        },
    }


def persistent_secret_key(path: Path) -> str:
    """Read the embedded default's secret key from ``path``, creating it once."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key
