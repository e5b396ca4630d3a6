from collections.abc import AsyncIterator

import pytest

from tests.social.sockets import Sockets, own_layer_prefix  # noqa: F401 - a fixture


@pytest.fixture
async def sockets(own_layer_prefix) -> AsyncIterator[Sockets]:  # noqa: F811
    opened = Sockets()
    yield opened
    await opened.close()
