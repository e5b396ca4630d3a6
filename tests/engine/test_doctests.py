"""The ``>>>`` examples in the engine's docstrings run and hold."""

import doctest
import importlib
import pkgutil

import pytest

import games.engine

MODULES = ["games.engine"] + [
    f"games.engine.{info.name}" for info in pkgutil.iter_modules(games.engine.__path__)
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_documented_modules_have_examples():
    attempted = {
        name: doctest.testmod(importlib.import_module(name)).attempted
        for name in ("games.engine", "games.engine.notation", "games.engine.position")
    }
    assert all(attempted.values()), attempted
