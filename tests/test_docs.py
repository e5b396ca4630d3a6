"""The docs stay true: every path and link in them resolves, the code cites files that exist, the
endpoints and socket frames they list are the real ones, and the contract copies match the shared
originals."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import URLResolver, get_resolver

ROOT = Path(settings.BASE_DIR)
DOCS = ROOT / "docs"
SHARED = ROOT.parent / "shared"
SKIP_DIRS = {".git", ".venv", "node_modules", "staticfiles", "var", "screenshots", "htmlcov"}
CODE_SUFFIXES = {".py", ".js", ".html", ".css", ".sh", ".toml", ".yml", ".conf", ".template"}
CODE_NAMES = {"Makefile", "Dockerfile", "Procfile", "run", ".dockerignore", ".gitignore"}


def repo_files() -> list[Path]:
    files = []
    for path in ROOT.rglob("*"):
        if path.is_file() and not SKIP_DIRS & set(path.relative_to(ROOT).parts):
            files.append(path)
    return files


def code_files() -> list[Path]:
    return [p for p in repo_files() if p.suffix in CODE_SUFFIXES or p.name in CODE_NAMES]


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


@pytest.mark.parametrize("doc", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_markdown_link_resolves(doc: Path):
    text = doc.read_text()
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address, or a heading of the same page
        path = target.split("#", 1)[0]
        if not (doc.parent / path).exists():
            broken.append(target)
    assert not broken, f"{doc.relative_to(ROOT)} links to missing files: {broken}"


def test_every_docs_path_cited_anywhere_exists():
    cited: dict[str, set[str]] = {}
    for path in [*code_files(), *markdown_files()]:
        for name in re.findall(r"\bdocs/[\w/.-]+?\.md\b", path.read_text(errors="replace")):
            cited.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    assert cited, "no docs/*.md citation found: the pattern is wrong"
    missing = {name: sorted(where) for name, where in cited.items() if not (ROOT / name).exists()}
    assert not missing


def test_code_cites_no_readme_section():
    """Sections of the README moved to docs/; citations name the file they are in now."""
    stale = [
        f"{path.relative_to(ROOT)}: {match}"
        for path in code_files()
        if path != Path(__file__)
        for match in re.findall(r"README[,:]? [A-Z][\w ]*|README's|the README\b", path.read_text())
    ]
    assert not stale


def test_the_contract_files_cited_by_name_are_in_the_repository():
    """Code cites API.md and RULES.md by name: they are docs/contract/API.md and RULES.md."""
    cited = set()
    for path in code_files():
        if path == Path(__file__):
            continue
        cited |= set(re.findall(r"\b(API|RULES)\.md\b", path.read_text()))
    assert cited == {"API", "RULES"}
    for name in cited:
        assert (DOCS / "contract" / f"{name}.md").is_file()


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"the shared folder is not at {SHARED}")
@pytest.mark.parametrize("name", ["API.md", "RULES.md"])
def test_the_contract_copies_match_the_shared_originals(name: str):
    assert (DOCS / "contract" / name).read_text() == (SHARED / name).read_text(), (
        f"copy {SHARED / name} to docs/contract/{name}"
    )


# -- the HTTP API ---------------------------------------------------------------------------------


def _routes(patterns, prefix: str = "") -> typing.Iterator[str]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern)


def _documented(route: str) -> str:
    """`api/games/<id:game_id>/` as the docs write it: `/api/games/{id}/`."""
    route = re.sub(r"<(int|id|str):\w+_id>", "{id}", route)
    return "/" + re.sub(r"<str:(\w+)>", r"{\1}", route)


def test_the_endpoint_table_is_every_api_route():
    real = {_documented(r) for r in _routes(get_resolver().url_patterns) if r.startswith("api/")}
    table = (DOCS / "api.md").read_text().split("## Endpoints", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(/api/[^`]*)` \|", table, flags=re.MULTILINE))
    assert documented == real, (
        f"undocumented: {sorted(real - documented)}; gone: {sorted(documented - real)}"
    )


# -- the WebSocket protocol -----------------------------------------------------------------------


def _table(heading: str) -> dict[str, set[str]]:
    """The first table under `heading` in docs/sockets.md: each row's `type` and its fields."""
    text = (DOCS / "sockets.md").read_text()
    section = text.split(heading, 1)[1]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = set(re.findall(r"`(\w+)`", cells[1]))
        elif rows and not line.startswith("|"):
            break
    return rows


def _frames() -> dict[str, set[str]]:
    """Every frame a socket sends, with its fields: the TypedDicts of the state modules that the
    AsyncAPI document lists as sent (``siesta_site.asyncapi.SOCKETS``)."""
    from siesta_site.asyncapi import SOCKETS
    from siesta_site.typeschema import frame_type, members

    frames: dict[str, set[str]] = {}
    for socket in SOCKETS:
        for value in members(socket.sends):
            hints = typing.get_type_hints(value)
            frames.setdefault(frame_type(value), set()).update(set(hints) - {"type"})
    return frames


def test_the_server_frames_documented_are_the_real_ones():
    assert _table("## Server → client frames") == _frames()


def test_the_game_socket_accepts_the_documented_frames():
    from social.consumers import GameChatConsumer

    assert set(_table("Client → server (the game socket):")) == set(GameChatConsumer._handlers)


def test_the_socket_paths_documented_are_the_routed_ones():
    from siesta_site import routing

    real = {_documented(str(pattern.pattern)) for pattern in routing.websocket_urlpatterns}
    documented = set(re.findall(r"^\| `(/ws/[^`]*)` \|", (DOCS / "sockets.md").read_text(), re.M))
    # The echo socket is routed only with SIESTA_ECHO_WS=1; the docs list it either way.
    assert real <= documented
    assert documented - real <= {"/ws/echo/{room}/"}
