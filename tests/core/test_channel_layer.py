"""The Redis channel layer waits for a free connection instead of failing: many watchers joining
at once (more than the pool holds) all get in."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from channels.exceptions import ChannelFull
from channels_redis.core import RedisChannelLayer as ChannelsRedisLayer
from django.conf import settings

from core.channel_layer import POP_BATCH, RedisChannelLayer

pytestmark = pytest.mark.requires_redis


async def test_more_joins_at_once_than_connections_all_succeed():
    layer = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "max_connections": 2, "timeout": 10}],
        prefix=f"test-{uuid.uuid4().hex}:",
    )
    group = "game.1"
    channels = [await layer.new_channel() for _ in range(50)]
    try:
        await asyncio.gather(*(layer.group_add(group, c) for c in channels))
        await layer.group_send(group, {"type": "game.state", "n": 1})
        received = await asyncio.gather(*(layer.receive(c) for c in channels[:5]))
        assert [m["n"] for m in received] == [1] * 5
    finally:
        await asyncio.gather(*(layer.group_discard(group, c) for c in channels))
        await layer.flush()


def test_the_site_layer_is_sized_and_keeps_many_messages():
    if not settings.REDIS_URL:
        pytest.skip("the Redis layer is configured only with REDIS_URL")
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith("channel_layer.RedisChannelLayer")
    assert config["hosts"][0]["max_connections"] >= 32
    assert config["capacity"] >= 1000


async def _send_sync(layer, group, message):
    """``group_send_sync`` as the services call it: from a thread without an event loop."""
    await asyncio.to_thread(layer.group_send_sync, group, message)


async def _send_async(layer, group, message):
    await layer.group_send(group, message)


# With a capacity per channel pattern the layer sends in two round trips; otherwise in one.
ONE_ROUND_TRIP, TWO_ROUND_TRIPS = {}, {"channel_capacity": {"no-such-channel": 5}}


@pytest.mark.parametrize("options", [ONE_ROUND_TRIP, TWO_ROUND_TRIPS], ids=["one", "two"])
@pytest.mark.parametrize("send", [_send_async, _send_sync])
async def test_group_send_keeps_the_layers_expiry_and_capacity(send, options):
    """group_send, in one round trip or two, from the event loop or a thread, behaves as
    channels_redis's: members past ``group_expiry`` get nothing, a process's inbox at ``capacity``
    drops the message, everyone else gets it once."""
    prefix = f"test-{uuid.uuid4().hex}:"
    config = {
        "hosts": [{"address": settings.REDIS_URL}],
        "prefix": prefix,
        "group_expiry": 60,
        **options,
    }
    layer, other = RedisChannelLayer(**config, capacity=1), RedisChannelLayer(**config, capacity=1)
    group = "game.2"
    live, expired = await layer.new_channel(), await layer.new_channel()
    full = await other.new_channel()  # another process, whose inbox is full
    try:
        for channel in (live, full, expired):
            await layer.group_add(group, channel)
        connection = layer.connection(layer.consistent_hash(group))
        await connection.zadd(layer._group_key(group), {expired: 1})  # joined long ago
        await other.send(full, {"type": "game.state", "n": 0})
        await send(layer, group, {"type": "game.state", "n": 1})
        assert (await layer.receive(live))["n"] == 1
        assert (await other.receive(full))["n"] == 0
        members = await connection.zrange(layer._group_key(group), 0, -1)
        assert sorted(m.decode() for m in members) == sorted([live, full])
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(other.receive(full), 0.5)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(expired), 0.5)
    finally:
        await layer.flush()


class _OldRedisLayer(RedisChannelLayer):
    """The layer against a Redis without BZMPOP (before 7.0): the command it sends is unknown."""

    async def _pop_batch(self, connection, key):
        await connection.send_command("BZMPOP_BEFORE_REDIS_7", key)
        return await connection.read_response()


@pytest.mark.parametrize(
    "layer_class",
    [RedisChannelLayer, _OldRedisLayer, ChannelsRedisLayer],
    ids=["bzmpop", "bzpopmin", "channels_redis"],
)
async def test_a_process_receives_each_message_once_in_order(layer_class):
    """The reader's receive behaves as channels_redis's (the test runs both; ours with BZMPOP and,
    as on a Redis before 7.0, BZPOPMIN): a process's channels get another process's messages once
    each and in order, its group message reaches each of them, a receive cancelled while waiting
    loses nothing, and nothing is left in Redis."""
    prefix = f"test-{uuid.uuid4().hex}:"
    layer = layer_class(hosts=[{"address": settings.REDIS_URL}], prefix=prefix)
    sender = layer_class(hosts=[{"address": settings.REDIS_URL}], prefix=prefix)  # elsewhere
    first, second = await layer.new_channel(), await layer.new_channel()
    connection = layer.connection(0)
    try:
        waiting = asyncio.ensure_future(layer.receive(first))
        await asyncio.sleep(0.2)  # blocked in the pop of the process's inbox
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        for n in range(5):
            await sender.send(first, {"type": "game.state", "n": n})
        await sender.send(second, {"type": "game.state", "n": 10})
        await layer.group_add("game.3", first)
        await layer.group_add("game.3", second)
        await sender.group_send("game.3", {"type": "game.state", "n": 20})
        assert [(await layer.receive(first))["n"] for _ in range(6)] == [0, 1, 2, 3, 4, 20]
        assert [(await layer.receive(second))["n"] for _ in range(2)] == [10, 20]
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(first), 0.3)
        await layer.wait_received()
        await layer.group_discard("game.3", first)
        await layer.group_discard("game.3", second)
        assert await connection.keys(f"{prefix}*") == []
        if layer_class is not ChannelsRedisLayer:
            assert layer.batched_pops is (layer_class is RedisChannelLayer)
    finally:
        await layer.flush()


async def test_a_backlog_larger_than_a_batch_arrives_whole_and_in_order():
    """Messages that pile up in the inbox while nobody reads (a busy process) come over in batches
    of ``POP_BATCH``, each channel's in the order sent."""
    prefix = f"test-{uuid.uuid4().hex}:"
    layer = RedisChannelLayer(hosts=[{"address": settings.REDIS_URL}], prefix=prefix, capacity=1000)
    first, second = await layer.new_channel(), await layer.new_channel()
    count = 2 * POP_BATCH + 5
    try:
        for n in range(count):
            await layer.send(first if n % 3 else second, {"type": "game.state", "n": n})
        got_first = [(await layer.receive(first))["n"] for n in range(count) if n % 3]
        got_second = [(await layer.receive(second))["n"] for n in range(count) if not n % 3]
        assert got_first == [n for n in range(count) if n % 3]
        assert got_second == [n for n in range(count) if not n % 3]
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(first), 0.3)
    finally:
        await layer.flush()


async def test_when_redis_fails_every_waiting_receive_raises_and_the_next_one_reads_again():
    """The reader that pops the process's inbox stops on a Redis error and hands it to every waiting
    ``receive`` (their sockets close and the clients reconnect, as with channels_redis); the next
    ``receive`` starts a new reader."""
    prefix = f"test-{uuid.uuid4().hex}:"
    layer = RedisChannelLayer(hosts=[{"address": settings.REDIS_URL}], prefix=prefix)
    first, second = await layer.new_channel(), await layer.new_channel()
    connection = layer.connection(0)
    # Connections that were open before this layer's reader (other layers of this process, other
    # processes on the same Redis) keep "bzmpop" as their last command when their reader went
    # idle: only the connection that appears now, blocked, is this layer's reader.
    before = {client["id"] for client in await connection.client_list()}
    try:
        waiting = [asyncio.ensure_future(layer.receive(c)) for c in (first, second)]
        await asyncio.sleep(0.2)  # the reader is blocked in BZMPOP
        killed = 0
        for client in await connection.client_list():
            if (
                client["id"] not in before
                and client["cmd"] == "bzmpop"
                and "b" in client["flags"]
                and client["db"] == str(connection.connection_pool.connection_kwargs["db"])
            ):
                killed += await connection.client_kill_filter(_id=client["id"])
        assert killed == 1
        results = await asyncio.gather(*waiting, return_exceptions=True)
        assert all(isinstance(r, Exception) for r in results), results
        await layer.send(second, {"type": "game.state", "n": 1})
        assert (await asyncio.wait_for(layer.receive(second), 5))["n"] == 1
    finally:
        await layer.flush()


async def test_many_channels_of_one_process_each_get_their_messages():
    prefix = f"test-{uuid.uuid4().hex}:"
    layer = RedisChannelLayer(hosts=[{"address": settings.REDIS_URL}], prefix=prefix)
    channels = [await layer.new_channel() for _ in range(30)]
    try:
        receiving = [asyncio.ensure_future(layer.receive(c)) for c in channels]
        for index, channel in enumerate(channels):
            await layer.group_add("game.4", channel)
            await layer.send(channel, {"type": "game.state", "n": index})
        assert [m["n"] for m in await asyncio.gather(*receiving)] == list(range(30))
        await layer.group_send("game.4", {"type": "game.state", "n": 99})
        again = await asyncio.gather(*(layer.receive(c) for c in channels))
        assert [m["n"] for m in again] == [99] * 30
    finally:
        await layer.flush()


async def test_a_synchronous_send_reconnects_after_redis_dropped_its_connection():
    """``group_send_sync`` sends on a pooled connection; one that Redis closed (a restart, an idle
    timeout) is replaced on the next send, which still arrives."""
    layer = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL}], prefix=f"t-{uuid.uuid4().hex}:"
    )
    channel = await layer.new_channel()
    assert layer.sends_sync
    try:
        await layer.group_add("game.5", channel)
        await _send_sync(layer, "game.5", {"type": "game.state", "n": 1})
        connection = layer.connection(0)
        killed = 0
        for client in await connection.client_list():
            if client["cmd"] == "eval":  # the synchronous sender's, idle since its last EVAL
                killed += await connection.client_kill_filter(_id=client["id"])
        assert killed >= 1
        await _send_sync(layer, "game.5", {"type": "game.state", "n": 2})
        assert [(await layer.receive(channel))["n"] for _ in range(2)] == [1, 2]
    finally:
        await layer.flush()


async def test_sends_from_a_thousand_threads_share_a_bounded_pool_and_keep_arriving():
    """Daphne runs each request on a thread of its own: a thousand threads that each broadcast
    once use a few pooled connections between them, and another process's channel still gets
    every message and the next one (a connection kept per thread ran out after ~100)."""
    import threading

    prefix = f"t-{uuid.uuid4().hex}:"
    sender = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "max_connections": 4}], prefix=prefix, capacity=2000
    )
    receiver = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "socket_timeout": None}],
        prefix=prefix,
        capacity=2000,
    )
    channel = await receiver.new_channel()
    try:
        await receiver.group_add("game.9", channel)

        def send_on_threads(first: int, count: int) -> None:
            for n in range(first, first + count):
                thread = threading.Thread(
                    target=sender.group_send_sync, args=("game.9", {"type": "t", "n": n})
                )
                thread.start()
                thread.join()

        await asyncio.to_thread(send_on_threads, 0, 1000)
        await asyncio.to_thread(send_on_threads, 1000, 1)
        received = [
            (await asyncio.wait_for(receiver.receive(channel), 10))["n"] for _ in range(1001)
        ]
        assert received == list(range(1001))
    finally:
        await receiver.flush()
        await receiver.close_pools()


async def test_the_services_broadcast_reaches_the_group_from_a_thread():
    """``core.broadcast`` sends on commit from a thread with no event loop (a Celery task,
    a request, a consumer's database thread): the Redis layer's synchronous send delivers it."""
    from core import broadcast

    layer = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL}], prefix=f"t-{uuid.uuid4().hex}:"
    )
    channel = await layer.new_channel()
    try:
        await layer.group_add("game.6", channel)
        await asyncio.to_thread(
            broadcast.layer_group_send, layer, "game.6", {"type": "game.state", "n": 7}
        )
        assert (await layer.receive(channel))["n"] == 7
    finally:
        await layer.flush()


@pytest.mark.parametrize("send", [_send_async, _send_sync])
async def test_a_group_message_is_stored_as_channels_redis_stores_it(send):
    """The one-round-trip send stores in each inbox what channels_redis's own would: its layer
    reads it, for a process's channels (one inbox, both channels named) and a plain channel."""
    prefix = f"t-{uuid.uuid4().hex}:"
    ours = RedisChannelLayer(hosts=[{"address": settings.REDIS_URL}], prefix=prefix)
    theirs = ChannelsRedisLayer(hosts=[{"address": settings.REDIS_URL}], prefix=prefix)
    first, second = await theirs.new_channel(), await theirs.new_channel()
    try:
        for channel in (first, second, "plain.channel"):
            await theirs.group_add("game.7", channel)
        message = {"type": "game.state", "game": {"seats": [{"username": "añа"}]}, "version": 3}
        assert ours._one_round_trip(message, "") is not None  # the one-script way
        await send(ours, "game.7", message)
        for channel in (first, second, "plain.channel"):
            assert await asyncio.wait_for(theirs.receive(channel), 5) == message
    finally:
        await theirs.flush()


async def _idle_reader(layer):
    """Start the layer receiving (the test's loop is then the one its channels receive on), then
    stop its reader: what still arrives came without Redis."""
    channel = await layer.new_channel()
    waiting = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0.1)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await layer._stop_reader()


@pytest.mark.parametrize("send", [_send_async, _send_sync])
async def test_a_group_message_reaches_the_process_own_channels_without_redis(send):
    """A process's group message goes straight to its own channels in the group (from its event
    loop, or from a thread such as a move's database thread); Redis carries it only to the other
    processes' channels, and carries theirs to this one."""
    prefix = f"t-{uuid.uuid4().hex}:"
    layer = RedisChannelLayer(hosts=[{"address": settings.REDIS_URL}], prefix=prefix)
    other = RedisChannelLayer(hosts=[{"address": settings.REDIS_URL}], prefix=prefix)
    mine, theirs = await layer.new_channel(), await other.new_channel()
    connection = layer.connection(0)
    try:
        await layer.group_add("game.8", mine)
        await other.group_add("game.8", theirs)
        await _idle_reader(layer)
        await send(layer, "game.8", {"type": "game.state", "n": 1})
        await asyncio.sleep(0.1)  # from a thread, the hand-over is scheduled on the loop
        assert await connection.zcard(f"{prefix}{layer.non_local_name(mine)}") == 0
        assert await connection.zcard(f"{prefix}{other.non_local_name(theirs)}") == 1
        assert (await asyncio.wait_for(layer.receive(mine), 5))["n"] == 1
        assert (await asyncio.wait_for(other.receive(theirs), 5))["n"] == 1
        await send(other, "game.8", {"type": "game.state", "n": 2})  # the other way: by Redis
        assert (await asyncio.wait_for(layer.receive(mine), 5))["n"] == 2
        assert (await asyncio.wait_for(other.receive(theirs), 5))["n"] == 2
    finally:
        await layer.flush()


async def test_the_process_own_members_leave_groups_as_through_redis():
    """Without Redis, a process's own channel gets a group's messages only while it is a member:
    not after ``group_discard``, not once ``group_expiry`` has passed since it last joined, and not
    past its buffer's ``capacity``."""
    prefix = f"t-{uuid.uuid4().hex}:"
    layer = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL}], prefix=prefix, group_expiry=1, capacity=2
    )
    staying, leaving, expiring = [await layer.new_channel() for _ in range(3)]
    try:
        await _idle_reader(layer)
        await layer.group_add("game.9", expiring)
        await asyncio.sleep(2.1)
        await layer.group_add("game.9", staying)
        await layer.group_add("game.9", leaving)
        await layer.group_discard("game.9", leaving)
        for n in range(3):
            await layer.group_send("game.9", {"type": "game.state", "n": n})
        assert [(await layer.receive(staying))["n"] for _ in range(2)] == [0, 1]
        for channel in (staying, leaving, expiring):
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(layer.receive(channel), 0.3)
        assert list(layer._local_groups["game.9"]) == [staying]  # the others are forgotten
    finally:
        await layer.flush()


async def test_a_send_to_the_process_own_channel_keeps_order_and_capacity():
    """A process's ``send`` to its own channel skips Redis too, so its direct and group messages
    arrive in the order sent; at ``capacity`` the send raises ``ChannelFull`` as through Redis."""
    prefix = f"t-{uuid.uuid4().hex}:"
    layer = RedisChannelLayer(hosts=[{"address": settings.REDIS_URL}], prefix=prefix, capacity=3)
    channel = await layer.new_channel()
    try:
        await _idle_reader(layer)
        await layer.group_add("game.10", channel)
        await layer.send(channel, {"type": "game.state", "n": 0})
        await layer.group_send("game.10", {"type": "game.state", "n": 1})
        await layer.send(channel, {"type": "game.state", "n": 2})
        with pytest.raises(ChannelFull):
            await layer.send(channel, {"type": "game.state", "n": 3})
        assert [(await layer.receive(channel))["n"] for _ in range(3)] == [0, 1, 2]
        # Only the group is in Redis: no inbox was written.
        assert await layer.connection(0).keys(f"{prefix}*") == [layer._group_key("game.10")]
    finally:
        await layer.flush()


async def test_a_join_that_redis_refused_is_forgotten_and_a_renewal_kept():
    """A channel that could not join (Redis away) gets nothing from its own process either; one
    whose renewal failed still does, as Redis still holds it until ``group_expiry``."""
    prefix = f"t-{uuid.uuid4().hex}:"
    layer = RedisChannelLayer(hosts=[{"address": settings.REDIS_URL}], prefix=prefix)
    joined, refused = await layer.new_channel(), await layer.new_channel()
    try:
        await _idle_reader(layer)
        await layer.group_add("game.11", joined)
        key = layer._group_key("game.11")
        connection = layer.connection(0)
        await connection.set(key, "not a sorted set")  # every ZADD on the group now fails
        for channel in (joined, refused):
            with pytest.raises(Exception, match="WRONGTYPE"):
                await layer.group_add("game.11", channel)
        await connection.delete(key)
        await layer.group_send("game.11", {"type": "game.state", "n": 1})
        assert (await asyncio.wait_for(layer.receive(joined), 5))["n"] == 1
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(refused), 0.3)
    finally:
        await layer.flush()


async def test_a_channel_gets_its_own_process_sends_from_the_moment_it_starts_joining():
    """Redis leaves the process's own channels to it, so a channel is known here before Redis has
    it: a send from the process while the join is on its way to Redis still reaches it."""
    layer = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL}], prefix=f"t-{uuid.uuid4().hex}:"
    )
    channel = await layer.new_channel()
    try:
        await _idle_reader(layer)
        joining = asyncio.ensure_future(layer.group_add("game.12", channel))
        await asyncio.sleep(0)  # the join has started, Redis has not answered yet
        await layer.group_send("game.12", {"type": "game.state", "n": 1})
        await joining
        assert (await asyncio.wait_for(layer.receive(channel), 5))["n"] == 1
    finally:
        await layer.flush()


@pytest.mark.parametrize("local", [True, False], ids=["own channel", "shared channel"])
async def test_group_add_stores_what_channels_redis_stores(local):
    """One round trip, the same record: the channel scored with the time it joined, the group's
    key expiring after ``group_expiry``; channels_redis's layer sends to it as to its own."""
    prefix = f"test-{uuid.uuid4().hex}:"
    config = {"hosts": [{"address": settings.REDIS_URL}], "prefix": prefix, "group_expiry": 90}
    layer, theirs = RedisChannelLayer(**config), ChannelsRedisLayer(**config)
    channel = await layer.new_channel() if local else "shared.channel"
    group = "game.12"
    connection = layer.connection(layer.consistent_hash(group))
    sent: list[str] = []
    execute = connection.execute_command

    async def counted(*args, **options):
        sent.append(str(args[0]))
        return await execute(*args, **options)

    connection.execute_command = counted
    try:
        before = time.time()
        await layer.group_add(group, channel)
        assert sent == ["EVAL"]  # channels_redis sends ZADD, then EXPIRE
        connection.execute_command = execute
        key = layer._group_key(group)
        members = await connection.zrange(key, 0, -1, withscores=True)
        assert [m.decode() for m, _ in members] == [channel]
        assert before <= members[0][1] <= time.time()
        assert 85 <= await connection.ttl(key) <= 90

        await theirs.group_send(group, {"type": "game.state", "n": 1})
        receiver = layer if local else theirs
        message = await asyncio.wait_for(receiver.receive(channel), 5)
        assert message["n"] == 1
    finally:
        await layer.group_discard(group, channel)
        await layer.flush()
        await theirs.flush()


def test_channels_redis_is_the_version_whose_storage_format_the_layer_writes():
    from importlib.metadata import version

    from core.channel_layer import WRITTEN_FOR

    assert version("channels-redis") == WRITTEN_FOR
