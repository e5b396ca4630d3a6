"""Sending to a Channels group from synchronous code after a commit: one place for every app.

A channel layer that is away (Redis down) is logged, never raised: the change it announces has
committed already, and watchers catch up with ``sync`` (the version tells them what they missed).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def group_send(group: str, event: Mapping[str, Any]) -> bool:
    """Send ``event`` to a Channels group; False (logged) without a layer or when it fails."""
    layer = get_channel_layer()
    if layer is None:
        return False
    try:
        async_to_sync(layer.group_send)(group, dict(event))
    except Exception:
        logger.warning(
            "could not broadcast %s to group %s", event.get("type"), group, exc_info=True
        )
        return False
    return True
