"""Fixtures of the site-wide tests."""

from __future__ import annotations

import copy

import pytest
from django.db import connections

UNREACHABLE_POOL_TIMEOUT = 0.3
"""How long a request waits for a pooled PostgreSQL connection that never comes."""


@pytest.fixture
def unreachable_database(transactional_db):
    """The default database's connection settings pointed where nothing answers."""
    connection = connections["default"]
    saved = copy.deepcopy(connection.settings_dict)
    if connection.vendor == "sqlite":
        # The shared in-memory test database ignores close(); put its connection aside instead.
        real, connection.connection = connection.connection, None
        connection.settings_dict["NAME"] = "/nonexistent/siesta/db.sqlite3"
    else:
        real = None
        connection.close()
        if connection.pool:
            connection.close_pool()
        connection.settings_dict.update(HOST="127.0.0.1", PORT="1")
        options = connection.settings_dict["OPTIONS"]
        if isinstance(options.get("pool"), dict):
            options["pool"] = {**options["pool"], "timeout": UNREACHABLE_POOL_TIMEOUT}
    yield
    connection.close()
    if connection.vendor != "sqlite" and connection.pool:
        connection.close_pool()
    connection.settings_dict.clear()
    connection.settings_dict.update(saved)
    if real is not None:
        connection.connection = real
