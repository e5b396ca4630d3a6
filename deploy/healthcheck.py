"""The containers' health check of a web process: exit 0 when ``/health/`` answers 200 (``ok`` or
``degraded``), 1 otherwise (503: the database is down; no answer in time). Standard library only:
the image has no curl.

    python deploy/healthcheck.py [URL]    (default http://127.0.0.1:$PORT/health/, PORT 8000)

The request carries the first of ``DJANGO_ALLOWED_HOSTS`` as its Host, so that Django accepts it
whatever name the site is served under.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def host() -> str:
    first = os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",")[0].strip().lstrip(".")
    return first if first and first != "*" else "localhost"


def main(argv: list[str]) -> int:
    url = argv[1] if len(argv) > 1 else f"http://127.0.0.1:{os.environ.get('PORT', '8000')}/health/"
    request = urllib.request.Request(url, headers={"Host": host()})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        print(f"healthcheck: {url}: {exc}", file=sys.stderr)
        return 1
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
