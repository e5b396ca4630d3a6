"""Fixtures for the accounts tests: an anonymous API client."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def anon() -> APIClient:
    return APIClient()
