"""The board drawing (``games.engine.svg``): pure standard library, like python-chess's
``chess.svg``; the site words its accessible name (tests/pages/test_rules_page.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from games.engine import svg
from games.engine.svg import Summary, Window, board, board_window, parse_window

SVG = "{http://www.w3.org/2000/svg}"


def _parse(markup: str) -> ET.Element:
    return ET.fromstring(markup)


def test_board_draws_each_piece_kind():
    markup = board(["S1#", ".2.", "..#"], crop=True)
    root = _parse(markup)
    assert root.get("role") == "img"
    assert root.find(f"{SVG}title").text == root.get("aria-label") == "Siesta board A1:D4"
    assert len(root.findall(f".//{SVG}circle[@class='sun']")) == 1
    assert len(root.findall(f".//{SVG}rect[@class='shadow']")) == 2
    roofs = root.findall(f".//{SVG}g[@class]")
    assert sorted(g.get("class") for g in roofs) == ["roof seat-1", "roof seat-2"]
    digits = sorted(g.find(f"{SVG}text").text for g in roofs)
    assert digits == ["1", "2"]
    assert 'fill="#0072b2"' in markup
    assert 'fill="#d55e00"' in markup
    assert "style=" not in markup  # the Content-Security-Policy refuses inline styles


def test_board_window_keeps_the_real_coordinates():
    root = _parse(board(["", "", "", "...S1#"], window="C3:G5"))
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert labels[:5] == ["C", "D", "E", "F", "G"]
    assert labels[5:8] == ["3", "4", "5"]
    assert "A" not in labels


def test_board_full_board_by_default():
    root = _parse(board([]))
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert labels[0] == "A"
    assert labels[11] == "L"
    assert labels[12:24] == [str(n) for n in range(1, 13)]
    assert root.get("viewBox").startswith("0 0 ")


def test_board_outlines_highlights_and_marks_illegal_cells():
    root = _parse(board(["S1#"], highlight="A1 C1", marks=["D1"], window="A1:D2"))
    assert len(root.findall(f".//{SVG}rect[@class='highlight']")) == 2
    assert len(root.findall(f".//{SVG}g[@class='mark']")) == 1


def test_cells_outside_the_window_are_not_drawn():
    root = _parse(board(["S1#"], highlight="C1", marks="C1", window="A1:B2"))
    assert root.findall(f".//{SVG}rect[@class='highlight']") == []
    assert root.findall(f".//{SVG}g[@class='mark']") == []
    assert root.findall(f".//{SVG}rect[@class='shadow']") == []


def test_board_describe_gets_the_summary_and_its_words_are_escaped():
    seen: list[Summary] = []

    def describe(summary: Summary) -> str:
        seen.append(summary)
        return "<i>&'words'</i>"

    markup = board(
        ["S1#", ".2.", "..#"], highlight="A1 C1", marks=["D1"], crop=True, describe=describe
    )
    assert seen == [
        Summary(
            window=Window(0, 0, 4, 3),
            suns=("A1",),
            shadows=("C1", "C3"),
            roofs=((1, ("B1",)), (2, ("B2",))),
            outlined=("A1", "C1"),
            marked=("D1",),
        )
    ]
    assert (seen[0].first_column, seen[0].last_column, seen[0].first_row, seen[0].last_row) == (
        "A",
        "E",
        1,
        4,
    )
    assert "<i>" not in markup
    assert _parse(markup).get("aria-label") == "<i>&'words'</i>"


def test_board_title_is_escaped():
    markup = board(["S"], title='<b>"x"</b>', crop=True)
    assert "<b>" not in markup
    assert _parse(markup).get("aria-label").startswith('<b>"x"</b> Siesta board')


def test_board_size_sets_the_cell_size():
    small = _parse(board(["S"], window="A1:B1", size=10))
    big = _parse(board(["S"], window="A1:B1", size=40))
    assert float(big.get("width")) > 3 * float(small.get("width"))


@pytest.mark.parametrize(
    ("rows", "message"),
    [(["S1X"], "C1: 'X'"), (["." * 13], "row 1"), (["."] * 13, "at most 12"), ("S1#", "list")],
)
def test_board_rejects_bad_boards(rows, message):
    with pytest.raises(ValueError, match=message):
        board(rows)


def test_board_rejects_bad_cells():
    with pytest.raises(ValueError, match="M1"):
        board(["S"], highlight="M1")
    with pytest.raises(ValueError, match="window"):
        parse_window("A1")


def test_parse_window_takes_either_corner_order():
    assert parse_window("E5:A1") == parse_window("a1:e5") == Window(0, 0, 4, 4)
    assert str(Window(0, 0, 4, 4)) == "A1:E5"


def test_board_window_grows_by_the_margin_and_stays_on_the_board():
    assert board_window([["", "", "", "...S1#"]]) == "C3:G5"
    assert board_window([["S"]], margin=2) == "A1:C3"
    assert board_window([[]]) == "A1:L12"
    assert board_window([[]], ["L12"]) == "K11:L12"


def test_default_label_is_the_window():
    assert svg.default_label(svg.summary([], parse_window("B2:C3"))) == "Siesta board B2:C3"
