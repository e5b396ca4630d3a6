"""How often one client may call the API, sign in and register.

Every limit is a fixed-window counter in the default cache (Redis when ``REDIS_URL`` is set, so
all server processes share the counts; per process otherwise). ``cache.incr`` is atomic, so a
burst of parallel requests cannot slip past a limit between a read and a write.

Rates are DRF's ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (``"10/minute"``; None turns a scope
off), read on every check so that a settings override applies at once. Scopes:

- ``anon`` / ``user``: every API request, per client address / per signed-in user;
- ``auth``: sign-in attempts (``POST /api/auth/token/`` and the login form, one shared count) per
  client address;
- ``login_failures``: failed sign-ins per (username, client address) pair that go without delay;
  past them, each further failure of that pair makes it wait longer before the next attempt
  (1 s, 2 s, 4 s... up to ``LOGIN_DELAY_MAX``). The pair's count and delay end with a successful
  sign-in. Failures from other addresses never delay the owner's own address;
- ``login_failures_user``: failed sign-ins per username from every address, a far higher ceiling
  against guessing from many addresses; once reached, that username can be tried only from an
  address it signed in from before (``KNOWN_ADDRESS_DAYS``) until the window ends;
- ``register``: accounts created (``POST /api/auth/register/`` and the register form) per client
  address; an attempt that is refused for its content is given back;
- ``challenge`` / ``challenge_address``: challenges created per challenger / per client address;
- ``mail_address``: notice and confirmation e-mails to one address (whoever causes them);
- ``email_confirm``: confirmation e-mails a person asks for (set or resend an address);
- ``password_reset`` / ``password_reset_address``: reset requests per client address / reset
  e-mails per address.
- ``tournament_create``: tournaments created (``POST /api/tournaments/`` and the page's form) per
  user, answered 429 (or a form error) before the services run.
- ``tournament_password``: failed invitation passwords per (tournament, client address) and per
  (tournament, user) pair that go without delay; past them, each further failure of that pair
  makes it wait longer (1 s, 2 s, 4 s... up to ``LOGIN_DELAY_MAX``), refused before the password
  is hashed. A right password ends the pairs' counts and delays and makes the address known to
  that tournament (``KNOWN_ADDRESS_DAYS``): from it only the (tournament, user) pair's delay
  still holds;
- ``tournament_password_all``: failures per tournament from every address; once reached, only
  a newcomer (a user and an address without a failure on that tournament in the window) or a
  known address may try it until the window ends, so guessing from many addresses is bounded
  while an invited player typing the password right the first time is never refused;
- ``tournament_password_address``: failures per client address on every tournament (guessing
  the passwords of many tournaments), a known address excepted;
- ``seeks``: seeks created and cancelled (``POST /api/seeks/``, ``DELETE /api/seeks/{id}/``) per
  user, answered 429 before the services run (each seek triggers a sweep of the matcher).

The client address is ``REMOTE_ADDR``, or the address ``NUM_PROXIES`` trusted proxies put in
``X-Forwarded-For`` (DRF's rule; with 0 proxies the header is ignored, so it cannot be forged).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import re
import time
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import ngettext
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str | None) -> Rate | None:
        """``"10/minute"``, ``"5/hour"``, ``"100/s"``...; None (or ``"off"``) means no limit."""
        if text is None or text == "off":
            return None
        count, period = text.split("/")
        return cls(int(count), _PERIODS[period.strip()[0]])


class Limit:
    """One scope's counter, per identity (an address, a user id or a username)."""

    def __init__(self, scope: str) -> None:
        self.scope = scope

    @property
    def rate(self) -> Rate | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return Rate.parse(str(rate) if rate is not None else None)

    def _window(self, rate: Rate, ident: str) -> tuple[str, float]:
        """The cache key of the current window and the seconds until it ends."""
        now = time.time()
        index = int(now // rate.seconds)
        key = f"throttle:{self.scope}:{key_part(ident)}:{index}"
        return key, (index + 1) * rate.seconds - now

    def hit(self, ident: str) -> float | None:
        """Count one; the seconds to wait when that went over the limit, else None."""
        counted = self.count(ident)
        if counted is None:
            return None
        count, left = counted
        rate = self.rate
        return left if rate is not None and count > rate.count else None

    def count(self, ident: str) -> tuple[int, float] | None:
        """Count one; the count so far in this window and the seconds left of it (None: no
        limit, or the cache is down)."""
        rate = self.rate
        if rate is None:
            return None
        key, left = self._window(rate, ident)
        try:
            cache.add(key, 0, timeout=rate.seconds + 1)
            try:
                count = cache.incr(key)
            except ValueError:  # expired between add and incr: a new window
                cache.add(key, 1, timeout=rate.seconds + 1)
                count = 1
        except Exception:
            # The cache (Redis) is down: let the request through rather than fail it; the site
            # must keep working through an outage (docs/reliability.md).
            logger.warning("throttle %s: the cache is unavailable, not counting", self.scope)
            return None
        return int(count), left

    def peek(self, ident: str) -> float | None:
        """The seconds to wait when the limit is already reached, else None; counts nothing."""
        rate = self.rate
        if rate is None:
            return None
        key, left = self._window(rate, ident)
        try:
            count = cache.get(key) or 0
        except Exception:  # the cache is down: see ``hit``
            logger.warning("throttle %s: the cache is unavailable, not counting", self.scope)
            return None
        return left if count >= rate.count else None

    def current(self, ident: str) -> int:
        """This window's count so far (0 when none, off, or the cache is down); counts nothing."""
        rate = self.rate
        if rate is None:
            return 0
        key, _left = self._window(rate, ident)
        try:
            return int(cache.get(key) or 0)
        except Exception:  # the cache is down: see ``hit``
            return 0

    def give_back(self, ident: str) -> None:
        """Undo a ``hit`` whose attempt did not count after all."""
        rate = self.rate
        if rate is None:
            return
        key, _left = self._window(rate, ident)
        with contextlib.suppress(Exception):  # gone already, or the cache is down
            cache.decr(key)

    def clear(self, ident: str) -> None:
        """Forget this window's count (a success that ends a run of failures)."""
        rate = self.rate
        if rate is None:
            return
        key, _left = self._window(rate, ident)
        with contextlib.suppress(Exception):  # the cache is down: nothing to forget
            cache.delete(key)


AUTH = Limit("auth")
LOGIN_FAILURES = Limit("login_failures")
LOGIN_FAILURES_USER = Limit("login_failures_user")
REGISTER = Limit("register")
CHALLENGE = Limit("challenge")
CHALLENGE_ADDRESS = Limit("challenge_address")
MAIL_ADDRESS = Limit("mail_address")
EMAIL_CONFIRM = Limit("email_confirm")
PASSWORD_RESET = Limit("password_reset")
PASSWORD_RESET_ADDRESS = Limit("password_reset_address")
TOURNAMENT_CREATE = Limit("tournament_create")
TOURNAMENT_PASSWORD = Limit("tournament_password")
TOURNAMENT_PASSWORD_ALL = Limit("tournament_password_all")
TOURNAMENT_PASSWORD_ADDRESS = Limit("tournament_password_address")

LOGIN_DELAY_MAX = 300.0
"""The longest wait a run of failed sign-ins of one (username, address) pair imposes."""

KNOWN_ADDRESS_DAYS = 30
"""An address a username signed in from stays known (exempt from its ceiling) this long."""


def client_address(request: Any) -> str:
    """The client's address, by DRF's rule (``NUM_PROXIES``)."""
    return str(BaseThrottle().get_ident(request))


def username_ident(username: Any) -> str:
    return str(username or "").strip().casefold()[:150]


def email_ident(address: Any) -> str:
    """One identity per mailbox, whatever the case it is written in."""
    return str(address or "").strip().casefold()[:254]


def wait_words(seconds: float) -> str:
    """'Try again in N minutes' words for a page."""
    if seconds <= 90:
        count = max(1, math.ceil(seconds))
        return ngettext(
            "Too many attempts. Try again in %(count)s second.",
            "Too many attempts. Try again in %(count)s seconds.",
            count,
        ) % {"count": count}
    count = math.ceil(seconds / 60)
    return ngettext(
        "Too many attempts. Try again in %(count)s minute.",
        "Too many attempts. Try again in %(count)s minutes.",
        count,
    ) % {"count": count}


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))


_PLAIN_KEY = re.compile(r"[\w.:@|-]{1,100}", re.ASCII)


def key_part(ident: str) -> str:
    """``ident`` as it may stand in a cache key: itself when short and plain, otherwise its
    digest (a username or an address asked for can hold any character, and be long)."""
    if _PLAIN_KEY.fullmatch(ident):
        return ident
    return "h" + hashlib.sha256(ident.encode()).hexdigest()[:40]


def _pair(username: Any, address: str) -> str:
    return f"{username_ident(username)}|{address}"


def _delay_key(pair: str) -> str:
    return f"throttle:login_delay:{key_part(pair)}"


def _known_key(username: Any, address: str) -> str:
    return f"throttle:login_known:{key_part(_pair(username, address))}"


def record_login_failure(
    sender: Any, credentials: dict[str, Any], request: Any = None, **_: Any
) -> None:
    """``user_login_failed`` receiver: one more failure for that username, and for the pair of
    that username and the request's address; past the pair's free failures, a growing delay
    before the pair's next attempt (stored as the time it ends, so no thread sleeps)."""
    username = credentials.get("username")
    if not username:
        return
    LOGIN_FAILURES_USER.hit(username_ident(username))
    if request is None:
        return
    pair = _pair(username, client_address(request))
    counted, rate = LOGIN_FAILURES.count(pair), LOGIN_FAILURES.rate
    if counted is None or rate is None or counted[0] <= rate.count:
        return
    delay = min(LOGIN_DELAY_MAX, 2.0 ** min(counted[0] - rate.count - 1, 16))
    with contextlib.suppress(Exception):  # the cache is down: no delay (see ``Limit.hit``)
        cache.set(_delay_key(pair), time.time() + delay, timeout=math.ceil(delay) + 1)


def record_sign_in(request: Any, username: Any) -> None:
    """A successful sign-in: the pair's failures and delay end, and the address becomes known
    to that username (it may sign in past the username's ceiling)."""
    address = client_address(request)
    pair = _pair(username, address)
    LOGIN_FAILURES.clear(pair)
    with contextlib.suppress(Exception):  # the cache is down: nothing to remember
        cache.delete(_delay_key(pair))
        cache.set(_known_key(username, address), 1, timeout=KNOWN_ADDRESS_DAYS * 86400)


def record_logged_in(sender: Any, request: Any = None, user: Any = None, **_: Any) -> None:
    """``user_logged_in`` receiver (the login forms): see ``record_sign_in``."""
    if request is not None and user is not None:
        record_sign_in(request, user.get_username())


def login_wait(request: Any, username: Any) -> float | None:
    """The seconds before the request's address may try ``username`` again, else None: the
    pair's own delay, or the username's ceiling when the address is not a known one."""
    address = client_address(request)
    try:
        until = cache.get(_delay_key(_pair(username, address)))
        known = cache.get(_known_key(username, address)) is not None
    except Exception:  # the cache is down: see ``Limit.hit``
        return None
    if until is not None and until > time.time():
        return float(until - time.time())
    return None if known else LOGIN_FAILURES_USER.peek(username_ident(username))


def sign_in_wait(request: HttpRequest, username: Any) -> float | None:
    """Count a sign-in attempt from the request's address; the seconds to wait when that address
    is over its limit or must wait before trying that username again, else None."""
    return AUTH.hit(client_address(request)) or login_wait(request, username)


def challenge_wait(request: Any, user: Any) -> float | None:
    """Count a challenge about to be made, per challenger and per client address; the seconds
    to wait when either is over its limit, else None."""
    return CHALLENGE.hit(str(user.pk)) or CHALLENGE_ADDRESS.hit(client_address(request))


def password_reset_wait(request: Any, address: Any) -> float | None:
    """Count a password reset asked for, per client address and per e-mail address."""
    return PASSWORD_RESET.hit(client_address(request)) or PASSWORD_RESET_ADDRESS.hit(
        email_ident(address)
    )


# -- invitation passwords -------------------------------------------------------------------------


def _entry_pairs(tournament_id: int, user_id: int, address: str) -> list[str]:
    return [f"{tournament_id}|a:{address}", f"{tournament_id}|u:{user_id}"]


def _entry_delay_key(pair: str) -> str:
    return f"throttle:entry_delay:{key_part(pair)}"


def _entry_known_key(tournament_id: int, address: str) -> str:
    return f"throttle:entry_known:{key_part(f'{tournament_id}|{address}')}"


def entry_password_wait(request: Any, tournament_id: int, user_id: int) -> float | None:
    """Before an invitation's password is hashed: the seconds ``user_id`` must wait from the
    request's address, else None; counts nothing. The (tournament, user) pair's delay always
    holds; an address known to the tournament is spared the rest (its own pair's delay, the
    address's limit and the tournament's ceiling), as a known address is at sign-in."""
    address = client_address(request)
    by_address, by_user = _entry_pairs(tournament_id, user_id, address)
    try:
        known = cache.get(_entry_known_key(tournament_id, address)) is not None
        pairs = [by_user] if known else [by_user, by_address]
        untils = cache.get_many([_entry_delay_key(pair) for pair in pairs]).values()
    except Exception:  # the cache is down: see ``Limit.hit``
        return None
    now = time.time()
    waits = [float(until - now) for until in untils if until is not None and until > now]
    if waits:
        return max(waits)
    if known:
        return None
    wait = TOURNAMENT_PASSWORD_ADDRESS.peek(address)
    if wait is not None:
        return wait
    if any(TOURNAMENT_PASSWORD.current(pair) for pair in (by_address, by_user)):
        return TOURNAMENT_PASSWORD_ALL.peek(str(tournament_id))
    return None  # a newcomer to this tournament: never refused by its ceiling


def record_entry_password_failure(request: Any, tournament_id: int, user_id: int) -> None:
    """A wrong invitation password: one more failure for the tournament, the address and each
    pair; past a pair's free failures, a growing delay before its next attempt (stored as the
    time it ends, so no thread sleeps)."""
    address = client_address(request)
    TOURNAMENT_PASSWORD_ALL.hit(str(tournament_id))
    TOURNAMENT_PASSWORD_ADDRESS.hit(address)
    rate = TOURNAMENT_PASSWORD.rate
    for pair in _entry_pairs(tournament_id, user_id, address):
        counted = TOURNAMENT_PASSWORD.count(pair)
        if counted is None or rate is None or counted[0] <= rate.count:
            continue
        delay = min(LOGIN_DELAY_MAX, 2.0 ** min(counted[0] - rate.count - 1, 16))
        with contextlib.suppress(Exception):  # the cache is down: no delay
            cache.set(_entry_delay_key(pair), time.time() + delay, timeout=math.ceil(delay) + 1)


def record_entry_password_success(request: Any, tournament_id: int, user_id: int) -> None:
    """The right invitation password: the pairs' failures and delays end, and the address
    becomes known to the tournament (never refused there again)."""
    address = client_address(request)
    for pair in _entry_pairs(tournament_id, user_id, address):
        TOURNAMENT_PASSWORD.clear(pair)
        with contextlib.suppress(Exception):  # the cache is down: nothing to forget
            cache.delete(_entry_delay_key(pair))
    with contextlib.suppress(Exception):  # the cache is down: nothing to remember
        cache.set(_entry_known_key(tournament_id, address), 1, timeout=KNOWN_ADDRESS_DAYS * 86400)


# -- DRF throttle classes ------------------------------------------------------------------------


class _LimitThrottle(BaseThrottle):
    limit: Limit

    def ident(self, request: Any) -> str | None:
        """Whom to count, or None to let the request through uncounted."""
        return client_address(request)

    def allow_request(self, request: Any, view: Any) -> bool:
        ident = self.ident(request)
        self._wait = self.limit.hit(ident) if ident is not None else None
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait


class AnonThrottle(_LimitThrottle):
    """Every API request of an anonymous client, per address."""

    limit = Limit("anon")

    def ident(self, request: Any) -> str | None:
        return None if request.user and request.user.is_authenticated else client_address(request)


class UserThrottle(_LimitThrottle):
    """Every API request of a signed-in user, per user."""

    limit = Limit("user")

    def ident(self, request: Any) -> str | None:
        user = request.user
        return str(user.pk) if user and user.is_authenticated else None


class AuthThrottle(_LimitThrottle):
    """Sign-in attempts per address (shared with the login form)."""

    limit = AUTH


class RegisterThrottle(_LimitThrottle):
    """Account creations per address (shared with the register form)."""

    limit = REGISTER


class SeekThrottle(_LimitThrottle):
    """Seek creations and cancellations per user (reads are not counted)."""

    limit = Limit("seeks")

    def ident(self, request: Any) -> str | None:
        user = request.user
        if request.method in ("GET", "HEAD", "OPTIONS") or not (user and user.is_authenticated):
            return None
        return str(user.pk)


class TournamentCreateThrottle(_LimitThrottle):
    """Tournament creations per player (reads, changes and cancellations are not counted; staff
    create events without the players' limit)."""

    limit = TOURNAMENT_CREATE

    def ident(self, request: Any) -> str | None:
        user = request.user
        if request.method != "POST" or not (user and user.is_authenticated) or user.is_staff:
            return None
        return str(user.pk)
