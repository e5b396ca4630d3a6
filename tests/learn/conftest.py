import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fresh_throttle():
    """The analysis throttle counts in the cache: every test starts with none used."""
    cache.clear()
    yield
    cache.clear()
