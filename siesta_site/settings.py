"""Django settings for Siesta online.

Everything that differs between machines is read from the environment here, in one place:

- ``DJANGO_DEBUG`` (default on; always off with ``DJANGO_PRODUCTION``)
- ``DJANGO_SECRET_KEY`` (a development key is built in)
- ``DJANGO_ALLOWED_HOSTS`` (comma separated; default ``localhost,127.0.0.1,testserver``)
- ``DJANGO_CSRF_TRUSTED_ORIGINS`` (default ``http://127.0.0.1:8000,http://localhost:8000``)
- ``DATABASE_URL`` (default SQLite in ``db.sqlite3`` beside ``manage.py``)
- ``REDIS_URL`` (unset: in-memory channel layer and Celery tasks run eagerly in-process)
- ``CELERY_EAGER`` (overrides whether Celery tasks run eagerly)
- ``DJANGO_PRODUCTION=1``: refuse to start without ``DJANGO_SECRET_KEY``, ``DATABASE_URL`` and
  ``REDIS_URL``; turn DEBUG off and cookies secure.
"""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

PRODUCTION = env.bool("DJANGO_PRODUCTION", default=False)

if PRODUCTION:
    _missing = [
        name for name in ("DJANGO_SECRET_KEY", "DATABASE_URL", "REDIS_URL") if not env.str(name, "")
    ]
    if _missing:
        raise ImproperlyConfigured(
            f"DJANGO_PRODUCTION is set but {', '.join(_missing)} missing from the environment."
        )

DEBUG = False if PRODUCTION else env.bool("DJANGO_DEBUG", default=True)

SECRET_KEY = env.str(
    "DJANGO_SECRET_KEY",
    default="django-insecure-dev-only-0c1f8e5b2a7d4e9f8a6b3c2d1e0f9a8b7c6d5e4f",
)

ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list(
    "DJANGO_CSRF_TRUSTED_ORIGINS", default=["http://127.0.0.1:8000", "http://localhost:8000"]
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
    "games",
    "ratings",
    "tournaments",
    "social",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
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
SIESTA_SITE_URL = env.str("SIESTA_SITE_URL", default="http://127.0.0.1:8000")
"""The address of the site in e-mails (links to games and to unsubscribe)."""

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
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# API
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Siesta online API",
    "DESCRIPTION": "Play Siesta online: games, live play, ratings and tournaments.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and ReDoc assets come from drf-spectacular-sidecar, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # One name per choice set shared by several fields (and apps), so the schema stays unambiguous.
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.Game.Status",
        "BotLevelEnum": "games.models.Seat.BotLevel",
    },
}

# Channels and Celery: Redis when REDIS_URL is set, in-process otherwise.
REDIS_URL = env.str("REDIS_URL", default="") or None

if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py 8 reads with a 5 s socket timeout by default, which kills every idle
            # consumer blocked in the layer's BZPOPMIN; the layer's own timeouts are enough.
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": None}]},
        }
    }
    CELERY_BROKER_URL = REDIS_URL
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"

CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_EAGER", default=REDIS_URL is None)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    "expire-turns": {"task": "games.tasks.expire_turns", "schedule": 5.0},
    "requeue-bot-turns": {"task": "games.tasks.requeue_bot_turns", "schedule": 10.0},
    "requeue-analyses": {"task": "games.tasks.requeue_analyses", "schedule": 60.0},
    # Quick pairing: widen ranges, fill bots, expire seeks and challenges (also run on each seek).
    "match-seeks": {"task": "social.tasks.match_seeks", "schedule": 3.0},
}
# Without a broker (eager Celery), the serving process runs enqueued tasks (bot turns, analyses)
# in background threads and the beat schedule above in a daemon thread (games/tasks.py).
SIESTA_TASKS_IN_THREADS = env.bool("SIESTA_TASKS_IN_THREADS", default=CELERY_TASK_ALWAYS_EAGER)
SIESTA_INPROCESS_BEAT = env.bool("SIESTA_INPROCESS_BEAT", default=CELERY_TASK_ALWAYS_EAGER)

if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=0)
