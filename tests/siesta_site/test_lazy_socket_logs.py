"""autobahn's debug log arguments are built only when a line is formatted
(siesta_site/lazy_socket_logs.py)."""

from __future__ import annotations

import ast
import inspect
import pprint

import autobahn.util
import autobahn.websocket.protocol
from twisted.logger import formatEvent

from siesta_site import lazy_socket_logs
from siesta_site.lazy_socket_logs import HELPERS, MODULES, LazyText

LOG_METHODS = {"trace", "debug", "info", "warn", "warning", "error", "critical", "failure"}


def _helper_calls_outside_log_lines(module: object) -> list[tuple[str, int]]:
    """Calls of the helpers that are not an argument of a ``….log.<level>(…)`` call."""
    tree = ast.parse(inspect.getsource(module))  # type: ignore[arg-type]
    in_log_call: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in LOG_METHODS
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "log"
        ):
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                in_log_call.update(id(n) for n in ast.walk(argument))
    outside = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in HELPERS
            and id(node) not in in_log_call
        ):
            outside.append((node.func.id, node.lineno))
    return outside


def test_the_helpers_only_build_log_arguments_in_the_patched_modules():
    # Anything else would get a placeholder instead of a str. The one exception is handled:
    # Timings.__str__ (pformat) keeps the real function.
    found = {module.__name__: _helper_calls_outside_log_lines(module) for module in MODULES}
    protocol = found.pop("autobahn.websocket.protocol")
    assert [name for name, _ in protocol] == ["pformat"]
    assert found == {"autobahn.twisted.websocket": []}


def test_installed_for_the_web_processes():
    import siesta_site.asgi  # noqa: F401

    assert isinstance(
        autobahn.websocket.protocol.hltype(test_installed_for_the_web_processes), LazyText
    )


def test_nothing_is_built_until_the_line_is_formatted(monkeypatch):
    lazy_socket_logs.install()
    calls = []
    real_hl = autobahn.util.hl
    monkeypatch.setattr(autobahn.util, "hl", lambda *a, **k: calls.append(a) or real_hl(*a, **k))

    func = autobahn.websocket.protocol.hltype(LazyText.__format__)
    value = autobahn.websocket.protocol.hlval(1234)
    assert calls == []

    # As twisted's logger formats a logged line: the same text as the helpers' own.
    text = formatEvent(
        {"log_format": "{func} sent {data_len} bytes", "func": func, "data_len": value}
    )
    assert text == (
        f"{autobahn.util.hltype(LazyText.__format__)} sent {autobahn.util.hlval(1234)} bytes"
    )
    assert calls


def test_pformat_and_timings_still_give_text():
    lazy_socket_logs.install()
    settings = [("openHandshakeTimeout", 5, "Factory")]
    assert str(autobahn.websocket.protocol.pformat(settings)) == pprint.pformat(settings)
    timings = autobahn.websocket.protocol.Timings()
    timings.track("onOpen")
    assert isinstance(str(timings), str)
    assert "onOpen" in str(timings)


def test_install_is_idempotent():
    lazy_socket_logs.install()
    lazy_socket_logs.install()
    placeholder = autobahn.websocket.protocol.hlval(7)
    assert isinstance(placeholder, LazyText)
    assert str(placeholder) == autobahn.util.hlval(7)
