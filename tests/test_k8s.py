"""The Kubernetes manifests (deploy/k8s/) render, offline, into the deployment docs/operations.md
describes ("Past one box"): web pods ready on /health/ and drained on deploy, a Deployment per
Celery queue, exactly one beat, the migrations as a Job the pods wait for, PgBouncer in transaction
mode, a game's sockets hashed onto one pod, and every pod locked down and bounded.

They render with `kubectl kustomize` where kubectl is installed, otherwise with
deploy/k8s/render.py (the same resources, read as kustomize would), so the checks run on a bare
machine too. The schema and security checks of the
rendered output (kubernetes-validate, checkov) run in CI from a tool venv (.ci/k8s-check).
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
BASE = ROOT / "deploy" / "k8s" / "base"
PYTHON_IMAGE = "siesta-online"


def render_without_kubectl() -> list[dict[str, Any]]:
    spec = importlib.util.spec_from_file_location(
        "k8s_render", ROOT / "deploy" / "k8s" / "render.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.render(BASE)


def render() -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return render_without_kubectl()
    out = subprocess.run(
        [kubectl, "kustomize", str(BASE)], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


@pytest.fixture(scope="module")
def resources() -> list[dict[str, Any]]:
    return render()


def find(resources: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    for resource in resources:
        if resource["kind"] == kind and resource["metadata"]["name"].startswith(name):
            return resource
    raise AssertionError(f"no {kind} {name}")


def pod_specs(resources: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        f"{r['kind']}/{r['metadata']['name']}": r["spec"]["template"]["spec"]
        for r in resources
        if r["kind"] in ("Deployment", "Job")
    }


def command(container: dict[str, Any]) -> str:
    return shlex.join(container.get("command", []))


def test_the_kubectl_rendering_and_the_fallback_agree():
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl not installed: the checks below use the fallback rendering")
    ours = {(r["kind"], r["metadata"]["name"]) for r in render_without_kubectl()}
    # kustomize appends a hash of its content to a generated ConfigMap's name.
    theirs = {
        (r["kind"], re.sub(r"-[a-z0-9]{10}$", "", r["metadata"]["name"]))
        if r["kind"] == "ConfigMap"
        else (r["kind"], r["metadata"]["name"])
        for r in render()
    }
    assert ours == theirs


def test_everything_lives_in_the_siesta_namespace(resources):
    assert find(resources, "Namespace", "siesta")
    for resource in resources:
        if resource["kind"] != "Namespace":
            assert resource["metadata"]["namespace"] == "siesta", resource["metadata"]["name"]


def test_the_python_processes_are_those_of_docker_compose(resources):
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    deployments = {
        r["metadata"]["name"].replace("-", "_"): r for r in resources if r["kind"] == "Deployment"
    }
    for name in ("worker_bots", "worker_analyses", "worker_periodic", "beat"):
        ours = command(deployments[name]["spec"]["template"]["spec"]["containers"][0])
        assert ours == services[name]["command"], name
    web = command(deployments["web"]["spec"]["template"]["spec"]["containers"][0])
    assert web.startswith(services["web"]["command"].removesuffix(" siesta_site.asgi:application"))
    assert web.endswith(" siesta_site.asgi:application")


def test_web_is_ready_on_health_and_drains_its_sockets_on_deploy(resources):
    web = find(resources, "Deployment", "web")
    assert web["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    spec = web["spec"]["template"]["spec"]
    daphne = spec["containers"][0]
    for probe in ("readinessProbe", "livenessProbe"):
        get = daphne[probe]["httpGet"]
        assert get["path"] == "/health/"
        # The probe's Host must be one Django accepts.
        host = {h["name"]: h["value"] for h in get["httpHeaders"]}["Host"]
        config = find(resources, "ConfigMap", "siesta")["data"]
        assert host in config["DJANGO_ALLOWED_HOSTS"].split(",")
    # preStop keeps the pod serving while nginx re-resolves the Service, within the grace period,
    # which also leaves Daphne its application-close timeout for the open sockets.
    pre_stop = int(daphne["lifecycle"]["preStop"]["exec"]["command"][1])
    close = daphne["command"][daphne["command"].index("--application-close-timeout") + 1]
    assert pre_stop + int(close) < spec["terminationGracePeriodSeconds"]
    nginx_conf = find(resources, "ConfigMap", "nginx")["data"]["nginx.conf"]
    assert re.search(r"resolver .* valid=(\d+)s;", nginx_conf)
    assert int(re.search(r"valid=(\d+)s", nginx_conf).group(1)) < pre_stop


def test_a_games_sockets_are_hashed_onto_one_web_pod(resources):
    conf = find(resources, "ConfigMap", "nginx")["data"]["nginx.conf"]
    upstream = re.search(r"upstream asgi_by_room \{(.*?)\}", conf, re.S).group(1)
    assert "hash $room consistent;" in upstream
    assert "web.siesta.svc.cluster.local:8000 resolve" in upstream
    assert re.search(
        r"location ~ \^/ws/\(games\|echo\)/\(\?<room>.*\n\s+proxy_pass http://asgi_by_room;", conf
    )
    # The headless Service gives nginx every pod's address, not one virtual IP.
    assert find(resources, "Service", "web")["spec"]["clusterIP"] == "None"
    nginx = find(resources, "Deployment", "nginx")["spec"]["template"]["spec"]
    assert nginx["volumes"][0]["configMap"]["name"].startswith("nginx")


def test_exactly_one_beat_never_two_during_a_rollout(resources):
    beats = [
        r
        for r in resources
        if r["kind"] == "Deployment"
        and "beat" in command(r["spec"]["template"]["spec"]["containers"][0])
    ]
    assert [b["metadata"]["name"] for b in beats] == ["beat"]
    assert beats[0]["spec"]["replicas"] == 1
    assert beats[0]["spec"]["strategy"]["type"] == "Recreate"
    assert not any(
        r["kind"] == "HorizontalPodAutoscaler" and r["spec"]["scaleTargetRef"]["name"] == "beat"
        for r in resources
    )


def test_one_deployment_per_celery_queue(resources):
    queues = set()
    for r in resources:
        if r["kind"] == "Deployment" and r["metadata"]["name"].startswith("worker-"):
            args = r["spec"]["template"]["spec"]["containers"][0]["command"]
            queues |= set(args[args.index("-Q") + 1].split(","))
    assert queues >= set(settings.SIESTA_TASK_QUEUES.values()) | {"celery"}


def test_the_migrations_run_as_a_job_that_the_pods_wait_for(resources):
    job = find(resources, "Job", "migrate")
    migrate = command(job["spec"]["template"]["spec"]["containers"][0])
    assert "manage.py migrate --noinput" in migrate
    # Straight to PostgreSQL: PgBouncer in transaction mode is for the serving traffic.
    assert 'DATABASE_URL="$POSTGRES_URL"' in migrate
    for name, spec in pod_specs(resources).items():
        if spec["containers"][0]["image"].startswith(PYTHON_IMAGE) and not name.startswith(
            ("Job/", "Deployment/beat")
        ):
            init = spec["initContainers"][0]
            assert "manage.py migrate --check" in command(init), name


def test_pgbouncer_pools_in_transaction_mode_and_the_site_is_set_for_it(resources):
    container = find(resources, "Deployment", "pgbouncer")["spec"]["template"]["spec"][
        "containers"
    ][0]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["POOL_MODE"] == "transaction"
    config = find(resources, "ConfigMap", "siesta")["data"]
    assert config["DJANGO_DB_PREPARED"] == "0"


def test_the_site_gets_every_setting_production_requires(resources):
    config = find(resources, "ConfigMap", "siesta")["data"]
    documented_secret = find(resources, "ConfigMap", "siesta")
    assert config["DJANGO_PRODUCTION"] == "1"
    assert config["SIESTA_SITE_URL"].startswith("https://")
    assert documented_secret
    # No Secret in the repository: the pods read one created apart (config.yaml).
    assert not [r for r in resources if r["kind"] == "Secret"]
    for name, spec in pod_specs(resources).items():
        for container in spec.get("initContainers", []) + spec["containers"]:
            if container["image"].startswith(PYTHON_IMAGE):
                refs = [next(iter(ref.values()))["name"] for ref in container["envFrom"]]
                assert refs == ["siesta", "siesta"], name


def test_every_pod_runs_unprivileged_and_bounded(resources):
    for name, spec in pod_specs(resources).items():
        assert spec["securityContext"]["runAsNonRoot"] is True, name
        assert spec["automountServiceAccountToken"] is False, name
        for container in spec.get("initContainers", []) + spec["containers"]:
            security = container["securityContext"]
            assert security["allowPrivilegeEscalation"] is False, name
            assert security["capabilities"]["drop"] == ["ALL"], name
            assert set(container["resources"]["requests"]) == {"cpu", "memory"}, name
            assert set(container["resources"]["limits"]) == {"cpu", "memory"}, name
            assert not container["image"].endswith(":latest"), name


def test_disruption_budgets_cover_the_replicated_deployments(resources):
    budgets = {
        r["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"]
        for r in resources
        if r["kind"] == "PodDisruptionBudget"
    }
    for r in resources:
        if r["kind"] == "Deployment" and r["spec"]["replicas"] > 1:
            assert r["metadata"]["name"] in budgets
