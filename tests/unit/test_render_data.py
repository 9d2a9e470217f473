"""fracas.services.render without a browser: the data exported into the page, the page, the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fracas.cli.main import main
from fracas.core import events as E
from fracas.core.log import read_log
from fracas.core.state import replay, state_to_builtins
from fracas.services.narrate import Narrator
from fracas.services.render import build_data, chain_check, page, read_entries, render_html, roll_groups
from fracas.services.run import run_scenario

ROOT = Path(__file__).resolve().parents[2]
MIRA = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"
WAREHOUSE = ROOT / "scenarios" / "point_zero" / "warehouse.toml"


def mira_wounds_guard(entries: list[E.Entry]) -> bool:
    """Mira's shot marks a Grave box on the guard's physical monitor."""
    groups = roll_groups(entries)
    return any(
        g["actor"] == "mira"
        and any(
            isinstance(ev := entries[i].ev, E.WoundMarked) and ev.actor == "guard" and ev.level_name == "Grave"
            for i in range(g["start"], g["end"] + 1)
        )
        for g in groups
    )


@pytest.fixture(scope="module")
def mira_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Mira fight with the first seed (from 1) in which Mira's shot gives the guard a Grave box."""
    path = tmp_path_factory.mktemp("render") / "mira.jsonl"
    for seed in range(1, 61):
        run_scenario(MIRA, seed=str(seed), log_path=path)
        if mira_wounds_guard(read_log(path).entries):
            return path
    raise AssertionError("no seed in 1..60 where Mira's shot gives the guard a Grave box")


def _embedded(html: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="fracas-data">(.*?)</script>', html, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def test_deltas_folded_in_order_give_the_projection_at_every_seq(mira_log: Path) -> None:
    entries = read_log(mira_log).entries
    data = build_data(mira_log, entries)
    views: dict[str, dict[str, Any]] = {}
    for i, delta in enumerate(data["deltas"]):
        for aid, fields in (delta or {}).items():
            views.setdefault(aid, {}).update(fields)
        expected = state_to_builtins(replay(entries, until=entries[i].seq))["actors"]
        assert set(views) == set(expected)
        for aid, view in views.items():
            assert view == {k: expected[aid][k] for k in view}
            assert view["position"] == expected[aid]["position"]
            assert view["monitors"] == expected[aid]["monitors"]


def test_steps_and_text_are_one_per_log_entry_with_the_narrators_line(mira_log: Path) -> None:
    entries = read_log(mira_log).entries
    data = build_data(mira_log, entries)
    assert [s[0] for s in data["steps"]] == [e.seq for e in entries]
    narrator = Narrator()
    assert data["text"] == [narrator.text(e.ev, e.sec) for e in entries]
    wound = next(
        i
        for i, e in enumerate(entries)
        if isinstance(e.ev, E.WoundMarked) and e.ev.actor == "guard" and e.ev.monitor == "physical"
    )
    assert re.fullmatch(
        r"The guard marks a Grave box on the physical monitor \(\d+ damage against \d+\) \[PZ-MON-3\]",
        data["text"][wound],
    )


def test_mira_shot_group_holds_ammo_dice_test_damage_save_and_wound(mira_log: Path) -> None:
    entries = read_log(mira_log).entries
    groups = roll_groups(entries)
    shot = next(g for g in groups if g["actor"] == "mira" and g["target"] == "guard")
    events = [entries[i].ev for i in range(shot["start"], shot["end"] + 1)]
    # a surpass (PZ-SURP-1) marks its Shock boxes right after the test, in the same group
    strain = [k for k, ev in enumerate(events) if isinstance(ev, E.WoundMarked) and ev.rule == "PZ-SURP-1"]
    assert strain == list(range(3, 3 + len(strain)))
    kinds = [type(ev).__name__ for k, ev in enumerate(events) if k not in strain]
    assert kinds == [
        "AmmoSpent",
        "DiceRolled",
        "SkillTested",
        "DiceRolled",
        "DamageRolled",
        "DiceRolled",
        "SkillTested",
        "ThresholdComputed",
        "WoundMarked",
        "ConditionSet",
    ]
    assert shot["hit"] is True
    assert shot["shot"] is True
    assert shot["action"] == "attack"


def test_initiative_rolls_are_separate_groups_per_actor(mira_log: Path) -> None:
    entries = read_log(mira_log).entries
    groups = roll_groups(entries)
    first_two = [
        (g["actor"], [type(entries[i].ev).__name__ for i in range(g["start"], g["end"] + 1)]) for g in groups[:2]
    ]
    assert first_two == [("mira", ["DiceRolled", "InitiativeSet"]), ("guard", ["DiceRolled", "InitiativeSet"])]


def test_page_is_self_contained_and_small_for_the_3v3_warehouse(tmp_path: Path) -> None:
    log = tmp_path / "warehouse.jsonl"
    run_scenario(WAREHOUSE, log_path=log)
    out = tmp_path / "warehouse.html"
    result = render_html(log, out)
    html = out.read_text(encoding="utf-8")
    assert result.size == len(html.encode("utf-8")) < 1_000_000
    assert re.findall(r"""(?:src|href)\s*=\s*["'](?!#|data:)""", html) == []
    assert "<link" not in html
    assert re.findall(r"https?://(?!www\.w3\.org/2000/svg)", html) == []
    data = _embedded(html)
    assert len(data["actors"]) == 6
    assert data["verify"]["status"] == "ok"


def test_text_cannot_close_the_data_script() -> None:
    html = page({"meta": {"scenario": "</script><script>alert(1)</script>"}})
    assert html.count("</script>") == 2  # the data block's and the viewer's own
    assert _embedded(html)["meta"]["scenario"] == "</script><script>alert(1)</script>"


def test_chain_check_names_the_first_tampered_seq(mira_log: Path, tmp_path: Path) -> None:
    lines = mira_log.read_bytes().splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if b'"type":"DiceRolled"' in line)
    face = re.search(rb'"faces":\[(\d)', lines[n])
    assert face is not None
    other = b"2" if face.group(1) == b"1" else b"1"
    lines[n] = lines[n][: face.start(1)] + other + lines[n][face.end(1) :]
    bad = tmp_path / "tampered.jsonl"
    bad.write_bytes(b"".join(lines))
    entries, _ = read_entries(bad)
    report = chain_check(entries)
    assert report["status"] == "failed"
    assert report["summary"] == f"seq {n}: hash chain broken (h does not match the entry and its predecessor)"
    entries = read_entries(mira_log)[0]
    assert chain_check(entries)["details"] == [
        f"hash chain intact over {len(entries)} entries",
        "revealed seed matches the commitment",
    ]


def test_render_cli_writes_the_page_and_reports_it(
    mira_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fight.html"
    assert main(["render", str(mira_log), "-o", str(out), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    entries = len(read_log(mira_log).entries)
    assert payload == {"output": str(out), "entries": entries, "bytes": out.stat().st_size, "verified": "ok"}


def test_render_cli_bad_log_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "empty.jsonl"
    bad.write_bytes(b"")
    assert main(["render", str(bad), "-o", str(tmp_path / "x.html")]) == 2
    assert capsys.readouterr().err == f"fracas: error: {bad}: line 1: not a fracas log (an empty file)\n"


def test_render_torn_log_warns_and_renders_the_valid_prefix(
    mira_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = mira_log.read_bytes()
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data[: len(data) - 40])
    out = tmp_path / "torn.html"
    n = len(read_log(mira_log).entries)
    assert main(["render", str(torn), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"fracas: warning: {torn}: line {n} is torn (")
    assert err.endswith(f"rendered the {n - 1} entries before it\n")
    assert len(_embedded(out.read_text(encoding="utf-8"))["steps"]) == n - 1


# ------------------------------------------------------- many actors: the work per event is bounded

FORTY_DEAD = ROOT / "tests" / "data" / "zc_horde.toml"  # 4 survivors against 40 zombies
EXPECTED = sorted(ROOT.glob("scenarios/*/*.expected.jsonl"))


def plain_deltas(entries: list[E.Entry]) -> list[dict[str, Any] | int]:
    """The page's deltas as first written: every actor's view compared after every event."""
    from fracas.core.state import State, apply_entry

    state = State()
    views: dict[str, dict[str, Any]] = {}
    out: list[dict[str, Any] | int] = []
    keep = ("status", "position", "initiative", "monitors", "hp", "hp_max", "conditions", "ammo", "spare", "weapons")
    for e in entries:
        apply_entry(state, e)
        delta: dict[str, Any] = {}
        for aid, a in state_to_builtins(state)["actors"].items():
            view = {k: a[k] for k in (*keep, "resources")}
            old = views.get(aid)
            changed = dict(view) if old is None else {k: v for k, v in view.items() if old.get(k) != v}
            if changed:
                delta[aid] = changed
                views[aid] = view
        out.append(delta or 0)
    return out


@pytest.fixture(scope="module")
def forty_dead_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("horde") / "forty.jsonl"
    run_scenario(FORTY_DEAD, seed="1", log_path=path)
    return path


@pytest.mark.parametrize(
    "path",
    [p for p in EXPECTED if p.stat().st_size < 3_000_000],  # the thousand-zombie horde: see the bound below
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_the_deltas_are_those_of_every_actor_compared_after_every_event(path: Path) -> None:
    entries = read_log(path).entries
    assert json.dumps(build_data(path, entries)["deltas"]) == json.dumps(plain_deltas(entries))


def test_the_page_of_a_big_fight_looks_at_the_actors_an_event_names_not_at_every_actor(
    forty_dead_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """44 actors and 7,000 events: one sheet read per event (and per actor at a new round), not 44 per event."""
    from fracas.services import render

    entries = read_log(forty_dead_log).entries
    reads = 0
    sheet = render.actor_to_builtins

    def counted(a: Any) -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return sheet(a)

    monkeypatch.setattr(render, "actor_to_builtins", counted)
    assert json.dumps(build_data(forty_dead_log, entries)["deltas"]) == json.dumps(plain_deltas(entries))
    actors = sum(isinstance(e.ev, E.ActorEntered) for e in entries)
    rounds = sum(isinstance(e.ev, E.RoundStarted) for e in entries)
    assert actors > 40
    assert reads <= 2 * len(entries) + rounds * actors, (reads, len(entries), actors)
