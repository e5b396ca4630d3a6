"""JSON Schema from Python types: the ``TypedDict`` payloads of the sockets (``*/state.py``) as the
schemas of the AsyncAPI document (``siesta_site.asyncapi``), so that it is read from the code
and cannot drift from it.

Each ``TypedDict`` becomes one named schema (``#/components/schemas/<name>``): an object whose
required keys are the type's required ones (``NotRequired`` keys may be missing). A ``closed``
one (what the site sends) also forbids any other key, as ``tests/payloads.py`` checks; an open one
(what a client sends: the site ignores keys it does not read) allows them. ``Literal`` becomes
``const`` or ``enum``, ``X | None`` an ``anyOf`` with ``null``, ``list[X]`` an ``array``,
``dict[str, X]`` an ``object`` of X, ``Any`` any JSON value.
"""

from __future__ import annotations

import inspect
import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

JsonSchema = dict[str, Any]

_PLAIN: dict[Any, JsonSchema] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    None: {"type": "null"},
}


class SchemaBook:
    """Named schemas, filled as types are met; ``ref_prefix`` is where the document keeps them."""

    def __init__(self, ref_prefix: str = "#/components/schemas/") -> None:
        self.ref_prefix = ref_prefix
        self.schemas: dict[str, JsonSchema] = {}

    def schema(self, annotation: Any, *, closed: bool = True) -> JsonSchema:
        """The JSON Schema of ``annotation`` (a reference for a ``TypedDict``)."""
        if annotation is Any:
            return {}
        if is_typeddict(annotation):
            return self._typed_dict(annotation, closed=closed)
        if annotation in _PLAIN:
            return dict(_PLAIN[annotation])
        origin = get_origin(annotation)
        args = get_args(annotation)
        if origin is Literal:
            return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
        if origin in (Union, types.UnionType):
            return {"anyOf": [self.schema(option, closed=closed) for option in args]}
        if origin is list:
            return {"type": "array", "items": self.schema(args[0], closed=closed)}
        if origin is dict and args[0] is str:
            return {"type": "object", "additionalProperties": self.schema(args[1], closed=closed)}
        raise TypeError(f"no JSON Schema for {annotation!r}")

    def _typed_dict(self, typed_dict: Any, *, closed: bool) -> JsonSchema:
        name = typed_dict.__name__
        if name not in self.schemas:
            self.schemas[name] = {}  # a placeholder while its fields are read (recursion)
            hints = get_type_hints(typed_dict)
            schema: JsonSchema = {
                "type": "object",
                "properties": {
                    key: self.schema(value, closed=closed) for key, value in hints.items()
                },
                "required": sorted(typed_dict.__required_keys__),
                "additionalProperties": not closed,
            }
            described = typed_dict.__dict__.get("__doc__")
            if described:
                schema = {"title": name, "description": inspect.cleandoc(described), **schema}
            else:
                schema = {"title": name, **schema}
            self.schemas[name] = schema
        return {"$ref": self.ref_prefix + name}


def members(union: Any) -> list[Any]:
    """The types of a union alias (``A | B | C``), or the one type given."""
    if get_origin(union) in (Union, types.UnionType):
        return list(get_args(union))
    return [union]


def frame_type(typed_dict: Any) -> str:
    """The ``type`` a frame's ``TypedDict`` declares (a one-value ``Literal``)."""
    (kind,) = get_args(get_type_hints(typed_dict)["type"])
    return str(kind)
