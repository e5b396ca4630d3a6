"""The versioning policy (docs/api.md, "Versioning"): the API under /api/ is v1, and the
schema's version says so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from rest_framework.test import APIClient


@pytest.mark.django_db
def test_the_schema_is_version_1_and_every_path_is_under_api():
    schema = APIClient().get("/api/schema/?format=json").json()

    assert re.fullmatch(r"1\.\d+\.\d+", schema["info"]["version"])
    assert all(path.startswith("/api/") for path in schema["paths"])
    assert not any(re.match(r"/api/v\d+/", path) for path in schema["paths"])


def test_the_docs_state_the_policy():
    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    policy = text.split("\n## Versioning\n", 1)[1]
    assert "`/api/v2/`" in policy
    assert "`1.x.y`" in policy
