"""Real-browser tests: Debian's Chromium driven by Playwright against a live Daphne server.

- The server (Daphne, the site's ASGI application with Channels) runs in a thread of the test
  process on a free port, so it shares the test database and the channel layer with the tests.
- Chromium is never downloaded: Playwright launches ``/usr/bin/chromium`` (``SIESTA_CHROMIUM``
  overrides the path). Without it the tests are skipped, except in CI (``CI=true``) where the
  run stops with an error instead.
- Every page fixture fails its test on a JavaScript error or a console error.
- ``screenshot(page, name)`` saves ``screenshots/<name>.png`` (git-ignored) to look at.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client

from tests.factories import PASSWORD, UserFactory

CHROMIUM = os.environ.get("SIESTA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 375, "height": 800}
SCREENSHOTS = Path(django_settings.BASE_DIR) / "screenshots"
TIMEOUT_MS = 10_000


def _missing() -> str | None:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"needs Chromium at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "needs Playwright for Python (pip install -e '.[dev]')"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    reason = _missing()
    in_ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    ours = [item for item in items if Path(str(item.fspath)).is_relative_to(here)]
    # Last: Playwright's event loop stays in the main thread until the session ends, where
    # other tests' async_to_sync and asyncio loops could not run.
    items[:] = [item for item in items if item not in ours] + ours
    if ours:
        # Playwright's sync API keeps an event loop in the test thread; the ORM calls the tests
        # make there are still plain synchronous ones (Playwright's advice for Django).
        os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    for item in ours:
        item.add_marker(pytest.mark.browser)
        if reason:
            if in_ci:
                raise pytest.UsageError(f"{item.nodeid} {reason} (CI is set: not skipping)")
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield launched
        launched.close()


@pytest.fixture(autouse=True)
def _site_as_under_make_run(settings: Any, transactional_db: Any) -> Iterator[None]:
    """Committed data (the server's threads must see it), and bot turns in their own threads as
    under ``make run``, so that a move's answer never waits for a bot. The tasks still queued or
    running when the test ends are drained before its data is emptied."""
    from core import inprocess

    settings.SIESTA_TASKS_IN_THREADS = True
    settings.ALLOWED_HOSTS = ["*"]
    yield
    assert inprocess.drain(), "an in-process task outlived the test by two minutes"


def off_the_loop(function: Callable[..., Any], *args: Any) -> Any:
    """Run ``function`` in a worker thread and return its result: code that calls async_to_sync
    (the services' broadcasts) cannot run in the thread of Playwright's event loop."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        from django.db import connections

        try:
            result.append(function(*args))
        except BaseException as exc:  # re-raised in the test's thread
            failure.append(exc)
        finally:
            connections.close_all()  # a thread's connection would outlive the test database

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return result[0]


class Pages:
    """Opens pages in fresh browser contexts and checks, at the end, that none had a JS error."""

    def __init__(self, browser: Any, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def open(
        self,
        user: Any = None,
        *,
        viewport: dict[str, int] = DESKTOP,
        language: str | None = None,
    ) -> Any:
        context = self.browser.new_context(
            base_url=self.base_url,
            viewport=viewport,
            locale=language or "en-US",
            extra_http_headers={"Accept-Language": language or "en"},
        )
        context.set_default_timeout(TIMEOUT_MS)
        if user is not None:
            client = Client()
            client.force_login(user)
            cookie = client.cookies[django_settings.SESSION_COOKIE_NAME]
            context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": self.base_url}])
        if language:
            context.add_cookies(
                [
                    {
                        "name": django_settings.LANGUAGE_COOKIE_NAME,
                        "value": language,
                        "url": self.base_url,
                    }
                ]
            )
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        page.on(
            "console",
            lambda message: (
                self.errors.append(f"{page.url}: console {message.type}: {message.text}")
                if message.type == "error"
                else None
            ),
        )
        self.contexts.append(context)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Any, live_server_url: str) -> Iterator[Pages]:
    opened = Pages(browser, live_server_url)
    yield opened
    opened.close()
    assert not opened.errors, "JavaScript errors:\n" + "\n".join(opened.errors)


@pytest.fixture
def player(db: Any) -> Any:
    return UserFactory(username="alice")


@pytest.fixture
def page(pages: Pages, player: Any) -> Any:
    """A desktop page (1366×900) signed in as ``player``."""
    return pages.open(player)


@pytest.fixture
def screenshot() -> Callable[[Any, str], Path]:
    def take(page: Any, name: str) -> Path:
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=False)
        return path

    return take


__all__ = ["DESKTOP", "PASSWORD", "PHONE", "Pages", "off_the_loop"]
