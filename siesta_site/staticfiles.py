"""Static files in production: hashed, compressed, and ES modules that name their hashed files."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):  # type: ignore[misc]  # untyped
    """WhiteNoise's storage that also rewrites the page scripts' module imports
    (``from "./lib/board.js"``) to the hashed names, so that a module the template names with
    ``{% static %}`` and one another module imports are the same URL: loaded once, cached for
    good, and never stale."""

    support_js_module_import_aggregation = True
