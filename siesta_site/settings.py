"""Django settings for Siesta online.

Everything that differs between machines is read from the environment here, in one place:

- ``DJANGO_DEBUG`` (default on; always off with ``DJANGO_PRODUCTION``)
- ``DJANGO_SECRET_KEY`` (a development key is built in)
- ``DJANGO_ALLOWED_HOSTS`` (comma separated; default ``localhost,127.0.0.1,testserver``, none in
  production, where it is required)
- ``DJANGO_CSRF_TRUSTED_ORIGINS`` (default ``http://127.0.0.1:8000,http://localhost:8000``; none in
  production: the site's own origin is always trusted)
- ``DATABASE_URL`` (default SQLite in ``db.sqlite3`` beside ``manage.py``); with PostgreSQL,
  a connection pool per process (``DJANGO_DB_POOL``, ``DJANGO_DB_POOL_MAX``, ...) and the move's
  statements prepared (``DJANGO_DB_PREPARED``; set 0 behind a proxy that cannot keep them)
- ``SIESTA_DB_THREADS`` (threads per process for the WebSockets' database work; 8 on PostgreSQL)
- ``REDIS_URL`` (unset: in-memory channel layer and Celery tasks run eagerly in-process)
- ``CELERY_EAGER`` (overrides whether Celery tasks run eagerly)
- ``SIESTA_SQLITE_TIMEOUT`` (seconds a SQLite write waits for the lock; default 20)
- ``SIESTA_MAX_OPEN_GAMES``, ``SIESTA_MAX_BOT_GAMES``, ``SIESTA_OPEN_GAME_MINUTES`` (fair use)
- ``SIESTA_TOURNAMENT_GRACE_SECONDS`` (a tournament game's first turns: the grace before the clock
  runs; a missed first turn forfeits; default 30; docs/tournaments.md)
- ``SIESTA_METRICS_TOKEN``, ``SIESTA_METRICS_ALLOW``, ``PROMETHEUS_MULTIPROC_DIR`` (the
  ``/metrics`` endpoint; docs/operations.md, Metrics)
- ``SIESTA_WS_MESSAGE_RATE``, ``SIESTA_WS_MESSAGE_BURST``, ``SIESTA_WS_MAX_DROPPED``,
  ``SIESTA_WS_CONNECTIONS_PER_ADDRESS`` (WebSocket abuse; docs/reliability.md),
  ``SIESTA_WS_AUTH_RECHECK_SECONDS`` (docs/reliability.md, One gate for every socket),
  ``SIESTA_WS_AUTH_WAIT_SECONDS`` (a script's socket waits this long for its ``auth`` before its
  opening frame; default 1; docs/sockets.md, The handshake)
- ``SIESTA_ANALYSIS_RATE`` (throttle of the analysis API, default ``120/minute``)
- ``SIESTA_ENGINE_BUDGET``, ``SIESTA_ENGINE_BUDGET_WINDOW``, ``SIESTA_ENGINE_POOL``,
  ``SIESTA_ENGINE_WORKERS``, ``SIESTA_ENGINE_NICE``, ``SIESTA_ENGINE_CAP``, ``SIESTA_ENGINE_WAIT``,
  ``SIESTA_ENGINE_ADDRESS_BUDGET``, ``SIESTA_ENGINE_ADDRESS_QUEUE`` (the CPU budget of hints,
  analysis and puzzle checks, the engine pool's fair queue; games/engine_budget.py)
- ``SIESTA_SITE_URL`` (the site's origin, ``https://host[:port]``: every mailed link is built
  from it; default ``http://127.0.0.1:8000``, required in production)
- ``SIESTA_HEALTH_TOKEN``, ``SIESTA_HEALTH_CACHE_SECONDS`` (who sees /health/'s checks, and how
  often they run), ``SIESTA_DB_RETRY_AFTER`` (the Retry-After of a database outage's 503)
- ``DJANGO_PRODUCTION=1``: refuse to start without ``DJANGO_SECRET_KEY``, ``DATABASE_URL``,
  ``REDIS_URL``, ``DJANGO_ALLOWED_HOSTS`` and ``SIESTA_SITE_URL``, or with a placeholder
  ``DJANGO_SECRET_KEY`` (under 50 characters, or with "change-me", "placeholder", "insecure"...);
  turn DEBUG off, cookies secure, HTTPS and HSTS on
  (``DJANGO_SECURE_HSTS_SECONDS``, default a year; ``DJANGO_SECURE_HSTS_PRELOAD``).
- ``SIESTA_THROTTLE_*``, ``DJANGO_NUM_PROXIES``: see core/throttling.py.
"""

import ipaddress
import os
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from redis.exceptions import ConnectionError as RedisConnectionError

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

PRODUCTION = env.bool("DJANGO_PRODUCTION", default=False)

# What production refuses as a secret key (Django's own deployment check asks for 50 characters).
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_PLACEHOLDER_WORDS = (
    "change-me",
    "changeme",
    "placeholder",
    "insecure",
    "example",
    "secret-key",
)

if PRODUCTION:
    _missing = [
        name
        for name in (
            "DJANGO_SECRET_KEY",
            "DATABASE_URL",
            "REDIS_URL",
            "DJANGO_ALLOWED_HOSTS",
            "SIESTA_SITE_URL",
        )
        if not env.str(name, "")
    ]
    if _missing:
        raise ImproperlyConfigured(
            f"DJANGO_PRODUCTION is set but {', '.join(_missing)} missing from the environment."
        )
    # A placeholder or short key (a compose default, an example copied as it stands) would sign
    # every session and password-reset link with a secret anyone can read: refuse to start.
    _key = env.str("DJANGO_SECRET_KEY")
    if len(_key) < SECRET_KEY_MIN_LENGTH or any(
        word in _key.lower() for word in SECRET_KEY_PLACEHOLDER_WORDS
    ):
        raise ImproperlyConfigured(
            f"DJANGO_SECRET_KEY looks like a placeholder: use a random string of at least "
            f"{SECRET_KEY_MIN_LENGTH} characters, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
        )

DEBUG = False if PRODUCTION else env.bool("DJANGO_DEBUG", default=True)

SECRET_KEY = env.str(
    "DJANGO_SECRET_KEY",
    default="django-insecure-dev-only-0c1f8e5b2a7d4e9f8a6b3c2d1e0f9a8b7c6d5e4f",
)

ALLOWED_HOSTS = env.list(
    "DJANGO_ALLOWED_HOSTS", default=[] if PRODUCTION else ["localhost", "127.0.0.1", "testserver"]
)
CSRF_TRUSTED_ORIGINS = env.list(
    "DJANGO_CSRF_TRUSTED_ORIGINS",
    default=[] if PRODUCTION else ["http://127.0.0.1:8000", "http://localhost:8000"],
)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "csp",
    "siesta_site",
    "accounts",
    "games",
    "ratings",
    "tournaments",
    "learn",
    "social",
    "pages",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Read-only CORS under /api/, preflights answered first (siesta_site/cors.py).
    "siesta_site.cors.ReadOnlyCorsMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # Before anything reads the session, the form or the database (siesta_site/input_guard.py).
    "siesta_site.input_guard.InputGuardMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so asked first: the database away answers 503 + Retry-After (siesta_site/outage.py).
    "siesta_site.outage.DatabaseOutageMiddleware",
]

ROOT_URLCONF = "siesta_site.urls"
ASGI_APPLICATION = "siesta_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "social.context_processors.social",
            ],
        },
    },
]

DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default must hold the same races as PostgreSQL. SQLite has no row locks
    # (select_for_update is a no-op), so every transaction takes the write lock when it begins
    # (IMMEDIATE) and serialises like a locked game row; others wait for it up to the busy
    # timeout rather than failing with "database is locked"; WAL lets reads go on meanwhile.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env.int("SIESTA_SQLITE_TIMEOUT", default=20),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # Tests use a database file too, never Django's default shared-cache in-memory database: that
    # one locks whole tables between the connections of different threads (SQLITE_LOCKED, "database
    # table is locked"), which no busy timeout waits out, so a live server's request thread or an
    # in-process task failed with a 500 while the test's thread wrote. A file in WAL mode gives the
    # same locking as ``make run``: readers never wait, writers queue for the busy timeout.
    DATABASES["default"].setdefault("TEST", {}).setdefault(
        "NAME", str(Path(tempfile.gettempdir()) / f"siesta-test-{os.getpid()}.sqlite3")
    )

# WebSocket consumers run their database work in a bounded pool of this many threads per process
# (games/consumers.py), instead of asgiref's one shared thread. SQLite writes one transaction at a
# time anyway: one thread.
_POSTGRES = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
SIESTA_DB_THREADS = env.int("SIESTA_DB_THREADS", default=8 if _POSTGRES else 1)

# PostgreSQL: a pool of connections per process (psycopg_pool), so neither a request nor a
# WebSocket message opens a connection. Sized for the consumers' threads plus HTTP requests (each
# runs in a thread of its own); a thread waits up to ``timeout`` seconds for a free connection.
# CONN_MAX_AGE stays 0: a request's thread hands its connection back to the pool when the request
# is done; the consumers' database threads keep theirs between calls (games.consumers.db_call).
if _POSTGRES and env.bool("DJANGO_DB_POOL", default=True):
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env.int("DJANGO_DB_POOL_MIN", default=2),
        "max_size": env.int("DJANGO_DB_POOL_MAX", default=SIESTA_DB_THREADS + 8),
        "timeout": env.float("DJANGO_DB_POOL_TIMEOUT", default=20.0),
    }
# PostgreSQL: the move path's statements (games/rows.py) are prepared once per connection. Django
# turns prepared statements off (prepare_threshold None) for poolers that cannot keep them, such as
# PgBouncer before 1.21 in transaction mode: DJANGO_DB_PREPARED=0 there. Django's own queries are
# never prepared either way (its cursors bind parameters on the client).
if _POSTGRES and env.bool("DJANGO_DB_PREPARED", default=True):
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 5
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    # Django's checks in the site's words (siesta_site/passwords.py).
    {"NAME": "siesta_site.passwords.SimilarityValidator"},
    {"NAME": "siesta_site.passwords.LengthValidator"},
    {"NAME": "siesta_site.passwords.CommonValidator"},
    {"NAME": "siesta_site.passwords.NumericValidator"},
    {"NAME": "siesta_site.passwords.NotBlankValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# E-mail (notices of slow games and challenges): printed to the console unless EMAIL_URL gives
# an SMTP server, e.g. smtp+tls://user:password@smtp.example.org:587 (django-environ's form).
if env.str("EMAIL_URL", ""):
    vars().update(env.email_url("EMAIL_URL"))
else:
    EMAIL_BACKEND = env.str(
        "DJANGO_EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend"
    )
DEFAULT_FROM_EMAIL = env.str("DJANGO_DEFAULT_FROM_EMAIL", default="Siesta <siesta@localhost>")
SIESTA_SITE_URL = env.str("SIESTA_SITE_URL", default="" if PRODUCTION else "http://127.0.0.1:8000")
"""The site's origin, ``scheme://host[:port]``: every link the site mails (address confirmation,
password reset, notices, unsubscribe) starts with it (core/links.py), never with a request's
``Host``. Required in production; `make up` sets it from its HOST and PORT."""
_site = urlsplit(SIESTA_SITE_URL)
if (
    _site.scheme not in ("http", "https")
    or not _site.hostname
    or _site.path.strip("/")
    or _site.query
    or _site.fragment
    or _site.username
):
    raise ImproperlyConfigured(
        f"SIESTA_SITE_URL must be the site's origin, such as https://siesta.example, "
        f"not {SIESTA_SITE_URL!r}."
    )
SIESTA_UNSUBSCRIBE_DAYS = env.int("SIESTA_UNSUBSCRIBE_DAYS", default=30)
"""An unsubscribe link older than this asks to confirm (a form) instead of acting at once."""
SIESTA_EMAIL_CONFIRM_DAYS = env.int("SIESTA_EMAIL_CONFIRM_DAYS", default=3)
"""The link that confirms an e-mail address is valid this long."""

# Content-Security-Policy (django-csp), in every mode so that tests and development meet it: the
# site serves all its own assets, and pages have no inline scripts or styles (data for the page
# scripts comes in <script type="application/json"> blocks, which are not run).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# Internationalisation
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("es", _("Español")),
    ("de", _("Deutsch")),
    ("it", _("Italiano")),
    ("fr", _("Français")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# Static files: in DEBUG the ASGI app serves them from the finders (see asgi.py);
# otherwise WhiteNoise serves what `collectstatic` put in STATIC_ROOT.
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "siesta_site.staticfiles.StaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# API
REST_FRAMEWORK = {
    # The token first: a bad or missing token is a 401 (with `WWW-Authenticate: Token`) on
    # every view, as on SiestaApi's, not the 403 DRF answers when the session comes first.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # DRF's, also knowing personal access tokens (core/credentials.py).
        "core.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PAGINATION_CLASS": "core.api.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    # Bodies nested deeper than any request of the API are a 400, not a RecursionError.
    "DEFAULT_PARSER_CLASSES": ["core.safejson.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Every API view answers errors in the shape of API.md ({"error": ...}), not only SiestaApi's.
    "EXCEPTION_HANDLER": "core.api.errors.api_exception_handler",
    # Throttles (core/throttling.py): "N/second|minute|hour|day", or "off".
    "DEFAULT_THROTTLE_CLASSES": [
        "core.throttling.AnonThrottle",
        "core.throttling.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        scope: (None if rate == "off" else rate)
        for scope, rate in {
            "anon": env.str("SIESTA_THROTTLE_ANON", default="300/minute"),
            "user": env.str("SIESTA_THROTTLE_USER", default="1200/minute"),
            "auth": env.str("SIESTA_THROTTLE_AUTH", default="10/minute"),
            "login_failures": env.str("SIESTA_THROTTLE_LOGIN_FAILURES", default="5/hour"),
            "login_failures_user": env.str(
                "SIESTA_THROTTLE_LOGIN_FAILURES_USER", default="100/hour"
            ),
            "register": env.str("SIESTA_THROTTLE_REGISTER", default="5/hour"),
            # Mail: challenges, notice and confirmation e-mails, password resets (issue 31).
            "challenge": env.str("SIESTA_THROTTLE_CHALLENGE", default="20/hour"),
            "challenge_address": env.str("SIESTA_THROTTLE_CHALLENGE_ADDRESS", default="60/hour"),
            "mail_address": env.str("SIESTA_THROTTLE_MAIL_ADDRESS", default="10/hour"),
            "email_confirm": env.str("SIESTA_THROTTLE_EMAIL_CONFIRM", default="3/hour"),
            "password_reset": env.str("SIESTA_THROTTLE_PASSWORD_RESET", default="5/hour"),
            "password_reset_address": env.str(
                "SIESTA_THROTTLE_PASSWORD_RESET_ADDRESS", default="3/hour"
            ),
            # Seeks created and cancelled, per user (core/throttling.py).
            "seeks": env.str("SIESTA_THROTTLE_SEEKS", default="20/minute"),
            # Tournaments created, per user (API and page alike).
            "tournament_create": env.str("SIESTA_THROTTLE_TOURNAMENT_CREATE", default="5/hour"),
            # Invitation passwords: failures per (tournament, address) and (tournament, user),
            # per tournament from everywhere, per address on every tournament (core/throttling).
            "tournament_password": env.str("SIESTA_THROTTLE_TOURNAMENT_PASSWORD", default="5/hour"),
            "tournament_password_all": env.str(
                "SIESTA_THROTTLE_TOURNAMENT_PASSWORD_ALL", default="50/hour"
            ),
            "tournament_password_address": env.str(
                "SIESTA_THROTTLE_TOURNAMENT_PASSWORD_ADDRESS", default="30/hour"
            ),
            # The analysis board's engine calls (learn.api): per user, or per address signed out.
            "analysis": env.str("SIESTA_ANALYSIS_RATE", default="120/minute"),
        }.items()
    },
    # Proxies in front of the server that append to X-Forwarded-For: the client address is the
    # one they saw. 0 (the default) ignores the header, which a client could forge.
    "NUM_PROXIES": env.int("DJANGO_NUM_PROXIES", default=0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Siesta online API",
    "DESCRIPTION": (
        "Play Siesta online: games, live play, ratings and tournaments. The WebSockets' frames "
        "are described as data in [the AsyncAPI document](/api/asyncapi.json) (AsyncAPI 3.0)."
    ),
    # Swagger UI shows this link under the title: the sockets' document beside this one.
    "EXTERNAL_DOCS": {
        "description": "The WebSockets: AsyncAPI 3.0 document",
        "url": "/api/asyncapi.json",
    },
    "VERSION": "1.1.0",  # docs/api.md, "Versioning": additions raise the minor
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and ReDoc assets come from drf-spectacular-sidecar, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # A field that refuses "" says so (minLength 1), as the server does.
    "ENFORCE_NON_BLANK_FIELDS": True,
    # The error answers every operation may give (400, 401, 404: core/api/schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.api.schema.document_errors",
    ],
    # One name per choice set shared by several fields (and apps), so the schema stays unambiguous.
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.Game.Status",
        "BotLevelEnum": "games.models.Seat.BotLevel",
    },
}

# Channels and Celery: Redis when REDIS_URL is set, in-process otherwise.
REDIS_URL = env.str("REDIS_URL", default="") or None
SIESTA_WS_GROUP_EXPIRY = env.int("SIESTA_WS_GROUP_EXPIRY", default=300)

if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels_redis with a blocking connection pool (core/channel_layer.py): when
            # every connection is busy (hundreds of watchers connecting at once), a group_add
            # waits for one instead of failing the WebSocket with 1011.
            "BACKEND": "core.channel_layer.RedisChannelLayer",
            "CONFIG": {
                # redis-py 8 reads with a 5 s socket timeout by default, which kills every idle
                # consumer blocked in the layer's BZPOPMIN; the layer's own timeouts are enough.
                # After Redis restarts, pooled connections are dead: retry a command once on a
                # fresh connection rather than failing the first request of each.
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": None,
                        "retry_on_error": [RedisConnectionError],
                        "max_connections": env.int("SIESTA_REDIS_POOL", default=64),
                        "timeout": 20,
                    }
                ],
                # A server killed without closing its sockets leaves their channels in the game
                # groups; they drop out after this long. Live sockets renew their place every
                # third of it (games.consumers), so a long game never loses a watcher.
                "group_expiry": SIESTA_WS_GROUP_EXPIRY,
                # Every consumer of a process shares one Redis inbox; past ``capacity`` waiting
                # messages channels_redis drops new ones silently (a state lost to a watcher).
                "capacity": 2000,
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    # The cache holds the throttles' counters: shared by every server process.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "siesta",
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"


CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_EAGER", default=REDIS_URL is None)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "expire-turns": {"task": "games.tasks.expire_turns", "schedule": 5.0},
    "requeue-bot-turns": {"task": "games.tasks.requeue_bot_turns", "schedule": 10.0},
    "requeue-analyses": {"task": "games.tasks.requeue_analyses", "schedule": 60.0},
    "tournaments-sweep": {"task": "tournaments.tasks.sweep", "schedule": 5.0},
    "expire-open-games": {"task": "games.tasks.expire_open_games", "schedule": 60.0},
    "puzzles-from-games": {"task": "learn.tasks.puzzles_from_analysed_games", "schedule": 60.0},
    "puzzle-pool": {"task": "learn.tasks.puzzle_pool_top_up", "schedule": 300.0},
    # Quick pairing: widen ranges, fill bots, expire seeks and challenges (also run on each seek).
    "match-seeks": {"task": "social.tasks.match_seeks", "schedule": 3.0},
}
# Separate queues, so that no kind of work holds up another (docs/operations.md): bot turns
# (short, latency matters), analyses (seconds each) and periodic work; anything else goes to the
# default queue "celery". Workers: `make worker` (all queues) or one per queue (docs/operations.md).
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = ("siesta_site.celery.route_task",)
# The project's Celery app, as core.inprocess finds it (the core imports no project module).
SIESTA_CELERY_APP = "siesta_site.celery.app"
SIESTA_TASK_QUEUES = {
    "games.tasks.bot_move": "bots",
    "games.tasks.analyse_game": "analyses",
    "games.tasks.expire_turns": "periodic",
    "games.tasks.requeue_bot_turns": "periodic",
    "games.tasks.requeue_analyses": "periodic",
    "games.tasks.expire_open_games": "periodic",
    "tournaments.tasks.sweep": "periodic",
    "tournaments.tasks.game_ended": "periodic",
    "learn.tasks.puzzles_from_analysed_games": "periodic",
    "learn.tasks.puzzle_pool_top_up": "analyses",
    "social.tasks.match_seeks": "periodic",
}
# A broker that is down must not hold up the request that enqueues after its commit for long:
# a few quick retries, then the enqueue is logged as lost and the periodic sweeps send it again.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2.0
# Without a broker (eager Celery), the serving process runs enqueued tasks (bot turns, analyses)
# in background threads and the beat schedule above in a daemon thread (core/inprocess.py).
SIESTA_TASKS_IN_THREADS = env.bool("SIESTA_TASKS_IN_THREADS", default=CELERY_TASK_ALWAYS_EAGER)
SIESTA_INPROCESS_BEAT = env.bool("SIESTA_INPROCESS_BEAT", default=CELERY_TASK_ALWAYS_EAGER)
# Turn clocks wait for the site (games/clock.py, docs/reliability.md): every process beats every
# SIESTA_HEARTBEAT_SECONDS while the database and Redis answer; a gap longer than
# SIESTA_OUTAGE_GAP_SECONDS is an outage, which every running turn gets back, and no turn is
# decided late during one or for SIESTA_OUTAGE_GRACE_SECONDS after it.
SIESTA_HEARTBEAT = env.bool("SIESTA_HEARTBEAT", default=True)
SIESTA_HEARTBEAT_BEAT = "games.services.site_heartbeat"
SIESTA_HEARTBEAT_SECONDS = env.float("SIESTA_HEARTBEAT_SECONDS", default=1.0)
SIESTA_OUTAGE_GAP_SECONDS = env.float("SIESTA_OUTAGE_GAP_SECONDS", default=4.0)
SIESTA_OUTAGE_GRACE_SECONDS = env.float("SIESTA_OUTAGE_GRACE_SECONDS", default=15.0)
# Engine work (bot turns, analyses, the puzzle pool) runs below the serving processes on a shared
# box: a Celery worker whose queues include one of SIESTA_NICE_QUEUES lowers its priority by
# SIESTA_WORKER_NICE (siesta_site/celery.py; 0: as the web processes).
SIESTA_WORKER_NICE = env.int("SIESTA_WORKER_NICE", default=10)
SIESTA_NICE_QUEUES = ["bots", "analyses"]

# Fair use of shared resources (docs/reliability.md): per user, at most this many open games
# waiting for players and this many unfinished games with bots; open games nobody completed within
# SIESTA_OPEN_GAME_MINUTES are cancelled by the periodic sweep.
SIESTA_MAX_OPEN_GAMES = env.int("SIESTA_MAX_OPEN_GAMES", default=3)
SIESTA_MAX_BOT_GAMES = env.int("SIESTA_MAX_BOT_GAMES", default=3)
SIESTA_OPEN_GAME_MINUTES = env.int("SIESTA_OPEN_GAME_MINUTES", default=60)
# A tournament game's first turns start their clock this long after pairing; a player who misses
# their first turn forfeits that game (docs/tournaments.md, No-shows and fair seats).
SIESTA_TOURNAMENT_GRACE_SECONDS = env.int("SIESTA_TOURNAMENT_GRACE_SECONDS", default=30)
# WebSocket abuse (games/consumers.py): messages a second per connection and the burst allowed,
# messages dropped in a row before the connection is closed (4429), and connections per client
# address in one process (behind a proxy, serve with daphne --proxy-headers so it is the client's).
SIESTA_WS_MESSAGE_RATE = env.float("SIESTA_WS_MESSAGE_RATE", default=10.0)
SIESTA_WS_MESSAGE_BURST = env.int("SIESTA_WS_MESSAGE_BURST", default=30)
SIESTA_WS_MAX_DROPPED = env.int("SIESTA_WS_MAX_DROPPED", default=30)
SIESTA_WS_CONNECTIONS_PER_ADDRESS = env.int("SIESTA_WS_CONNECTIONS_PER_ADDRESS", default=50)
# How often a signed-in socket's session or token is checked again (core/sockets.py).
SIESTA_WS_AUTH_RECHECK_SECONDS = env.float("SIESTA_WS_AUTH_RECHECK_SECONDS", default=10.0)
# How long a script's socket (no Origin, no session) waits for its first message before sending
# its opening frame, so that an ``auth`` sent first is answered before it (docs/sockets.md).
SIESTA_WS_AUTH_WAIT_SECONDS = env.float("SIESTA_WS_AUTH_WAIT_SECONDS", default=1.0)

# Health checks probe the web processes directly, over plain HTTP (siesta_site/health.py): never
# redirected to HTTPS, wherever SECURE_SSL_REDIRECT is on.
SECURE_REDIRECT_EXEMPT = [r"^health/$"]
# Anyone gets /health/'s status alone; its checks (queues, failures...) go to staff or to a caller
# presenting this token in the X-Health-Token header (empty: staff only). The report is computed
# at most once per SIESTA_HEALTH_CACHE_SECONDS per process, however many probes ask.
SIESTA_HEALTH_TOKEN = env.str("SIESTA_HEALTH_TOKEN", default="")
SIESTA_HEALTH_CACHE_SECONDS = env.float("SIESTA_HEALTH_CACHE_SECONDS", default=1.0)
# A database that does not answer: every request answers 503 with Retry-After this many seconds
# (siesta_site/outage.py).
SIESTA_DB_RETRY_AFTER = env.int("SIESTA_DB_RETRY_AFTER", default=10)

# Health checks and Prometheus probe the web processes directly, over plain HTTP
# (siesta_site/health.py, siesta_site/metrics.py): never redirected to HTTPS.
SECURE_REDIRECT_EXEMPT = [r"^health/$", r"^metrics$"]

# /metrics (siesta_site/metrics.py, docs/operations.md "Metrics"): answered to staff, to a request
# with ``Authorization: Bearer <SIESTA_METRICS_TOKEN>`` (unset: no token is accepted), and to
# clients whose address (as Daphne sees it: behind nginx, X-Forwarded-For) is in one of the
# networks of SIESTA_METRICS_ALLOW (default: loopback); a 404 to anyone else.
# PROMETHEUS_MULTIPROC_DIR: every process of the box writes its values there and a scrape adds
# them up (core/metrics.py; `make up` sets it); unset, a scrape reports its own process.
SIESTA_METRICS_TOKEN = env.str("SIESTA_METRICS_TOKEN", default="")
SIESTA_METRICS_ALLOW = env.list("SIESTA_METRICS_ALLOW", default=["127.0.0.0/8", "::1/128"])
for _network in SIESTA_METRICS_ALLOW:  # a mistyped network stops the start, not every scrape
    ipaddress.ip_network(_network.strip(), strict=False)
PROMETHEUS_MULTIPROC_DIR = env.str("PROMETHEUS_MULTIPROC_DIR", default="") or None

# Engine work (hints, the analysis API, puzzle checks) draws from one CPU budget per user (per
# address signed out): SIESTA_ENGINE_BUDGET CPU seconds (0: no budget), refilled evenly over
# SIESTA_ENGINE_BUDGET_WINDOW seconds. Searches run in a pool of SIESTA_ENGINE_WORKERS spawned
# processes per web process at nice SIESTA_ENGINE_NICE, each stopped after SIESTA_ENGINE_CAP CPU
# seconds; a search not done within SIESTA_ENGINE_WAIT seconds is refused as busy.
# SIESTA_ENGINE_POOL=0 runs them in the calling thread (no cap). games/engine_budget.py.
SIESTA_ENGINE_BUDGET = env.float("SIESTA_ENGINE_BUDGET", default=6.0)
SIESTA_ENGINE_BUDGET_WINDOW = env.float("SIESTA_ENGINE_BUDGET_WINDOW", default=60.0)
SIESTA_ENGINE_POOL = env.bool("SIESTA_ENGINE_POOL", default=True)
# Two workers, of which one computes at a time: one address runs on at most
# SIESTA_ENGINE_WORKERS - 1 of them, and a search of an address served less lately pauses the
# others (games/engine_budget.py, FairQueue): no address waits for a flooding one's search.
SIESTA_ENGINE_WORKERS = env.int("SIESTA_ENGINE_WORKERS", default=2)
# The puzzle pool (learn.tasks.puzzle_pool_top_up, every 5 minutes): keep this many puzzles
# untried by anyone, playing at most SIESTA_PUZZLE_POOL_GAMES games (about 5 s each) per run.
SIESTA_PUZZLE_POOL = env.int("SIESTA_PUZZLE_POOL", default=300)
SIESTA_PUZZLE_POOL_GAMES = env.int("SIESTA_PUZZLE_POOL_GAMES", default=3)
# ... and only while the cores are idle: the 1-minute load average per core below this (a negative
# value: never periodically; `manage.py top_up_puzzles` fills the pool at install).
SIESTA_PUZZLE_POOL_MAX_LOAD = env.float("SIESTA_PUZZLE_POOL_MAX_LOAD", default=0.5)
SIESTA_ENGINE_NICE = env.int("SIESTA_ENGINE_NICE", default=19)
SIESTA_ENGINE_CAP = env.float("SIESTA_ENGINE_CAP", default=5.0)
SIESTA_ENGINE_WAIT = env.float("SIESTA_ENGINE_WAIT", default=30.0)
# Every address has a bucket of its own, shared by all its callers (accounts behind one address):
# SIESTA_ENGINE_ADDRESS_BUDGET CPU seconds per window (0: none). Searches wait for a worker in a
# fair queue (addresses in turn, then an address's callers in turn); at most
# SIESTA_ENGINE_ADDRESS_QUEUE searches of one address wait or run at once per web process (0: no
# cap; beyond, 429 engine_queue).
SIESTA_ENGINE_ADDRESS_BUDGET = env.float("SIESTA_ENGINE_ADDRESS_BUDGET", default=6.0)
SIESTA_ENGINE_ADDRESS_QUEUE = env.int("SIESTA_ENGINE_ADDRESS_QUEUE", default=4)

if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
