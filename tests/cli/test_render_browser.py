"""The rendered Mira fight in a real browser: headless Debian Chromium driven by Playwright.

Opens the page from disk, steps with the keyboard and the slider, and checks
the DOM (token positions, monitor boxes, narrated line, roll audit) against
``fracas.core.state.replay`` at the same seq. Leaves a screenshot of the end of the
fight in ``tests/artifacts/mira_end.png`` for a human to look at.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import all_scenarios, need
from fracas.core import events as E
from fracas.core.log import read_log
from fracas.core.state import replay
from fracas.services.narrate import Narrator
from fracas.services.render import render_html, roll_groups
from fracas.services.run import run_scenario

sync_api = need("playwright.sync_api")

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
MIRA = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"
ARTIFACTS = ROOT / "tests" / "artifacts"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Skipped on a developer machine without Chromium; in CI (.ci/run installs it) it must run.
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("CI"), reason="needs Debian's chromium (.ci/run installs it)"
)


def _grave_shot(entries: list[E.Entry]) -> tuple[dict[str, Any], int] | None:
    """Mira's roll group that marks a Grave box on the guard, and the index of that WoundMarked."""
    for g in roll_groups(entries):
        if g["actor"] != "mira":
            continue
        for i in range(g["start"], g["end"] + 1):
            ev = entries[i].ev
            if isinstance(ev, E.WoundMarked) and ev.actor == "guard" and ev.level_name == "Grave":
                return g, i
    return None


@pytest.fixture(scope="module")
def fight(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[E.Entry], dict[str, Any], int]:
    """The first seed from 1 whose Mira fight has her shot give the guard a Grave box, rendered."""
    tmp = tmp_path_factory.mktemp("browser")
    log = tmp / "mira.jsonl"
    for seed in range(1, 61):
        run_scenario(MIRA, seed=str(seed), log_path=log)
        entries = read_log(log).entries
        found = _grave_shot(entries)
        if found is not None:
            html = tmp / "mira.html"
            render_html(log, html)
            return html, entries, found[0], found[1]
    raise AssertionError("no seed in 1..60 where Mira's shot gives the guard a Grave box")


@pytest.fixture(scope="module")
def page(fight: tuple[Path, list[E.Entry], dict[str, Any], int]) -> Iterator[Any]:
    html = fight[0]
    with tempfile.TemporaryDirectory() as profile, sync_api.sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=ARGS,
            viewport={"width": 1440, "height": 900},
        )
        errors: list[str] = []
        pg = ctx.new_page()
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        pg.on("request", lambda req: errors.append(f"request {req.url}") if not req.url.startswith("file:") else None)
        pg.goto(html.as_uri())
        pg.wait_for_selector("body[data-ready='1']")
        yield pg
        ctx.close()
        assert errors == []


def _marked(pg: Any, actor: str, monitor: str, level: str) -> int:
    sel = f'.box.marked[data-actor="{actor}"][data-monitor="{monitor}"][data-level="{level}"]'
    return int(pg.locator(sel).count())


def _check_dom_against_replay(pg: Any, entries: list[E.Entry], index: int) -> None:
    seq = entries[index].seq
    assert pg.get_attribute("body", "data-seq") == str(seq)
    state = replay(entries, until=seq)
    shown = pg.eval_on_selector_all(
        ".token",
        "ts => ts.filter(t => t.style.display !== 'none').map(t => [t.dataset.actor, +t.dataset.x, +t.dataset.y])",
    )
    assert sorted(shown) == sorted([aid, a.x, a.y] for aid, a in state.actors.items())
    for aid, a in state.actors.items():
        for m in a.monitors.values():
            for level, marked in zip(m.levels, m.marked, strict=True):
                assert _marked(pg, aid, m.name, level) == marked, (seq, aid, m.name, level)
    text = _narrated(entries, index)
    assert pg.inner_text("#cap-text") == (
        text if text is not None else f"({type(entries[index].ev).__name__}: no visible change)"
    )
    if text is not None:
        assert pg.inner_text("#log .row.cur .txt") == text


def _narrated(entries: list[E.Entry], index: int) -> str | None:
    """The narrator's line for entry ``index`` (it learns the names from the entries before)."""
    narrator = Narrator()
    text = None
    for e in entries[: index + 1]:
        text = narrator.text(e.ev, e.sec)
    return text


def test_keyboard_steps_show_the_guards_grave_box_at_its_event(
    page: Any, fight: tuple[Path, list[E.Entry], dict[str, Any], int]
) -> None:
    _, entries, _, wound = fight
    page.keyboard.press("Home")
    for _ in range(wound - 1):
        page.keyboard.press("ArrowRight")
    _check_dom_against_replay(page, entries, wound - 1)
    before = replay(entries, until=entries[wound - 1].seq).actors["guard"].monitors["physical"].marked[1]
    assert _marked(page, "guard", "physical", "Grave") == before
    page.keyboard.press("ArrowRight")
    _check_dom_against_replay(page, entries, wound)
    assert _marked(page, "guard", "physical", "Grave") == before + 1
    assert "The guard marks a Grave box on the physical monitor" in page.inner_text("#log .row.cur .txt")
    page.keyboard.press("ArrowLeft")
    _check_dom_against_replay(page, entries, wound - 1)


def test_slider_moves_the_tokens_to_the_projected_positions(
    page: Any, fight: tuple[Path, list[E.Entry], dict[str, Any], int]
) -> None:
    _, entries, _, _ = fight
    moved = [i for i, e in enumerate(entries) if isinstance(e.ev, E.Moved)]
    for index in (moved[0], moved[len(moved) // 2], moved[-1]):
        page.locator("#slider").fill(str(index))
        _check_dom_against_replay(page, entries, index)


def test_clicking_miras_shot_shows_its_audit(page: Any, fight: tuple[Path, list[E.Entry], dict[str, Any], int]) -> None:
    _, entries, group, wound = fight
    test_index = group["test"]
    test = entries[test_index].ev
    assert isinstance(test, E.SkillTested)
    dice = next(e.ev for e in reversed(entries[group["start"] : test_index]) if isinstance(e.ev, E.DiceRolled))
    page.locator(f'#log .row[data-i="{test_index}"]').click()
    _check_dom_against_replay(page, entries, test_index)
    audit = page.locator("#audit")
    first = audit.locator(".aud").nth(1)
    assert first.locator(".die .f").all_inner_texts() == [str(f) for f in dice.faces]
    assert first.locator(".die .fate").all_inner_texts() == list(dice.fates)
    rules = audit.locator(".rule").all_inner_texts()
    for m in test.modifiers:
        assert m.rule in rules
    text = audit.inner_text()
    assert f"{test.total} vs {test.difficulty}: margin {test.margin:+d}" in text
    assert f"base difficulty\t{test.difficulty_base}" in text
    assert f"difficulty\t{test.difficulty}" in text
    assert "success" in text
    assert _narrated(entries, wound) in audit.locator(".cons li").all_inner_texts()


def test_end_of_the_fight_matches_the_final_state_and_is_saved_as_a_screenshot(
    page: Any, fight: tuple[Path, list[E.Entry], dict[str, Any], int]
) -> None:
    _, entries, _, _ = fight
    page.keyboard.press("End")
    _check_dom_against_replay(page, entries, len(entries) - 1)
    assert page.get_attribute("#verify", "data-status") == "ok"
    page.wait_for_timeout(400)  # let the last token transition settle for the picture
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "mira_end.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


_OVERLAPS = """
() => {
  const V = window.fracasViewer;
  const n = V.data.steps.length;
  const bad = [];
  let most = 0;
  const meet = (a, b) =>
    a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  for (let i = 0; i < n; i++) {
    V.seek(i);
    // every text on the map but the axis numbers, the initials inside tokens and the exit glyph
    const labels = [...document.querySelectorAll("#map text:not(.axis):not(.ini)")].filter((t) => {
      if (!t.textContent || t.textContent === "\u21e5") return false;
      for (let e = t; e && e.id !== "map"; e = e.parentNode) if (e.style && e.style.display === "none") return false;
      return true;
    });
    const boxes = labels.map((t) => [t.textContent, t.getBoundingClientRect()]);
    for (let a = 0; a < boxes.length; a++)
      for (let b = a + 1; b < boxes.length; b++)
        if (meet(boxes[a][1], boxes[b][1])) bad.push([i, boxes[a][0], boxes[b][0]]);
    most = Math.max(most, labels.length);
    if (bad.length > 20) break;
  }
  return { steps: n, bad: bad, most: most };
}
"""

SHIPPED = all_scenarios()  # the heavy ones (fracas.scenarios.HEAVY) have no expected log to render


@pytest.mark.parametrize("scenario", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_two_map_labels_meet_at_any_step_of_the_shipped_fights(page: Any, scenario: Path, tmp_path: Path) -> None:
    """Names of actors, cover and exits, states and attack labels: placed or offset, never on top of each other.

    Runs last in this module: it takes the module's page to each shipped fight's expected log.
    """
    from fracas.services.logdiff import expected_log_path

    html = tmp_path / f"{scenario.parent.name}-{scenario.stem}.html"
    render_html(expected_log_path(scenario), html)
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    page.add_style_tag(content="* { transition: none !important; animation: none !important; }")
    found = page.evaluate(_OVERLAPS)
    assert found["steps"] > 10 and found["most"] >= 3  # the check saw labels
    assert found["bad"] == [], f"labels meet (step, label, label): {found['bad'][:5]}"
    if scenario.stem in ("barricade", "mira_vs_guard"):
        page.evaluate("() => window.fracasViewer.seek(60)")
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator("#map").screenshot(path=str(ARTIFACTS / f"{scenario.stem}_labels.png"))


_AT_STEPS = """
(indices) => {
  const V = window.fracasViewer;
  const meet = (a, b) =>
    a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  return indices.map((i) => {
    V.seek(i);
    const tokens = [...document.querySelectorAll(".token")].filter((t) => t.style.display !== "none")
      .map((t) => [t.dataset.actor, +t.dataset.x, +t.dataset.y]);
    const boxes = [...document.querySelectorAll("#map text.lbl")]
      .filter((t) => t.textContent && getComputedStyle(t).display !== "none")
      .map((t) => [t.textContent, t.getBoundingClientRect()]);
    const bad = [];
    for (let a = 0; a < boxes.length; a++)
      for (let b = a + 1; b < boxes.length; b++)
        if (meet(boxes[a][1], boxes[b][1])) bad.push([boxes[a][0], boxes[b][0]]);
    return { seq: +document.body.dataset.seq, tokens: tokens, labels: boxes.length, bad: bad.slice(0, 5) };
  });
}
"""


@pytest.fixture(scope="module")
def forty(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[E.Entry]]:
    """The 40-zombie fight (tests/data/zc_horde.toml, seed 1: 44 actors, 7,000 events): its page and its entries."""
    tmp = tmp_path_factory.mktemp("forty")
    log = tmp / "forty.jsonl"
    run_scenario(ROOT / "tests" / "data" / "zc_horde.toml", seed="1", log_path=log)
    html = tmp / "forty.html"
    render_html(log, html)
    return html, read_log(log).entries


def test_a_forty_zombie_fight_shows_each_rounds_positions_with_no_labels_meeting(
    page: Any, forty: tuple[Path, list[E.Entry]]
) -> None:
    """44 actors, 7,000 events: the page built from the per-actor views shows the projection (issue 17's scale)."""
    html, entries = forty
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    page.add_style_tag(content="* { transition: none !important; animation: none !important; }")
    starts = [i for i, e in enumerate(entries) if isinstance(e.ev, E.RoundStarted)]
    moves = [i for i, e in enumerate(entries) if isinstance(e.ev, E.Moved)]  # a token moves at that very step
    indices = [*starts[1:], *moves[:: max(1, len(moves) // 12)], len(entries) - 1]
    for i, shown in zip(indices, page.evaluate(_AT_STEPS, indices), strict=True):
        state = replay(entries, until=entries[i].seq)
        assert shown["seq"] == entries[i].seq
        assert sorted(tuple(t) for t in shown["tokens"]) == sorted((aid, a.x, a.y) for aid, a in state.actors.items())
        assert shown["labels"] >= len(state.actors)  # every token's name is drawn
        assert shown["bad"] == [], (entries[i].seq, shown["bad"])


_STEP_WRITES = """
(i) => new Promise((done) => {
  const V = window.fracasViewer;
  V.seek(i - 1);
  const touched = { token: new Set(), sheet: new Set() };
  const seen = new MutationObserver((records) => records.forEach((r) => {
    const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    const owner = node && node.closest(".token, .sheet");
    if (owner) touched[owner.classList.contains("token") ? "token" : "sheet"].add(owner.dataset.actor);
  }));
  seen.observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true });
  V.seek(i);
  setTimeout(() => { seen.disconnect(); done({ token: [...touched.token], sheet: [...touched.sheet] }); }, 0);
})
"""


def test_a_step_rewrites_only_the_tokens_and_sheets_it_changes(page: Any, forty: tuple[Path, list[E.Entry]]) -> None:
    """A metre of one zombie's walk touches its token and sheet and the highlights, not the 44 actors' (issue 17).

    Every token, label and sheet rewritten at each step made the browser restyle the thousand-zombie page:
    seconds a step. The check counts the DOM writes of a step, not its time.
    """
    html, entries = forty
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    moves = [i for i, e in enumerate(entries) if isinstance(e.ev, E.Moved) and isinstance(entries[i - 1].ev, E.Moved)]
    assert len(moves) > 20
    for i in moves[:: len(moves) // 8]:
        touched = page.evaluate(_STEP_WRITES, i)
        movers = {entries[i].ev.actor, entries[i - 1].ev.actor}  # type: ignore[union-attr]
        # the mover, the one who moved the step before (its highlight goes), no other
        assert set(touched["token"]) <= movers, (entries[i].seq, touched["token"])
        assert set(touched["sheet"]) <= movers, (entries[i].seq, touched["sheet"])
        assert entries[i].ev.actor in touched["token"]  # type: ignore[union-attr]
