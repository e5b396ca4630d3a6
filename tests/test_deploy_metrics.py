"""deploy/metrics/: the alert rules, the Grafana dashboard and the Prometheus configuration name
only metrics that /metrics exposes, and the dashboard shows every one of the site's. With
``promtool`` on PATH (Debian's ``prometheus`` package) their syntax is checked too, and the rules'
unit tests (alerts.test.yml) run."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.urls import reverse
from prometheus_client import REGISTRY, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from siesta_site.metrics import ScrapeTimeCollector

DEPLOY = Path(settings.BASE_DIR) / "deploy" / "metrics"
SUFFIXES = {"counter": ["_total"], "histogram": ["_bucket", "_count", "_sum"], "gauge": [""]}
NAME = re.compile(r"\bsiesta_[a-z0-9_]+\b")


def families() -> dict[str, str]:
    """The site's metric families (``siesta_*``) and their types, from a scrape's text and the
    families read at the scrape."""
    found = {
        family.name: family.type
        for family in text_string_to_metric_families(generate_latest(REGISTRY).decode())
    }
    for family in ScrapeTimeCollector().describe():
        found[family.name] = family.type
    return {name: kind for name, kind in found.items() if name.startswith("siesta_")}


def sample_names() -> set[str]:
    return {name + suffix for name, kind in families().items() for suffix in SUFFIXES[kind]}


def alert_rules() -> list[dict]:
    document = yaml.safe_load((DEPLOY / "alerts.yml").read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def dashboard_exprs() -> list[str]:
    dashboard = json.loads((DEPLOY / "grafana-dashboard.json").read_text())
    return [
        target["expr"]
        for panel in dashboard["panels"]
        if panel["type"] != "row"
        for target in panel["targets"]
    ]


def test_every_alert_names_metrics_the_site_exposes():
    rules = alert_rules()
    exposed = sample_names()
    assert {rule["alert"] for rule in rules} >= {
        "SiestaMoveLatencyHigh",
        "SiestaQueueGrowing",
        "SiestaBroadcastFailures",
        "SiestaProcessRestarted",
    }
    for rule in rules:
        assert rule["annotations"]["summary"], rule["alert"]
        assert rule["labels"]["severity"] in {"page", "warn"}, rule["alert"]
        names = set(NAME.findall(rule["expr"]))
        assert names <= exposed, (rule["alert"], names - exposed)
        assert names or rule["expr"].startswith("up{"), rule["alert"]


def test_the_move_latency_alert_is_at_150_ms_on_the_move_histogram():
    rule = next(r for r in alert_rules() if r["alert"] == "SiestaMoveLatencyHigh")
    assert "histogram_quantile(0.99" in rule["expr"]
    assert "siesta_move_seconds_bucket" in rule["expr"]
    assert "> 0.15" in rule["expr"]


def test_the_dashboard_shows_every_metric_and_only_real_ones():
    exprs = dashboard_exprs()
    exposed = sample_names()
    named = set()
    for expr in exprs:
        names = set(NAME.findall(expr))
        assert names, expr
        assert names <= exposed, (expr, names - exposed)
        named |= names
    shown = {n for n in families() if any(s.startswith(n) for s in named)}
    assert shown == set(families())


def test_the_scrape_config_reads_the_endpoint_and_loads_the_rules():
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    [job] = config["scrape_configs"]
    assert job["metrics_path"] == reverse("metrics")
    for name in config["rule_files"]:
        assert (DEPLOY / name).is_file()


PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool is missing (apt-get install prometheus)"
)


def promtool(*args: str, cwd: Path = DEPLOY) -> None:
    assert PROMTOOL is not None
    result = subprocess.run(
        [PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
def test_promtool_accepts_the_rules_and_the_config_and_the_alerts_fire_when_they_should():
    promtool("check", "rules", "alerts.yml")
    promtool("check", "config", "prometheus.yml")
    promtool("test", "rules", "alerts.test.yml")


@needs_promtool
def test_promtool_accepts_every_dashboard_query(tmp_path):
    """Each panel's query as a recording rule (Grafana's ``$__rate_interval`` as 5m)."""
    rules = [
        {"record": f"dashboard:query_{n}", "expr": expr.replace("$__rate_interval", "5m")}
        for n, expr in enumerate(dashboard_exprs())
    ]
    (tmp_path / "queries.yml").write_text(
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]})
    )
    promtool("check", "rules", "queries.yml", cwd=tmp_path)
