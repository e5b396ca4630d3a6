"""The shared core: what every app builds on and no app owns. The domain errors (``errors``), the
API's plumbing (``api``: base view, authentication, the one exception handler, pagination,
schema), the credentials registry (``credentials``), throttles (``throttling``), strict JSON
(``safejson``), the guarded socket consumer (``sockets``), broadcasts and the channel layer
(``broadcast``, ``channel_layer``) and enqueuing tasks (``inprocess``). The engine's CPU budget
is the games' (``games.engine_budget``: it runs the engine's worker pool).

The core imports no app and nothing of ``siesta_site``, the project package (settings, URLs,
ASGI routing, the Celery app: the composition root); what it needs of the project it reads from
the settings (``django.conf.settings``). The apps import the core, never ``siesta_site``. Both
are import contracts of pyproject.toml (docs/architecture.md).
"""
