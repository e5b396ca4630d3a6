"""The answers every API operation may give, added to the OpenAPI schema in one place
(a drf-spectacular postprocessing hook, ``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``).

Whatever a view declares, the plumbing in front of it answers, always in the ``Error`` shape:

- 401 on every operation: a bad token is refused before the view runs (token authentication is
  tried first on every view, ``REST_FRAMEWORK``);
- 403 on every operation: a personal access token outside its scopes
  (``core.api.authentication.TokenScope``, ``"code": "missing_scope_<scope>"``);
- 400 on every operation with a body or query parameters: input that does not validate;
- 404 on every operation with a path parameter (no such object, or a malformed id) or a
  ``page`` parameter (a page past the end, or not a page number);
- 429 on every operation: a throttle (``core.throttling``) or a budget spent, with
  ``Retry-After`` (docs/api.md: any endpoint may answer 429);
- 503 on every operation: the database does not answer (``siesta_site.outage``, ``"code":
  "unavailable"``), with ``Retry-After``.

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
    "429": "Too many requests: wait the seconds `Retry-After` says, then try again.",
    "503": (
        "The site is briefly unavailable (`code` `unavailable`, e.g. the database does not "
        "answer): wait the seconds `Retry-After` says, then send the request again."
    ),
}

RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer", "minimum": 0},
        "description": "Seconds to wait before trying again.",
    }
}

METHODS = ("get", "post", "put", "patch", "delete")


def _statuses(operation: dict[str, Any]) -> list[str]:
    params = operation.get("parameters", [])
    statuses = ["401", "403", "429", "503"]
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
                response = responses.setdefault(
                    status,
                    {
                        "description": DESCRIPTIONS[status],
                        "content": {"application/json": {"schema": ERROR_REF}},
                    },
                )
                if status in ("429", "503"):
                    response.setdefault("headers", RETRY_AFTER)
    return result
