"""The answers every API operation may give, added to the OpenAPI schema in one place
(a drf-spectacular postprocessing hook, ``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``).

Whatever a view declares, the plumbing in front of it answers, always in the ``Error`` shape:

- 401 on every operation: a bad token is refused before the view runs (token authentication is
  tried first on every view, ``REST_FRAMEWORK``);
- 403 on every operation: a personal access token outside its scopes
  (``core.api.authentication.TokenScope``, ``"code": "missing_scope_<scope>"``);
- 400 on every operation with a body or query parameters: input that does not validate;
- 404 on every operation with a path parameter (no such object, or a malformed id) or a
  ``page`` parameter (a page past the end, or not a page number).

An operation's own description of a status (e.g. a 400 naming the cell) is kept.
"""

from __future__ import annotations

from typing import Any

ERROR_REF = {"$ref": "#/components/schemas/Error"}

ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {"type": "string", "description": "What went wrong, in the request's language."},
        "code": {"type": "string", "description": "What went wrong, for programs."},
    },
    "required": ["error", "code"],
}

DESCRIPTIONS = {
    "400": "Invalid input: the first problem in `error`, each field's messages under its name.",
    "401": "The token (or the session) is not valid, or the operation needs a signed-in user.",
    "403": (
        "Not allowed: e.g. a personal access token without the scope the operation needs "
        "(`code` `missing_scope_<scope>`, `scope` names it)."
    ),
    "404": "No such object (a malformed id included), or no such page.",
}

METHODS = ("get", "post", "put", "patch", "delete")


def _statuses(operation: dict[str, Any]) -> list[str]:
    params = operation.get("parameters", [])
    statuses = ["401", "403"]
    if "requestBody" in operation or any(p.get("in") == "query" for p in params):
        statuses.append("400")
    if any(p.get("in") == "path" or p.get("name") == "page" for p in params):
        statuses.append("404")
    return statuses


def document_errors(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Add the ``Error`` answers the plumbing gives to every operation that lacks them."""
    result.setdefault("components", {}).setdefault("schemas", {}).setdefault("Error", ERROR_SCHEMA)
    for path, item in result.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            for status in _statuses(operation):
                responses.setdefault(
                    status,
                    {
                        "description": DESCRIPTIONS[status],
                        "content": {"application/json": {"schema": ERROR_REF}},
                    },
                )
    return result
