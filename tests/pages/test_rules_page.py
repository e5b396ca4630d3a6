"""The rules page: its worked examples (played out by the engine) and the ``board_svg`` tag
(the drawing itself: tests/engine/test_svg.py)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation

from pages.worked_examples import RECORDS, worked_examples

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


# -- the board_svg tag ------------------------------------------------------------------------


def test_board_svg_tag_words_the_board_in_the_readers_language():
    html = Template(
        '{% load siesta_board %}{% board_svg rows highlight="A1 C1" marks=marks crop=True %}'
    ).render(Context({"rows": ["S1#", ".2.", "..#"], "marks": ["D1"]}))
    label = _parse(html).get("aria-label")
    assert label.startswith("Siesta board, columns A to E, rows 1 to 4.")
    assert "Sun: A1." in label
    assert "Shadows: C1, C3." in label
    assert "Roof of player 1: B1." in label
    assert "Roof of player 2: B2." in label
    assert "Outlined: A1, C1." in label
    assert "Marked illegal: D1." in label
    with translation.override("de"):
        german = _parse(
            Template("{% load siesta_board %}{% board_svg rows %}").render(Context({"rows": ["S"]}))
        )
    assert german.get("aria-label") != _parse(
        Template("{% load siesta_board %}{% board_svg rows %}").render(Context({"rows": ["S"]}))
    ).get("aria-label")


def test_board_svg_template_tag():
    html = Template(
        '{% load siesta_board %}{% board_svg rows highlight="B1" window="A1:C1" size=20 %}'
    ).render(Context({"rows": ["S1#"]}))
    root = _parse(html)
    assert root.get("width") == str(15 + 3 * 20 + 2)
    assert len(root.findall(f".//{SVG}rect[@class='highlight']")) == 1


def test_board_svg_tag_escapes_the_title():
    html = Template("{% load siesta_board %}{% board_svg rows title=t crop=True %}").render(
        Context({"rows": ["S"], "t": '<b>"x"</b>'})
    )
    assert "<b>" not in html
    assert _parse(html).get("aria-label").startswith('<b>"x"</b> Siesta board, columns')


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
