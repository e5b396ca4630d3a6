"""The move's persistence in plain SQL (docs/performance.md, "The move's path").

A move reads its game's rows (``seats_of``, or ``seats_locked`` inside a transaction: the seats
joined to their game and users, with the turns on PostgreSQL) and writes them with ``write_move``,
which applies only at the version read, on every database. The other services' locked reads use
``seats_locked`` too; a socket's state and token sign-in read here as well.

A move is a handful of small queries; through the ORM, building and compiling them (querysets,
``select_related``, ``save(update_fields=...)``, ``bulk_update``'s ``CASE``) cost several times the
CPU the queries themselves cost in the server. The statements here are built once per model, column
set and database vendor from the models' metadata, and values go through each field's own
conversions both ways (``get_db_prep_save``, the backend's and the field's converters), so they
behave as the ORM's do on PostgreSQL and SQLite alike. They run through Django's cursor (query
logging, ``CaptureQueriesContext`` and the execute wrappers see them) on the default database, the
one the services' ``transaction.atomic`` opens. No model signals are sent (none is connected to
``Game``, ``Seat`` or ``Turn``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, TypeVar, cast

import psycopg
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Model
from rest_framework.authtoken.models import Token

from core.converters import MAX_ID
from games.models import Game, Seat, Turn

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, Any], Any]
Converters = list[tuple[int, list[tuple[Converter, Any]]]]
"""Per column index, the converters the ORM would apply to it, each with its column expression."""


class _PreparedCursor(psycopg.Cursor[Any]):
    """A psycopg cursor with server-side binding whose every statement is prepared: PostgreSQL
    parses and plans it once per connection, then runs it by name with new parameters. The
    move's statements are the same few texts over and over; parsing and planning them each time
    was about a third of PostgreSQL's CPU per move. Django turns prepared statements off by default
    (for transaction-pooling proxies); these statements ask for it themselves
    (docs/performance.md)."""

    def execute(
        self,
        query: Any,
        params: Any = None,
        *,
        prepare: bool | None = None,
        binary: bool | None = None,
    ) -> _PreparedCursor:
        super().execute(query, params, prepare=True, binary=binary)
        # Django's query log (DEBUG, CaptureQueriesContext) reads ``_query.query``, which psycopg
        # leaves unset for a prepared statement.
        self._query = cast(Any, _ShownQuery(self.connection, query, params))
        return self


class _ShownQuery:
    """A prepared statement as Django's query log shows it: with its parameters inlined, as
    Django's own cursors show theirs; built only when read."""

    def __init__(self, conn: psycopg.Connection[Any], sql: Any, params: Any) -> None:
        self._conn, self._sql, self._params = conn, sql, params

    @property
    def query(self) -> bytes:
        return psycopg.ClientCursor(self._conn).mogrify(self._sql, self._params).encode()


def _cursor() -> Any:
    """Django's cursor (counted, logged and wrapped as any other); on PostgreSQL over a
    ``_PreparedCursor``."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    raw: Any = _PreparedCursor(connection.connection)
    if connection.queries_logged:
        return connection.make_debug_cursor(raw)
    return connection.make_cursor(raw)


def _qn(name: str) -> str:
    return str(connection.ops.quote_name(name))


def _column(field: Any) -> str:
    """A concrete field's column, quoted."""
    return _qn(str(field.column))


class _Reader:
    """The concrete columns of a model as ``table.column`` SQL, and how to turn a row slice back
    into an instance (the field converters the ORM would apply)."""

    def __init__(self, model: type[Model]) -> None:
        table = model._meta.db_table
        fields = model._meta.concrete_fields
        self.model = model
        self.width = len(fields)
        self.attnames = [f.attname for f in fields]
        self.sql = ", ".join(f"{_qn(table)}.{_column(f)}" for f in fields)
        self.converters = _converters(table, fields)

    def build(self, row: Sequence[Any], start: int) -> Any:
        values = _convert(list(row[start : start + self.width]), self.converters)
        return self.model.from_db(connection.alias, self.attnames, values)


def _converters(table: str, fields: Sequence[Any]) -> Converters:
    found: Converters = []
    for index, f in enumerate(fields):
        col = f.get_col(table)
        funcs = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if funcs:
            found.append((index, [(func, col) for func in funcs]))
    return found


def _convert(values: list[Any], converters: Converters) -> list[Any]:
    for index, funcs in converters:
        value = values[index]
        for func, col in funcs:
            value = func(value, col, connection)
        values[index] = value
    return values


@functools.cache
def _reader(model: type[Model], vendor: str) -> _Reader:
    return _Reader(model)


def _read(model: type[Model]) -> _Reader:
    return _reader(model, connection.vendor)


@functools.cache
def _seats_sql(vendor: str, lock: bool) -> str:
    user_model = Seat._meta.get_field("user").related_model
    assert isinstance(user_model, type)
    seat, game, user = (_qn(m._meta.db_table) for m in (Seat, Game, user_model))
    turns = ""
    if vendor == "postgresql":
        # The turns come along as one JSON array (an InitPlan: computed once, not per seat).
        turn = _qn(Turn._meta.db_table)
        columns = ", ".join(f"{turn}.{_column(Turn._meta.get_field(n))}" for n in _TURN_FIELDS)
        turns = (
            f", (SELECT json_agg(json_build_array({columns}) ORDER BY {turn}.{_qn('ply')}) "
            f"FROM {turn} WHERE {turn}.{_qn('game_id')} = %s)"
        )
    sql = (
        f"SELECT {_read(Seat).sql}, {_read(Game).sql}, {_read(user_model).sql}{turns} FROM {seat} "
        f"INNER JOIN {game} ON {game}.{_qn('id')} = {seat}.{_qn('game_id')} "
        f"LEFT OUTER JOIN {user} ON {user}.{_qn('id')} = {seat}.{_qn('user_id')} "
        f"WHERE {seat}.{_qn('game_id')} = %s ORDER BY {seat}.{_qn('seat')}"
    )
    features = connection.features
    if lock and features.has_select_for_update:
        sql += " FOR UPDATE"
        if features.has_select_for_update_of:
            # PostgreSQL locks a row's tables in this order: the game first, as a move's write
            # does (``write_move``), so neither can hold a seat while waiting for the game the
            # other holds (a deadlock).
            sql += f" OF {game}, {seat}"
    return sql


@functools.cache
def _token_user_sql(vendor: str) -> str:
    user, token = (_qn(m._meta.db_table) for m in (get_user_model(), Token))
    return (
        f"SELECT {_read(get_user_model()).sql} FROM {token} "
        f"INNER JOIN {user} ON {user}.{_qn('id')} = {token}.{_qn('user_id')} "
        f"WHERE {token}.{_qn('key')} = %s"
    )


def user_for_token(key: str) -> Any:
    """The user whose API token is ``key`` (active or not), or None: one plain query, as a
    socket signs in (sockets connect in bursts: at game starts, after a server restart). A key
    with a NUL character matches no token (and PostgreSQL text could not hold it)."""
    if "\x00" in key:
        return None
    with _cursor() as cursor:
        cursor.execute(_token_user_sql(connection.vendor), [key])
        row = cursor.fetchone()
    return None if row is None else _read(get_user_model()).build(row, 0)


def seats_locked(game_id: int) -> list[Seat]:
    """The game's seats in order, each with its game (one instance for all) and user loaded:
    one ``SELECT ... FOR UPDATE OF`` the seats and the game (where the database has row locks)."""
    return _seats(game_id, lock=True)


def seats_of(game_id: int) -> list[Seat]:
    """As ``seats_locked``, without the lock: what a reader (a socket joining the game) needs."""
    return _seats(game_id, lock=False)


def _seats(game_id: int, *, lock: bool) -> list[Seat]:
    if not 0 < game_id <= MAX_ID:  # no row has it, and SQLite could not bind it (OverflowError)
        return []
    user_model = Seat._meta.get_field("user").related_model
    assert isinstance(user_model, type)
    seat_reader, game_reader, user_reader = _read(Seat), _read(Game), _read(user_model)
    vendor = connection.vendor
    params = [game_id, game_id] if vendor == "postgresql" else [game_id]
    with _cursor() as cursor:
        cursor.execute(_seats_sql(vendor, lock), params)
        rows = cursor.fetchall()
    seats: list[Seat] = []
    game: Game | None = None
    user_field = Seat._meta.get_field("user")
    game_field = Seat._meta.get_field("game")
    for row in rows:
        seat = seat_reader.build(row, 0)
        if game is None:
            game = game_reader.build(row, seat_reader.width)
        game_field.set_cached_value(seat, game)
        start = seat_reader.width + game_reader.width
        user = user_reader.build(row, start) if row[start] is not None else None
        user_field.set_cached_value(seat, user)
        seats.append(seat)
    if game is not None and vendor == "postgresql":
        _keep_turns(game, _turns_from_json(rows[0][-1]))
    return seats


class TurnRow(NamedTuple):
    """What the game state shows of a turn (the attributes ``selectors.game_state`` reads)."""

    ply: int
    seat: int
    move: str
    points: list[int]
    hint: bool
    played_at: datetime


_TURN_FIELDS = ("ply", "seat", "move", "points", "hint", "played_at")


@functools.cache
def _turns_sql(vendor: str) -> tuple[str, Converters]:
    table = Turn._meta.db_table
    fields = [Turn._meta.get_field(name) for name in _TURN_FIELDS]
    columns = ", ".join(_column(f) for f in fields)
    sql = f"SELECT {columns} FROM {_qn(table)} WHERE {_qn('game_id')} = %s ORDER BY {_qn('ply')}"
    return sql, _converters(table, fields)


def turns_of(game_id: int) -> list[TurnRow]:
    """The game's turns in order, as the state shows them (one query, no model instances)."""
    sql, converters = _turns_sql(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        rows = cursor.fetchall()
    if not converters:
        return [TurnRow(*row) for row in rows]
    return [TurnRow(*_convert(list(row), converters)) for row in rows]


@functools.cache
def _insert_sql(model: type[Model], vendor: str) -> tuple[str, list[Any]]:
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(_column(f) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {_qn(model._meta.db_table)} ({columns}) VALUES ({marks})", fields


def insert(obj: Model) -> None:
    """``INSERT`` the row of a new instance (every column but the primary key, which stays unset:
    the move path never reads it). Fields' ``pre_save`` runs as in ``save()`` (``auto_now_add``)."""
    sql, fields = _insert_sql(type(obj), connection.vendor)
    values = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
    obj._state.adding = False
    obj._state.db = connection.alias


@functools.cache
def _update_sql(model: type[Model], names: tuple[str, ...], rows: int, vendor: str) -> str:
    """``UPDATE`` of ``names`` for one row, or for several at once (a ``CASE`` per column)."""
    meta = model._meta
    pk = _column(meta.pk)
    columns = [_column(meta.get_field(name)) for name in names]
    if rows == 1:
        assignments = ", ".join(f"{column} = %s" for column in columns)
        return f"UPDATE {_qn(meta.db_table)} SET {assignments} WHERE {pk} = %s"
    cased = []
    for name, column in zip(names, columns, strict=True):
        value = "%s"
        if connection.features.requires_casted_case_in_updates:  # as bulk_update does
            value = f"CAST(%s AS {meta.get_field(name).cast_db_type(connection)})"  # type: ignore[union-attr]
        cases = " ".join([f"WHEN %s THEN {value}"] * rows)
        cased.append(f"{column} = CASE {pk} {cases} END")
    marks = ", ".join(["%s"] * rows)
    return f"UPDATE {_qn(meta.db_table)} SET {', '.join(cased)} WHERE {pk} IN ({marks})"


def update(model: type[M], objs: Sequence[M], names: Sequence[str]) -> None:
    """Write the fields ``names`` (attribute names) of ``objs``, rows of ``model``: one ``UPDATE``
    for all of them."""
    if not objs or not names:
        return
    fields = [model._meta.get_field(name) for name in names]
    sql = _update_sql(model, tuple(names), len(objs), connection.vendor)
    params: list[Any] = []
    if len(objs) == 1:
        obj = objs[0]
        params = [f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields]  # type: ignore[union-attr]
        params.append(obj.pk)
    else:
        for f in fields:
            for obj in objs:
                params += [obj.pk, f.get_db_prep_save(getattr(obj, f.attname), connection)]  # type: ignore[union-attr]
        params += [obj.pk for obj in objs]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


_TURNS = "_siesta_turns"


def _turns_from_json(value: Any) -> list[TurnRow]:
    if value is None:
        return []
    if isinstance(value, str):
        value = json.loads(value)
    return [
        TurnRow(ply, seat, move, points, hint, datetime.fromisoformat(played_at))
        for ply, seat, move, points, hint, played_at in value
    ]


def _keep_turns(game: Game, turns: list[TurnRow]) -> None:
    game.__dict__[_TURNS] = turns


def known_turns(game: Game) -> list[TurnRow] | None:
    """The game's turns as read with its seats (``seats_locked``, ``seats_of``), with the turns
    written since by ``write_move``; None when they were not read that way or do not match the
    game's ply.

    The check matters after a row lock that had to wait: PostgreSQL then re-reads the locked rows
    (the game, its seats), but not the turns, which come from the statement's snapshot, taken before
    the wait. A game has one turn per ply, so the turns are whole exactly when their count and the
    last one's ply are the game's ply."""
    turns: list[TurnRow] | None = game.__dict__.get(_TURNS)
    if turns is None or len(turns) != game.ply or (turns and turns[-1].ply != game.ply):
        return None
    return turns


@dataclass(frozen=True)
class PendingMove:
    """A turn to insert and the seats it changed (with their changed fields), written together
    with the game's row by ``write_move``."""

    turn: Turn
    seats: list[tuple[Seat, list[str]]]


def write_move(
    pending: PendingMove, game: Game, game_fields: Sequence[str], *, version: int
) -> bool:
    """Write a move read at ``version``: insert ``pending.turn``, update the changed seats and the
    game's ``game_fields``, all or nothing, and only if the game's row is still at ``version``.
    Returns whether it did (False: another change came first, and nothing was written).

    The game's ``UPDATE ... WHERE id = ... AND version = ...`` comes first: it takes the game's row
    lock (the game before its seats, as every locked read takes them, so the two cannot deadlock)
    and checks the version on the newest row. On PostgreSQL the whole write is one statement
    (data-modifying ``WITH`` clauses: the turn and the seats read the game's clause, so they are
    written only if it was), atomic by itself, in autocommit or inside a transaction; elsewhere one
    statement per row inside ``transaction.atomic``. An ``IntegrityError`` comes from the turn:
    ``(game, ply)`` is taken."""
    assert game_fields, "a move always changes the game's row (its ply and version)"
    game_sql, game_params = _update_one(Game, game, game_fields)
    game_sql += f" AND {_qn('version')} = %s"
    game_params.append(version)
    turn = pending.turn
    if connection.vendor == "postgresql":
        sql, fields = _insert_sql(Turn, connection.vendor)
        insert_sql = sql.replace(" VALUES (", " SELECT ").removesuffix(")") + " FROM g"
        params = [f.get_db_prep_save(f.pre_save(turn, True), connection) for f in fields]
        clauses = [f"g AS ({game_sql} RETURNING 1)", f"t AS ({insert_sql})"]
        all_params = [*game_params, *params]
        for index, (seat, names) in enumerate(pending.seats):
            seat_sql, seat_params = _update_one(Seat, seat, names)
            clauses.append(f"s{index} AS ({seat_sql} AND EXISTS (SELECT 1 FROM g))")
            all_params += seat_params
        with _cursor() as cursor:
            cursor.execute(f"WITH {', '.join(clauses)} SELECT count(*) FROM g", all_params)
            (written,) = cursor.fetchone()
        if not written:
            return False
        turn._state.adding = False
        turn._state.db = connection.alias
    else:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(game_sql, game_params)
                if cursor.rowcount != 1:
                    return False
            insert(turn)
            if len(pending.seats) == 1:
                update(Seat, [pending.seats[0][0]], pending.seats[0][1])
            elif pending.seats:  # one UPDATE for them all
                names = sorted({name for _seat, fields in pending.seats for name in fields})
                update(Seat, [seat for seat, _fields in pending.seats], names)
    turns = game.__dict__.get(_TURNS)
    if turns is not None:
        turns.append(
            TurnRow(turn.ply, turn.seat, turn.move, list(turn.points), turn.hint, turn.played_at)
        )
    return True


def _update_one(model: type[M], obj: M, names: Sequence[str]) -> tuple[str, list[Any]]:
    fields = [model._meta.get_field(name) for name in names]
    sql = _update_sql(model, tuple(names), 1, connection.vendor)
    params = [f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields]  # type: ignore[union-attr]
    return sql, [*params, obj.pk]
