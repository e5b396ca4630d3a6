"""The Procfile of `make up` and docker-compose.yml describe the same processes; the image and the
installs are built from the lock files, without local state or secrets."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest
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


@pytest.mark.parametrize("conf", ["nginx.conf.template", "nginx.compose.conf"])
def test_nginx_has_descriptors_for_the_sockets_it_admits(conf):
    """Issue 28: 4,096 connections per worker capped the stack near 2,000 sockets (each proxied
    socket holds two). The worker admits 8,000 and may open a descriptor for each connection."""
    text = (ROOT / "deploy" / conf).read_text()
    connections = int(re.search(r"worker_connections (\d+);", text).group(1))
    descriptors = int(re.search(r"worker_rlimit_nofile (\d+);", text).group(1))
    assert connections // 2 >= 8000
    assert descriptors >= connections


def test_make_up_raises_the_open_files_limit_of_its_processes():
    """The web processes hold one descriptor per socket: a soft limit of 1,024 would cap each."""
    script = (ROOT / "deploy" / "up.sh").read_text()
    raised = script.index('ulimit -n "$(ulimit -Hn)"')
    assert raised < script.index("exec .venv/bin/supervisord")


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


# -- supervision ----------------------------------------------------------------------------------


def _load(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "deploy" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sections(text: str) -> dict[str, dict[str, str]]:
    import configparser

    parser = configparser.RawConfigParser()
    parser.read_string(text)
    return {name: dict(parser[name]) for name in parser.sections()}


def test_make_up_supervises_every_process_of_the_procfile(tmp_path):
    """deploy/up.sh runs the Procfile under supervisord: web once per port, each program restarted
    alone whenever it exits, killed with its whole process group, logging to the foreground."""
    conf = _load("supervisord_conf")
    text = conf.render((ROOT / "Procfile").read_text(), 3, 9101, ROOT, tmp_path)
    sections = _sections(text)
    assert sections["supervisord"]["nodaemon"] == "true"
    programs = {
        name.split(":", 1)[1]: values
        for name, values in sections.items()
        if name.startswith("program:")
    }
    expected = {name for name in procfile() if name != "web"} | {"web-1", "web-2", "web-3"}
    assert set(programs) == expected
    # One group: Ctrl-C stops every program at once (supervisord stops groups one by one).
    assert set(sections["group:siesta"]["programs"].split(",")) == expected
    for name, program in programs.items():
        assert program["autorestart"] == "true", name
        assert int(program["startretries"]) >= 100, name
        assert program["killasgroup"] == "true", name
        # SIGTERM to a web process's engine workers too, never to a Celery worker's pool.
        assert program["stopasgroup"] == ("true" if name.startswith("web-") else "false"), name
        assert program["stdout_logfile"] == "/dev/stdout", name
        assert program["directory"] == str(ROOT)
    for index, port in enumerate((9101, 9102, 9103), start=1):
        command = programs[f"web-{index}"]["command"]
        assert command.startswith(f"{ROOT}/.venv/bin/daphne ")
        assert f" -p {port} " in command
    # Celery's %h survives supervisord's own %(name)s expansion.
    assert "-n bots@%%h" in programs["worker_bots"]["command"]
    nginx = "nginx -p var/nginx -c nginx.conf -e stderr -g 'daemon off;'"
    assert programs["nginx"]["command"] == nginx


def test_the_systemd_units_run_the_procfile_s_commands():
    """deploy/systemd: one unit per process of the Procfile (nginx is the system's own), each
    restarted for ever, alone, with the same command."""
    units = {}
    for path in (ROOT / "deploy" / "systemd").glob("*.service"):
        sections = _sections(path.read_text())
        units[path.name] = sections
        assert sections["Service"]["restart"] == "always", path.name
        assert sections["Unit"]["startlimitintervalsec"] == "0", path.name
        assert sections["Install"]["wantedby"] == "siesta.target", path.name
    commands = {
        name: units[unit]["Service"]["execstart"]
        .replace("/srv/siesta/.venv/bin/", "")
        .replace("%%", "%")
        for name, unit in {
            "web": "siesta-web@.service",
            "worker_bots": "siesta-worker-bots.service",
            "worker_analyses": "siesta-worker-analyses.service",
            "worker_periodic": "siesta-worker-periodic.service",
            "beat": "siesta-beat.service",
        }.items()
    }
    assert len(units) == len(commands)
    for name, command in procfile().items():
        if name == "nginx":
            continue
        if name == "web":
            assert command.replace("-p $PORT", "-p %i") == commands[name]
        elif name == "beat":
            assert command.split(" -s ")[0] == commands[name].split(" -s ")[0]
        else:
            assert command == commands[name]


def test_compose_restarts_every_long_running_service():
    for name, service in compose().items():
        expected = "no" if name == "migrate" else "unless-stopped"
        assert service.get("restart") == expected, name


# -- the image and the installs -------------------------------------------------------------------


def _dockerignore() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip().rstrip("/") for line in lines if line.strip() and not line.startswith("#")]


def _ignored(path: str) -> bool:
    """Whether the build context leaves `path` out: a pattern that matches the path or one of the
    directories it is in (a leading `**/` at any depth), as Docker reads .dockerignore."""
    parts = path.split("/")
    for pattern in _dockerignore():
        if pattern.startswith("**/"):
            pattern = pattern[3:]
            candidates = [
                "/".join(parts[i:j])
                for i in range(len(parts))
                for j in range(i + 1, 1 + len(parts))
            ]
        else:
            candidates = ["/".join(parts[:j]) for j in range(1, 1 + len(parts))]
        if any(fnmatch.fnmatchcase(candidate, pattern) for candidate in candidates):
            return True
    return False


@pytest.mark.parametrize(
    "path",
    [
        ".venv/bin/python",
        ".git/HEAD",
        "db.sqlite3",
        "db.sqlite3-wal",
        "db.sqlite3-shm",
        "var/secret_key",
        "var/nginx/nginx.conf",
        ".env",
        "staticfiles/css/site.css",
        "screenshots/lobby-375.png",
        "games/__pycache__/models.cpython-311.pyc",
        "siesta_online.egg-info/PKG-INFO",
        ".mypy_cache/3.11/games.json",
        "celerybeat-schedule",
    ],
)
def test_the_image_build_leaves_out_local_state_and_secrets(path):
    assert _ignored(path)


@pytest.mark.parametrize(
    "path",
    [
        "requirements/base.txt",
        "pyproject.toml",
        "README.md",
        "manage.py",
        "deploy/healthcheck.py",
        "siesta_site/settings.py",
        "games/engine/position.py",
        "static/js/codec.js",
        "templates/base.html",
        "locale/fr/LC_MESSAGES/django.po",
    ],
)
def test_the_image_build_sees_what_it_needs(path):
    assert (ROOT / path).exists()
    assert not _ignored(path)


def test_the_image_installs_the_serving_lock_and_runs_unprivileged():
    dockerfile = (ROOT / "Dockerfile").read_text()
    instructions = [line.split(None, 1) for line in dockerfile.replace("\\\n", " ").splitlines()]
    instructions = [i for i in instructions if i and not i[0].startswith("#")]
    runs = [rest for op, *rest in instructions if op == "RUN" for rest in rest]
    assert "pip install --require-hashes -r requirements/base.txt" in runs
    assert any(run.startswith("pip install --no-deps .") for run in runs)
    assert not any("requirements/dev.txt" in run or "[dev]" in run for run in runs)
    # The build's throwaway key is random (the settings refuse a placeholder) and not kept.
    assert not any(op == "ENV" and "SECRET" in rest[0] for op, *rest in instructions)
    users = [rest[0].strip() for op, *rest in instructions if op == "USER"]
    assert users
    assert users[-1] not in {"root", "0"}
    ops = [op for op, *_ in instructions]
    assert ops.index("USER") < ops.index("HEALTHCHECK")
    assert ops.index("USER") < ops.index("CMD")


def test_compose_requires_a_real_secret_key():
    """No default to fall back on: compose refuses to start without DJANGO_SECRET_KEY, and the
    production settings refuse a placeholder (tests/test_settings.py)."""
    text = (ROOT / "docker-compose.yml").read_text()
    key = compose()["web"]["environment"]["DJANGO_SECRET_KEY"]
    assert key.startswith("${DJANGO_SECRET_KEY:?")
    assert "change-me" not in text


def test_git_ignores_the_databases_side_files():
    ignored = set((ROOT / ".gitignore").read_text().split())
    # ".venv" without a slash: a symlinked virtualenv is ignored too, not only a directory.
    assert {"db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm", ".venv", "var/"} <= ignored


def _lock(name: str) -> dict[str, str]:
    """A lock file's pins: {normalised name: version}; every requirement pinned with a hash."""
    text = (ROOT / "requirements" / name).read_text()
    pins = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        first = block.split("\n", 1)[0]
        if not first or first.startswith("#"):
            continue
        requirement = first.rstrip(" \\")
        assert re.fullmatch(r"[A-Za-z0-9_.-]+==[^\s;]+", requirement), requirement
        assert "--hash=sha256:" in block, requirement
        project, version = requirement.split("==")
        pins[re.sub(r"[-_.]+", "-", project).lower()] = version
    return pins


def _declared(requirements: list[str]) -> set[str]:
    return {
        re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", r).group()).lower()  # type: ignore[union-attr]
        for r in requirements
    }


def test_the_lock_files_pin_every_declared_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base, dev = _lock("base.txt"), _lock("dev.txt")
    assert _declared(project["dependencies"]) <= set(base)
    assert _declared(project["optional-dependencies"]["dev"]) <= set(dev)
    # The dev lock is the serving one plus the tools, at the same versions.
    assert {name: dev[name] for name in base} == base
    assert "pytest" not in base
    assert "ruff" not in base


def test_make_installs_from_the_locks():
    makefile = (ROOT / "Makefile").read_text()
    rules = dict(
        (line.split(":", 1)[0], line.split(":", 1)[1].split())
        for line in makefile.splitlines()
        if re.match(r"^[\w$()/.-]+:", line) and ":=" not in line and "?=" not in line
    )
    assert "requirements/base.txt" in rules["$(VENV)/.installed-base"]
    assert "requirements/dev.txt" in rules["$(VENV)/.installed-dev"]
    assert rules["run"] == ["venv"]  # serving needs only the serving lock
    for target in ("test", "lint", "typecheck"):
        assert rules[target] == ["venv-dev"], target
    assert "--require-hashes -r requirements/base.txt" in makefile
    assert "--require-hashes -r requirements/dev.txt" in makefile
    assert '-e ".[dev]"' not in makefile
