"""The compose file is the production map: every service, image build and variable it needs."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())


def test_it_defines_the_production_services():
    assert set(COMPOSE["services"]) == {
        "postgres", "redis", "web", "gpu-worker", "cpu-worker", "serve-worker"
    }  # fmt: skip


def test_it_builds_from_dockerfiles_that_exist():
    for name, service in COMPOSE["services"].items():
        if "build" in service:
            dockerfile = (ROOT / "docker" / service["build"]["context"] / service["build"]["dockerfile"]).resolve()
            assert dockerfile.exists(), f"{name}: {dockerfile}"


def test_it_restarts_every_service_that_exits():
    for name, service in COMPOSE["services"].items():
        assert service.get("restart") == "unless-stopped", name


def test_it_points_every_app_container_at_postgres_and_redis():
    for name in ("web", "gpu-worker", "cpu-worker", "serve-worker"):
        env = COMPOSE["services"][name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://"), name
        assert env["REDIS_URL"].startswith("redis://"), name
        assert env["DJANGO_SETTINGS_MODULE"] == "crucible.settings.production", name
        assert "SECRET_KEY" in env


def test_it_routes_workers_to_their_queues():
    assert "gpu" in (ROOT / "docker" / "gpu-worker.Dockerfile").read_text().split("-Q")[1]
    command = COMPOSE["services"]["cpu-worker"]["command"]
    assert command[command.index("-Q") + 1] == "cpu,default"
    serve = COMPOSE["services"]["serve-worker"]
    assert serve["command"][serve["command"].index("-Q") + 1] == "serve"
    # Replicas listen on an internal network that only the web shares, never on every
    # interface, and not where the workers that run model-written code could reach them.
    address = serve["networks"]["replicas"]["ipv4_address"]
    assert serve["environment"]["SERVING_HOST"] == address != "0.0.0.0"
    assert COMPOSE["networks"]["replicas"]["internal"] is True
    reach = [n for n, s in COMPOSE["services"].items() if "replicas" in (s.get("networks") or {})]
    assert sorted(reach) == ["serve-worker", "web"]
    devices = COMPOSE["services"]["gpu-worker"]["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["capabilities"] == ["gpu"]
