from django.apps import AppConfig


class SiestaSiteConfig(AppConfig):
    """The site's infrastructure (settings, routing, the Celery app, the in-process task runner).

    It has no models; as an app it wires what is the site's rather than a domain's."""

    name = "siesta_site"
    verbose_name = "Siesta site"

    def ready(self) -> None:
        from django.core.signals import request_started
        from django.urls import register_converter

        from core.converters import IdConverter
        from core.heartbeat import start_heartbeat
        from core.inprocess import start_inprocess_beat

        # Before any URLconf is read: every route's ``<id:...>`` (core/converters.py).
        register_converter(IdConverter, "id")

        # Without a broker, the first request a server answers starts the periodic tasks in its
        # process (turn timeouts, bot re-enqueue, sweeps); see core/inprocess.py.
        request_started.connect(start_inprocess_beat, dispatch_uid="siesta-inprocess-beat")
        # Each serving process beats while the database and Redis answer (core/heartbeat.py).
        request_started.connect(start_heartbeat, dispatch_uid="siesta-heartbeat")
