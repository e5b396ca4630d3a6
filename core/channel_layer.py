"""The Redis channel layer with a blocking connection pool and a cheaper ``group_send``.

channels_redis builds a plain ``redis.asyncio.ConnectionPool`` per event loop, which raises
``ConnectionError: Too many connections`` past ``max_connections``: with hundreds of watchers
connecting at once, their ``group_add`` calls failed and the sockets closed with 1011. A
``BlockingConnectionPool`` makes a call wait (up to ``timeout`` seconds) for a free connection.

``group_send`` (one per move) does what channels_redis's does in one round trip to Redis instead
of four where there is one Redis host (``_GROUP_SEND``), and in two otherwise: one script drops the
expired members and reads the group, one script per Redis host drops each inbox's expired messages
and adds the new one within its capacity. ``group_send_sync`` does the same from a thread, on a
connection of a bounded pool shared by the process's threads: the services broadcast from there.

``receive_single`` on this process's own inbox (every WebSocket's channel) is one BZPOPMIN per
message instead of four round trips. channels_redis runs a script that moves a backup queue back
into the inbox, the BZPOPMIN, a ZADD of the message into the backup and, in a task once the message
is delivered, a ZPOPMIN of the backup. The backup guards only the await of its own ZADD: between
BZPOPMIN's reply and the delivery to the consumer's buffer nothing else is awaited, and a receive
cancelled while the BZPOPMIN reply is on its way loses the message in both. An inbox belongs to one
process (its name holds the process's random prefix), so no other receiver needs the backup.
Channels shared between processes (no ``!``) keep channels_redis's way.

``receive`` on those channels: one reader task per process pops the inbox (on a connection of its
own, all the waiting messages at once with BZMPOP: ``POP_BATCH``) and hands each message to its
channels' buffers, and a consumer's ``receive`` only waits on its own buffer. channels_redis
instead makes every waiting ``receive`` race for a lock with two fresh tasks, and the winner pops
for everyone: about a sixth of a web process's CPU under load (docs/performance.md). The reader
stops when Redis fails (every waiting ``receive`` raises, as before: the sockets close and their
clients reconnect) and when the layer is flushed or its pools closed; the
next ``receive`` starts a new one.

A message for this process's own channels skips Redis (``_deliver_locally``). The layer keeps its
own record of which of its channels are in which group (``group_add``/``group_discard``, with the
same ``group_expiry``); ``group_send``, from the event loop or from a thread, hands the message to
those channels' buffers on the loop that receives, and the Redis script leaves this process's inbox
out. Redis still holds every member, so other processes reach these channels as before. nginx
sends all the sockets of a game to one process (docs/operations.md), so a move's state reaches its
players and most watchers without the round trip through Redis and back. A ``send`` to one of the
process's own channels goes the same way, which keeps each sender's messages in order. A channel
of this process added to a group by another process is not known here and, once this layer
receives, gets that group's messages from this process only through that other process's sends:
channels are only ever added by their own consumers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import Any, cast

import redis
from channels.exceptions import ChannelFull
from channels_redis.core import RedisChannelLayer as _RedisChannelLayer
from redis import asyncio as aioredis

logger = logging.getLogger(__name__)

WRITTEN_FOR = "4.3.0"
"""The channels_redis version whose storage format (inbox keys, msgpack bodies, group sorted sets)
this layer writes and reads. pyproject.toml pins exactly it; tests/core/test_channel_layer.py fails
on any other, and on the stock layer reading what this one stores."""

_sync_lock = threading.Lock()

_GROUP_MEMBERS = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""

# channels_redis's group_send script, with its pipeline of ZREMRANGEBYSCORE (expired messages of
# each inbox) folded in. ARGV: the messages, the capacities, now, the expiry, the cut-off.
_GROUP_PUSH = """
local over_capacity = 0
local current_time = ARGV[#ARGV - 2]
local expiry = ARGV[#ARGV - 1]
local cutoff = ARGV[#ARGV]
for i=1,#KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, cutoff)
    if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[i + #KEYS]) then
        redis.call('ZADD', KEYS[i], current_time, ARGV[i])
        redis.call('EXPIRE', KEYS[i], expiry)
    else
        over_capacity = over_capacity + 1
    end
end
return over_capacity
"""


# group_send in one round trip (one Redis host, the default serializer, no per-channel capacity):
# read the group's live members, bucket them by inbox (a process's channels share one), and add
# the message to each inbox within its capacity. The message comes serialized once, as
# channels_redis stores it (random prefix, then msgpack) with ``__asgi_channel__`` last and nil;
# each inbox gets it with that nil replaced by the list of its own channels, exactly what
# channels_redis would store. KEYS: the group. ARGV: the group's cut-off, the key prefix, the
# message, the capacity, now, the inboxes' expiry, their messages' cut-off, the sender's own inbox
# (its channels get the message in the process: left out here; empty for none). Returns the member
# count and the inboxes at capacity.
_GROUP_SEND = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[1])
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local channels, inboxes = {}, {}
for _, member in ipairs(members) do
    local bang = string.find(member, '!', 1, true)
    local inbox = ARGV[2] .. (bang and string.sub(member, 1, bang) or member)
    if channels[inbox] == nil then
        channels[inbox] = {}
        inboxes[#inboxes + 1] = inbox
    end
    table.insert(channels[inbox], member)
end
local head = string.sub(ARGV[3], 1, -2)
local over = 0
for _, inbox in ipairs(inboxes) do
    if inbox ~= ARGV[8] then
        redis.call('ZREMRANGEBYSCORE', inbox, 0, ARGV[7])
        if redis.call('ZCARD', inbox) < tonumber(ARGV[4]) then
            redis.call('ZADD', inbox, ARGV[5], head .. cmsgpack.pack(channels[inbox]))
            redis.call('EXPIRE', inbox, ARGV[6])
        else
            over = over + 1
        end
    end
end
return {#members, over}
"""

# channels_redis's group_add (ZADD, then EXPIRE: two round trips) in one. KEYS: the group. ARGV:
# now, the channel, the group's expiry.
_GROUP_ADD = """
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
"""

_MSGPACK_NIL = 0xC0

POP_BATCH = 64
"""The most messages the reader takes from the process's inbox in one round trip. Under load
several wait there by the time it asks again: one BZMPOP hands them all over, where BZPOPMIN took a
round trip (a command written, a reply read, an event-loop turn) for each."""


class _ReaderFailed:
    """Put in a channel's buffer when the reader stops on an error: its ``receive`` raises it."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class RedisChannelLayer(_RedisChannelLayer):  # type: ignore[misc]
    _reader: asyncio.Task[None] | None = None
    _receive_loop: asyncio.AbstractEventLoop | None = None
    """The event loop this process's channels receive on (the reader's), once one receives."""
    batched_pops = True
    """Whether the reader pops with BZMPOP (Redis 7.0+); it turns this off on an older Redis."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._local_inbox = f"specific.{self.client_prefix}!"
        # Per group, this process's channels in it and when each last joined (``group_add``).
        # Read and changed on the receiving loop only.
        self._local_groups: dict[str, dict[str, float]] = {}

    def _is_local(self, channel: str) -> bool:
        """Whether ``channel`` is one of this process's own (made by its ``new_channel``)."""
        return "!" in channel and self.non_local_name(channel) == self._local_inbox

    async def group_add(self, group: str, channel: str) -> None:
        """Recorded here before Redis has it, so that no send from this process can fall between
        the two: Redis leaves this process's channels to it as soon as it receives. A first join
        that Redis refused is forgotten again; a renewal is kept (Redis still holds the member)."""
        if not self._is_local(channel):
            await self._group_add_in_redis(group, channel)
            return
        first = channel not in self._local_groups.get(group, {})
        self._local_groups.setdefault(group, {})[channel] = time.time()
        try:
            await self._group_add_in_redis(group, channel)
        except BaseException:
            if first:
                self._forget(group, channel)
            raise

    async def _group_add_in_redis(self, group: str, channel: str) -> None:
        """What channels_redis's ``group_add`` stores (the channel, scored with the time it
        joined; the group's key expiring after ``group_expiry``), in one round trip instead of
        two: every socket joins a game's group, hundreds at once when games begin."""
        assert self.require_valid_group_name(group), "Group name not valid"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        connection = self.connection(self.consistent_hash(group))
        key = self._group_key(group)
        await connection.eval(_GROUP_ADD, 1, key, time.time(), channel, self.group_expiry)

    async def group_discard(self, group: str, channel: str) -> None:
        self._forget(group, channel)
        await super().group_discard(group, channel)

    def _forget(self, group: str, channel: str) -> None:
        members = self._local_groups.get(group)
        if members is not None:
            members.pop(channel, None)
            if not members:
                del self._local_groups[group]

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        """To one of this process's channels on the loop that receives it: straight into its
        buffer (``ChannelFull`` at ``capacity``, as through Redis); anywhere else through Redis."""
        if self._is_local(channel) and self._receive_loop is _running_loop():
            assert isinstance(message, dict), "message is not a dict"
            assert "__asgi_channel__" not in message
            queue = self.receive_buffer[channel]
            if queue.full():
                raise ChannelFull()
            queue.put_nowait(dict(message))
            return
        await super().send(channel, message)

    def _send_locally(self, group: str, message: dict[str, Any]) -> str:
        """Hand ``message`` to this process's channels in ``group`` (``_deliver_locally``) on the
        loop they receive on, at once from that loop, soon from any other thread. Returns the
        inbox that the send through Redis must leave out: this process's, or "" when nothing here
        receives (a Celery worker, a loop that has stopped), which sends everything through
        Redis."""
        loop = self._receive_loop
        if loop is None or not loop.is_running():
            return ""
        body = dict(message)
        if loop is _running_loop():
            self._deliver_locally(group, body)
        else:
            loop.call_soon_threadsafe(self._deliver_locally, group, body)
        return f"{self.prefix}{self._local_inbox}"

    def _deliver_locally(self, group: str, message: dict[str, Any]) -> None:
        """Put ``message`` in the buffer of each of this process's channels in ``group``, as the
        reader would have done after the round trip through Redis: members past ``group_expiry``
        are dropped, and a channel whose buffer is at ``capacity`` does without (logged)."""
        members = self._local_groups.get(group)
        if not members:
            return
        cutoff = int(time.time()) - self.group_expiry
        over = 0
        for channel, joined in list(members.items()):
            if joined <= cutoff:
                del members[channel]
                continue
            queue = self.receive_buffer[channel]
            if queue.full():
                over += 1
            else:
                queue.put_nowait(message)
        if not members:
            del self._local_groups[group]
        self._log_over_capacity(over, group, len(members))

    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        if "address" not in host:
            return super().create_pool(index)
        address = host.pop("address")
        return aioredis.BlockingConnectionPool.from_url(address, **host)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert self.require_valid_group_name(group), "Group name not valid"
        own_inbox = self._send_locally(group, message)
        key = self._group_key(group)
        connection = self.connection(self.consistent_hash(group))
        args = self._one_round_trip(message, own_inbox)
        if args is not None:
            members, over = await connection.eval(_GROUP_SEND, 1, key, *args)
            self._log_over_capacity(over, group, members)
            return
        members = await connection.eval(
            _GROUP_MEMBERS, 1, key, int(time.time()) - self.group_expiry
        )
        for index, keys, args in self._group_pushes(self._others(members, own_inbox), message):
            over = await self.connection(index).eval(_GROUP_PUSH, len(keys), *keys, *args)
            self._log_over_capacity(over, group, len(members))

    def group_send_sync(self, group: str, message: dict[str, Any]) -> None:
        """``group_send`` from synchronous code in any thread, over the process's shared pool.

        The services broadcast on commit from a worker thread (WebSocket moves), a request thread
        (the REST API) or a Celery worker. Handing the send to an event loop cost a thread hop and
        redis-py's asyncio client per round trip (outside the web process, a new event loop and a
        new Redis connection per broadcast); redis-py's synchronous client costs as much again
        (its retries and metrics: ~0.2 ms of CPU per command). The same scripts, sent on a
        connection of a pool that every thread shares (``_sync_pool``), cost a fraction of that. A
        send whose connection had died is sent again once (as redis-py's ``retry_on_error`` did)."""
        assert self.require_valid_group_name(group), "Group name not valid"
        own_inbox = self._send_locally(group, message)
        key = self._group_key(group)
        args = self._one_round_trip(message, own_inbox)
        if args is not None:
            members, over = self._sync_eval(self.consistent_hash(group), _GROUP_SEND, [key], args)
            self._log_over_capacity(over, group, members)
            return
        members = self._sync_eval(
            self.consistent_hash(group),
            _GROUP_MEMBERS,
            [key],
            [int(time.time()) - self.group_expiry],
        )
        for index, keys, args in self._group_pushes(self._others(members, own_inbox), message):
            over = self._sync_eval(index, _GROUP_PUSH, keys, args)
            self._log_over_capacity(over, group, len(members))

    def _sync_eval(self, index: int, script: str, keys: list[str], args: list[Any]) -> Any:
        """EVAL on a connection of the process's shared pool for host ``index``, handed back to
        the pool afterwards; once more when the connection had died (Redis restarted, idle
        timeout): the pool reconnects it.

        Every thread shares the pool. Daphne runs each request's sync code on a thread of its own,
        so a connection kept per thread was never given back: past the pool's size every later
        broadcast from a request failed (``MaxConnectionsError``)."""
        pool = self._sync_pool(index)
        for attempt in (1, 2):
            connection = pool.get_connection()  # type: ignore[no-untyped-call]
            try:
                connection.send_command("EVAL", script, len(keys), *keys, *args)
                return connection.read_response()
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                connection.disconnect()
                if attempt == 2:
                    raise
            finally:
                pool.release(connection)  # type: ignore[no-untyped-call]
        raise AssertionError("unreachable")

    def _sync_pool(self, index: int) -> redis.BlockingConnectionPool:
        """The bounded pool of synchronous connections to host ``index``, shared by every thread
        of the process (redis-py's pools are thread-safe and start afresh in a forked child). Of
        the same size as the asyncio pool (``max_connections``); a thread that finds none free
        waits up to ``timeout`` seconds for one."""
        with _sync_lock:
            pools = self.__dict__.setdefault("_sync_pools", {})
            if index not in pools:
                host = dict(self.hosts[index])
                address = host.pop("address")
                host.pop("retry_on_error", None)  # the asyncio pool's; the retry is done above
                host.setdefault("timeout", 10)
                # Only short scripts go this way (no blocking pop): a Redis that stops answering
                # fails the broadcast, which is counted and logged, rather than holding the thread.
                host["socket_timeout"] = host["socket_connect_timeout"] = 10
                pools[index] = redis.BlockingConnectionPool.from_url(address, **host)
            return cast(redis.BlockingConnectionPool, pools[index])

    def _one_round_trip(self, message: dict[str, Any], own_inbox: str) -> list[Any] | None:
        """``_GROUP_SEND``'s arguments after the group's key (``own_inbox`` left out), or None
        where it cannot serve: more than one Redis host (the group and the inboxes may live
        apart), capacities per channel, or a serializer that encrypts."""
        if self.ring_size != 1 or self.channel_capacity or self._serializer.crypter is not None:
            return None
        body = dict(message)
        body.pop("__asgi_channel__", None)
        body["__asgi_channel__"] = None  # last: the script puts each inbox's channels there
        serialized = self.serialize(body)
        if serialized[-1] != _MSGPACK_NIL:  # not msgpack as expected: the general way
            return None
        now = time.time()
        return [
            int(now) - self.group_expiry,
            self.prefix,
            serialized,
            self.capacity,
            now,
            self.expiry,
            int(now) - int(self.expiry),
            own_inbox,
        ]

    def _others(self, members: list[bytes], own_inbox: str) -> list[bytes]:
        """The group's members outside ``own_inbox`` (the prefixed inbox ``_send_locally``
        served; "" for none)."""
        if not own_inbox:
            return members
        own = self._local_inbox.encode()
        return [member for member in members if not member.startswith(own)]

    def _group_pushes(
        self, members: list[bytes], message: dict[str, Any]
    ) -> list[tuple[int, list[str], list[Any]]]:
        """Per Redis host: the inbox keys of a group's members and ``_GROUP_PUSH``'s arguments."""
        channel_names = [member.decode("utf8") for member in members]
        by_connection, messages, capacities = self._map_channel_keys_to_connection(
            channel_names, message
        )
        pushes = []
        for index, keys in by_connection.items():
            now = time.time()
            args = [messages[k] for k in keys] + [capacities[k] for k in keys]
            args += [now, self.expiry, int(now) - int(self.expiry)]
            pushes.append((index, keys, args))
        return pushes

    @staticmethod
    def _log_over_capacity(over: int, group: str, members: int) -> None:
        if over > 0:
            logger.info("%s of %s channels over capacity in group %s", over, members, group)

    @property
    def sends_sync(self) -> bool:
        """Whether ``group_send_sync`` can reach every host (hosts given by address)."""
        return all("address" in host for host in self.hosts)

    async def receive_single(self, channel: str) -> tuple[str, dict[str, Any]]:
        if "!" not in channel:  # a channel shared between processes: channels_redis's own way
            return cast(tuple[str, dict[str, Any]], await super().receive_single(channel))
        assert self.require_valid_channel_name(channel, receive=True), "Channel name invalid"
        assert channel.endswith("!")
        key = self.prefix + channel
        connection = self.connection(self.consistent_hash(channel))
        popped = None
        while popped is None:
            popped = await connection.bzpopmin(key, timeout=self.brpop_timeout)
        # No await from here on: the caller (receive) hands the message over at once.
        message = self.deserialize(popped[1])
        if "__asgi_channel__" in message:
            channel = message.pop("__asgi_channel__")
        return channel, message

    async def receive(self, channel: str) -> dict[str, Any]:
        if "!" not in channel:
            return cast(dict[str, Any], await super().receive(channel))
        assert self.require_valid_channel_name(channel), "Channel name invalid"
        inbox = self.non_local_name(channel)
        assert inbox.endswith(self.client_prefix + "!"), "Wrong client prefix"
        self._start_reader(inbox)
        queue = self.receive_buffer[channel]
        try:
            message = await queue.get()
        except asyncio.CancelledError:
            if queue.empty():
                self.receive_buffer.pop(channel, None)
            raise
        if queue.empty():
            self.receive_buffer.pop(channel, None)
        if isinstance(message, _ReaderFailed):
            raise message.error
        return cast(dict[str, Any], message)

    def _start_reader(self, inbox: str) -> None:
        loop = asyncio.get_running_loop()
        reader = self._reader
        if reader is not None and not reader.done():
            if reader.get_loop() is loop:
                return
            if not reader.get_loop().is_closed():
                raise RuntimeError("Two event loops are trying to receive() on one channel layer")
        self._reader = loop.create_task(self._read(inbox))
        self._receive_loop = loop

    async def _read(self, inbox: str) -> None:
        """Pop this process's inbox for as long as the layer is used, into the channels' buffers.

        On a connection of its own, outside the pool: redis-py's client spends more CPU per
        command on its pool, retries and metrics than on the pop itself, and this one connection
        does nothing else."""
        key = self.prefix + inbox
        pool = self.connection(self.consistent_hash(inbox)).connection_pool
        connection = pool.make_connection()
        batched = self.batched_pops
        try:
            while True:
                if batched:
                    try:
                        payloads = await self._pop_batch(connection, key)
                    except redis.ResponseError as error:
                        if "unknown command" not in str(error).lower():
                            raise
                        batched = self.batched_pops = False  # Redis before 7.0
                        continue
                else:
                    await connection.send_command("BZPOPMIN", key, self.brpop_timeout)
                    popped = await connection.read_response()
                    payloads = [] if popped is None else [popped[1]]
                # No await from here on: a cancel cannot come between the pop and the hand-over.
                for payload in payloads:
                    message = self.deserialize(payload)
                    channel = message.pop("__asgi_channel__", inbox)
                    for name in channel if isinstance(channel, list) else [channel]:
                        self.receive_buffer[name].put_nowait(message)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            logger.warning("the channel layer's reader stopped: %r", error)
            failed = _ReaderFailed(error)
            for queue in list(self.receive_buffer.values()):
                if queue._getters:  # a receive is waiting on it
                    queue.put_nowait(failed)
        finally:
            await connection.disconnect(nowait=True)

    async def _pop_batch(self, connection: Any, key: str) -> list[bytes]:
        """Up to ``POP_BATCH`` of the inbox's oldest messages, in order, in one BZMPOP (waiting
        for the first as BZPOPMIN does)."""
        await connection.send_command(
            "BZMPOP", self.brpop_timeout, 1, key, "MIN", "COUNT", POP_BATCH
        )
        popped = await connection.read_response()
        if popped is None:
            return []
        return [member for member, _score in popped[1]]

    async def _stop_reader(self) -> None:
        reader, self._reader = self._reader, None
        if (
            reader is not None
            and not reader.done()
            and reader.get_loop() is asyncio.get_running_loop()
        ):
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    async def flush(self) -> None:
        await self._stop_reader()
        self._local_groups.clear()
        await super().flush()

    async def close_pools(self) -> None:
        await self._stop_reader()
        await super().close_pools()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
