"""The rules page: its worked examples (played out by the engine) and the ``board_svg`` tag."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.template import Context, Template
from django.urls import reverse

from games.templatetags.siesta_board import board_window, parse_window, render_board_svg
from games.worked_examples import RECORDS, worked_examples

SVG = "{http://www.w3.org/2000/svg}"
SHARED_CASES = (
    Path(__file__).resolve().parents[3] / "shared" / "rules-cases" / "worked-examples.json"
)

# Our example name -> the case of rules-cases/worked-examples.json it copies.
SHARED_NAMES = {
    "fig1": "fig1-first-turn",
    "fig1_roof_first": "first-turn-roof-first",
    "fig2": "fig2-suns-roofs-shadows",
    "fig3a": "fig3a-extend",
    "fig3b": "fig3b-right-angle",
    "fig4a": "fig4-sun-not-adjacent",
    "fig4c": "fig4-sun-next-to-shadow",
    "fig4d": "fig4-legal-sun-and-roof",
    "fig5": "fig5-two-owners",
    "fig6a": "fig6a-double-standard",
    "fig6b": "fig6b-double-standard",
    "fig6c": "fig6c-mixed-standard",
    "crossing": "crossing-double-standard",
    "fig6a_classic": "fig6a-double-classic",
    "fig6b_classic": "fig6b-double-classic",
    "fig6c_classic": "fig6c-mixed-classic",
    "crossing_classic": "crossing-double-classic",
    "last_sun": "last-sun-ends-turn",
    "last_roof": "last-roof",
    "no_scoring_move": "no-scoring-move",
}


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


# -- worked examples ---------------------------------------------------------------------------


@pytest.mark.skipif(not SHARED_CASES.exists(), reason="shared/rules-cases is not beside the repo")
@pytest.mark.parametrize(("name", "case_name"), sorted(SHARED_NAMES.items()))
def test_worked_example_matches_the_shared_rules_case(name, case_name):
    case = {c["name"]: c for c in json.loads(SHARED_CASES.read_text())}[case_name]
    record = {"players": 2, "variant": "standard", **case["record"]}
    assert {"players": 2, "variant": "standard", **RECORDS[name]} == record
    example = worked_examples()[name]
    expect = case["expect"]
    if expect["error"] is None:
        assert example.legal
        assert [p.points for p in example.points] == expect["points"][-1]
        assert [p.score for p in example.points] == expect["scores"]
        assert example.after == expect["board"]
        assert example.end_reason == expect["end_reason"]
    else:
        assert not example.legal
        assert example.error_cell == expect["error"]["mentions"]
        assert example.points == []


def test_examples_compare_the_double_siesta_variants():
    examples = worked_examples()
    fig6c = examples["fig6c"]
    assert fig6c.mover == 2
    assert [(p.points, p.classic_points) for p in fig6c.points] == [(3, 1), (1, 1)]
    crossing = examples["crossing"]
    assert [(p.points, p.classic_points) for p in crossing.points] == [(3, 1), (0, 0)]
    assert [s.points for s in crossing.steps] == [0, 3, 3]
    assert [s.points for s in crossing.classic_steps] == [0, 1, 1]
    # Where both variants agree, the twin shows the same points.
    assert [(p.points, p.classic_points) for p in examples["fig6a"].points] == [(7, 7), (0, 0)]


def test_illegal_examples_name_the_cell_and_draw_the_attempt():
    examples = worked_examples()
    fig4b = examples["fig4b"]  # a shadow under a roof with no sun: in no siesta
    assert not fig4b.legal
    assert fig4b.error_cell == "B2"
    assert fig4b.before[0] == "S1##" + "." * 8
    assert fig4b.after[0].startswith("S1###1")
    assert fig4b.after[1].startswith(".#")
    assert fig4b.placed == ["E1", "B2", "F1"]


def test_steps_show_where_a_move_scores():
    fig6a = worked_examples()["fig6a"]
    assert [(s.placement, s.points) for s in fig6a.steps] == [("HF1", 1), ("RG1", 1), ("SH1", 7)]
    assert fig6a.mover_points == 7


def test_game_ending_examples_report_the_reason():
    examples = worked_examples()
    assert examples["last_sun"].over
    assert examples["last_sun"].end_reason == "last_sun"
    assert [s.placement for s in examples["last_sun"].steps] == ["SA1"]
    stuck = examples["no_scoring_move"]
    assert stuck.end_reason == "no_scoring_move"
    assert stuck.blocked_seat == 2
    assert stuck.window == "A1:L12"


def test_windows_hold_every_piece_with_a_margin():
    assert worked_examples()["fig1"].window == "A1:D2"
    assert worked_examples()["fig3b"].window == "A1:F6"


# -- board_svg ---------------------------------------------------------------------------------


def test_board_svg_draws_each_piece_kind():
    svg = render_board_svg(["S1#", ".2.", "..#"], crop=True)
    root = _parse(svg)
    assert root.get("role") == "img"
    label = root.get("aria-label")
    assert root.find(f"{SVG}title").text == label
    assert "Sun: A1." in label
    assert "Shadows: C1, C3." in label
    assert "Roof of player 1: B1." in label
    assert "Roof of player 2: B2." in label
    assert len(root.findall(f".//{SVG}circle[@class='sun']")) == 1
    assert len(root.findall(f".//{SVG}rect[@class='shadow']")) == 2
    roofs = root.findall(f".//{SVG}g[@class]")
    assert sorted(g.get("class") for g in roofs) == ["roof seat-1", "roof seat-2"]
    digits = sorted(g.find(f"{SVG}text").text for g in roofs)
    assert digits == ["1", "2"]
    assert 'fill="#0072b2"' in svg
    assert 'fill="#d55e00"' in svg
    assert "style=" not in svg  # the Content-Security-Policy refuses inline styles


def test_board_svg_window_keeps_the_real_coordinates():
    root = _parse(render_board_svg(["", "", "", "...S1#"], window="C3:G5"))
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert labels[:5] == ["C", "D", "E", "F", "G"]
    assert labels[5:8] == ["3", "4", "5"]
    assert "A" not in labels
    assert "columns C to G, rows 3 to 5" in root.get("aria-label")


def test_board_svg_full_board_by_default():
    root = _parse(render_board_svg([]))
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert labels[0] == "A"
    assert labels[11] == "L"
    assert labels[12:24] == [str(n) for n in range(1, 13)]
    assert root.get("viewBox").startswith("0 0 ")


def test_board_svg_outlines_highlights_and_marks_illegal_cells():
    root = _parse(render_board_svg(["S1#"], highlight="A1 C1", marks=["D1"], window="A1:D2"))
    assert len(root.findall(f".//{SVG}rect[@class='highlight']")) == 2
    assert len(root.findall(f".//{SVG}g[@class='mark']")) == 1
    label = root.get("aria-label")
    assert "Outlined: A1, C1." in label
    assert "Marked illegal: D1." in label


def test_board_svg_title_is_escaped():
    svg = render_board_svg(["S"], title='<b>"x"</b>', crop=True)
    assert "<b>" not in svg
    assert _parse(svg).get("aria-label").startswith('<b>"x"</b> Siesta board')


def test_board_svg_size_sets_the_cell_size():
    small = _parse(render_board_svg(["S"], window="A1:B1", size=10))
    big = _parse(render_board_svg(["S"], window="A1:B1", size=40))
    assert float(big.get("width")) > 3 * float(small.get("width"))


@pytest.mark.parametrize(
    ("rows", "message"),
    [(["S1X"], "row 1"), (["." * 13], "row 1"), (["."] * 13, "at most 12"), ("S1#", "list")],
)
def test_board_svg_rejects_bad_boards(rows, message):
    with pytest.raises(ValueError, match=message):
        render_board_svg(rows)


def test_board_svg_rejects_bad_cells():
    with pytest.raises(ValueError, match="M1"):
        render_board_svg(["S"], highlight="M1")
    with pytest.raises(ValueError, match="window"):
        parse_window("A1")


def test_board_window_grows_by_the_margin_and_stays_on_the_board():
    assert board_window([["", "", "", "...S1#"]]) == "C3:G5"
    assert board_window([["S"]], margin=2) == "A1:C3"
    assert board_window([[]]) == "A1:L12"
    assert board_window([[]], ["L12"]) == "K11:L12"


def test_board_svg_template_tag():
    html = Template(
        '{% load siesta_board %}{% board_svg rows highlight="B1" window="A1:C1" size=20 %}'
    ).render(Context({"rows": ["S1#"]}))
    root = _parse(html)
    assert root.get("width") == str(15 + 3 * 20 + 2)
    assert len(root.findall(f".//{SVG}rect[@class='highlight']")) == 1


# -- the page ----------------------------------------------------------------------------------

SECTIONS = [
    "objective",
    "pieces",
    "turn",
    "siesta",
    "double-siesta",
    "end",
    "modes",
    "hints",
    "notation",
    "examples",
]
FIGURES = [
    "fig1",
    "fig2",
    "fig3a",
    "fig3b",
    "fig4",
    "fig5",
    "fig6a",
    "fig6b",
    "fig6c",
    "crossing",
    "last-sun",
    "no-scoring-move",
]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "es", "de", "it", "fr"])
def test_rules_page_has_every_section_and_figure(client, language):
    response = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    assert f"rules/rules_{language}.html" in [t.name for t in response.templates]
    html = response.content.decode()
    for anchor in SECTIONS + FIGURES:
        assert f'id="{anchor}"' in html, anchor
    svgs = re.findall(r"<svg .*?</svg>", html, flags=re.S)
    svgs = [svg for svg in svgs if 'class="icon' not in svg.split(">", 1)[0]]  # not the icons
    # Two boards for each example, one before plus four attempts for figure 4.
    assert len(svgs) == 2 * (len(FIGURES) - 1) + 5
    for svg in svgs:
        _parse(svg)


@pytest.mark.django_db
def test_rules_page_points_come_from_the_engine(client):
    html = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "Player 1 plays HF1 RG1 SH1" in text
    assert "+7" in text
    assert "7 points in all" in text
    # Figure 6c, standard against classic, seat by seat.
    fig6c = html[html.index('id="fig6c"') : html.index('id="crossing"')]
    cells = re.findall(r"<td>\+(\d+)</td>", fig6c)
    assert cells == ["3", "1", "1", "1"]
    assert "Illegal at A5" in text
    assert "Illegal at B2" in text
    assert "Illegal at C2" in text
    assert "Player 2 has no legal turn that scores a point" in text


@pytest.mark.django_db
def test_rules_page_falls_back_to_english(client):
    response = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert "rules/rules_en.html" in [t.name for t in response.templates]
    assert '<html lang="en">' in response.content.decode()
