"""The ``<id:...>`` path converter: a database id, as every route that reaches the database
takes it; ``id_of`` reads one the same way where a socket's route gives it as text.

Django's ``<int:...>`` accepts any number of digits; an id past a 64-bit signed integer then
reaches the database, where the ORM answers "no such row" but hand-written SQL (``games.rows``)
overflows (SQLite raises ``OverflowError``). This converter refuses such a path segment, so the
URL does not match and the site answers its 404 (JSON under ``/api/``, ``siesta_site.handlers``)
before any view runs. Registered in ``SiestaSiteConfig.ready``.
"""

from __future__ import annotations

MAX_ID = 2**63 - 1
"""The largest value of a 64-bit signed integer: PostgreSQL's ``bigint``, SQLite's INTEGER."""


def id_of(text: str) -> int | None:
    """``text`` as a database id (ASCII digits, at most ``MAX_ID``), or None: what the WebSocket
    routes take (``/ws/games/<id>/``, ``/ws/tournaments/<id>/``), whose consumers then close with
    4404 before any query, as an HTTP route answers 404."""
    digits = text.lstrip("0") or "0"
    if not (text.isascii() and text.isdigit()) or len(digits) > len(str(MAX_ID)):
        return None
    number = int(digits)
    return number if number <= MAX_ID else None


class IdConverter:
    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        number = id_of(value)
        if number is None:
            raise ValueError(f"{value[:40]} is out of range for an id")
        return number

    def to_url(self, value: int | str) -> str:
        return str(value)
