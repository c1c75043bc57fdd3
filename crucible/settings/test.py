"""Settings for the test suite: fast hashing, no throttling surprises, isolated var/."""

import os
import tempfile

os.environ.setdefault("CRUCIBLE_VAR_DIR", tempfile.mkdtemp(prefix="crucible-test-"))

from .base import *  # noqa: E402,F403
from .base import DATABASES, REST_FRAMEWORK  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"anon": "10000/min", "user": "100000/min", "login": "10000/min"},
}

# Transactional tests end with a flush of every table: on PostgreSQL the suite's backend
# deletes rows instead of truncating tables, ten times faster (tests/db_backend/base.py).
# A test database needs no durable commits: without waiting for the WAL's flush a commit
# takes ~0.3 ms instead of ~8 ms, which the migrations, live servers and workers do thousands
# of times (tests/conftest.py sets the same for the workers, which run on the base settings).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["ENGINE"] = "tests.db_backend"
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    _options["options"] = f"{_options.get('options', '')} -c synchronous_commit=off".strip()
