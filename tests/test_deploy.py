"""The Procfile of `make up` and docker-compose.yml describe the same processes."""

from __future__ import annotations

from pathlib import Path

import yaml
from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def procfile() -> dict[str, str]:
    entries = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, command = line.split(":", 1)
            entries[name.strip()] = command.strip().replace(".venv/bin/", "")
    return entries


def compose() -> dict[str, dict]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def test_every_process_of_make_up_is_a_compose_service_with_the_same_command():
    services = compose()
    for name, command in procfile().items():
        assert name in services, f"{name} of the Procfile is missing from docker-compose.yml"
        if name == "nginx":
            continue
        theirs = services[name]["command"]
        if name == "web":  # the same server and application; only where it listens differs
            assert command.replace("-b 127.0.0.1 -p $PORT", "-b 0.0.0.0 -p 8000") == theirs
        elif name == "beat":  # the schedule file lives where each can write
            assert command.split(" -s ")[0] == theirs.split(" -s ")[0]
        else:
            assert command == theirs


def test_compose_has_no_process_that_make_up_lacks():
    infrastructure = {"postgres", "redis", "migrate"}  # make up starts or runs these itself
    assert set(compose()) - infrastructure == set(procfile())


def test_the_web_processes_share_the_redis_layer_and_the_database():
    app = compose()["web"]["environment"]
    for name in ("worker_bots", "worker_analyses", "worker_periodic", "beat"):
        assert compose()[name]["environment"] == app
    assert app["DJANGO_PRODUCTION"] == "1"


def _routing(conf: str) -> list[str]:
    """How an nginx configuration routes requests to the web processes: its upstreams' balancing
    and its locations' proxying, in order."""
    keep = ("upstream", "least_conn", "hash", "keepalive", "location", "proxy_")
    return [
        line.strip()
        for line in conf.splitlines()
        if line.strip().startswith(keep) and not line.strip().startswith("proxy_temp_path")
    ]


def test_compose_nginx_routes_as_make_up_nginx():
    template = (ROOT / "deploy" / "nginx.conf.template").read_text()
    assert _routing((ROOT / "deploy" / "nginx.compose.conf").read_text()) == _routing(template)
    # A game's sockets all reach one process, by the game's id; everything else by load.
    assert "hash $room;" in _routing(template)
    assert "location ~ ^/ws/(games|echo)/(?<room>[^/]+)/$ {" in _routing(template)


def test_the_web_processes_are_checked_by_their_health_endpoint():
    """The image and the web service probe /health/ (deploy/healthcheck.py); the services that
    run the image without a web server do not; nginx passes the probe on unlogged; the others
    start once the migrations have run."""
    probe = ["CMD", "python", "deploy/healthcheck.py"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["python", "deploy/healthcheck.py"]' in dockerfile.split("HEALTHCHECK", 1)[1]
    services = compose()
    assert services["web"]["healthcheck"]["test"] == probe
    for name in ("migrate", "worker_bots", "worker_analyses", "worker_periodic", "beat"):
        assert services[name]["healthcheck"] == {"disable": True}, name
    for name in ("web", "worker_bots", "worker_analyses", "worker_periodic", "beat"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }
    assert services["nginx"]["depends_on"] == {"web": {"condition": "service_healthy"}}
    template = (ROOT / "deploy" / "nginx.conf.template").read_text()
    health = template.split("location = /health/ {", 1)[1].split("}", 1)[0]
    assert "access_log off;" in health
    assert "proxy_pass http://asgi;" in health


def test_the_health_probe_names_an_allowed_host(monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("healthcheck", ROOT / "deploy/healthcheck.py")
    assert spec is not None
    assert spec.loader is not None
    healthcheck = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(healthcheck)
    for allowed, host in [
        ("siesta.example,localhost", "siesta.example"),
        (".siesta.example", "siesta.example"),
        ("*", "localhost"),
        ("", "localhost"),
    ]:
        monkeypatch.setenv("DJANGO_ALLOWED_HOSTS", allowed)
        assert healthcheck.host() == host
