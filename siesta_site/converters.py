"""The ``<id:...>`` path converter: a database id, as every route that reaches the database
takes it.

Django's ``<int:...>`` accepts any number of digits; an id past a 64-bit signed integer then
reaches the database, where the ORM answers "no such row" but hand-written SQL (``games.rows``)
overflows (SQLite raises ``OverflowError``). This converter refuses such a path segment, so the
URL does not match and the site answers its 404 (JSON under ``/api/``, ``siesta_site.handlers``)
before any view runs. Registered in ``SiestaSiteConfig.ready``.
"""

from __future__ import annotations

MAX_ID = 2**63 - 1
"""The largest value of a 64-bit signed integer: PostgreSQL's ``bigint``, SQLite's INTEGER."""


class IdConverter:
    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        number = int(value)  # ValueError past Python's digit limit: no match either
        if number > MAX_ID:
            raise ValueError(f"{value} is out of range for an id")
        return number

    def to_url(self, value: int | str) -> str:
        return str(value)
