"""``fracas batch``: equal JSON for any worker count, rows, kept logs, sweeps, plots, errors."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest
from conftest import need
from fracas.cli.main import main
from fracas.services import batch as B
from fracas.services.batch import executors
from fracas.services.run import replay_log

ROOT = Path(__file__).resolve().parents[2]
DUEL = str(ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["batch", DUEL, "--json", *argv]) == 0
    out = capsys.readouterr()
    assert out.err == ""  # no progress bar with --json / without a terminal
    doc: dict[str, object] = json.loads(out.out)
    return doc


def test_one_and_two_workers_and_any_chunking_print_equal_json(capsys: pytest.CaptureFixture[str]) -> None:
    one = _json(capsys, "-n", "48", "--seed", "s", "--workers", "1")
    two = _json(capsys, "-n", "48", "--seed", "s", "--workers", "2", "--chunk-size", "5")
    assert one == two
    assert one["fights"] == 48 and one["partial"] is False
    assert one["fight_seed"] == "s-<i> for fight i = 0..47"


def test_json_summary_has_rates_intervals_rounds_and_actor_figures(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, "-n", "30", "--seed", "3", "--workers", "1")
    res = doc["result"]
    assert isinstance(res, dict)
    mira = res["sides"]["mira"]["win"]
    lo, hi = mira["ci95"]
    assert lo <= mira["rate"] <= hi
    assert sum(res["rounds"]["histogram"].values()) == 30
    guard = res["actors"]["guard"]
    assert set(guard) == {
        "side",
        "present",
        "down",
        "escaped",
        "dead",
        "damage_dealt_mean",
        "damage_taken_mean",
        "ammo_spent_mean",
        "hp_lost_mean",
        "status_at_end_of_fight",
        "wounds_at_end_of_fight",
    }
    assert list(guard["wounds_at_end_of_fight"]["physical"]) == ["none", "Légère", "Grave", "Critique", "Fatale"]
    # fleeing by the door is not being down: Mira's escapes count apart (the issue: `mira down 100.0 %`)
    m = res["actors"]["mira"]
    escapes = res["endings"].get("side mira escaped", 0)
    assert escapes > 0 and m["escaped"]["count"] == escapes
    assert m["down"]["count"] + m["escaped"]["count"] <= 30
    assert sum(guard["wounds_at_end_of_fight"]["physical"].values()) == guard["present"]


def test_text_table_names_sides_and_the_seed_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", DUEL, "-n", "20", "--seed", "9", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Mira vs the guard (point_zero): 20 of 20 fights, root seed 9 (fight i: seed 9-i)\n")
    assert "Security guards" in out and "rounds: mean" in out


def test_out_csv_has_one_row_per_fight_in_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rows.csv"
    assert (
        main(
            [
                "batch",
                DUEL,
                "-n",
                "40",
                "--seed",
                "c",
                "--workers",
                "2",
                "--chunk-size",
                "7",
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    with out.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["fight"] for r in rows] == [str(i) for i in range(40)]
    assert rows[3]["seed"] == "c-3"
    wins = sum(r["winner"] == "guards" for r in rows)
    assert wins == doc["result"]["sides"]["guards"]["win"]["count"]


def test_out_parquet_streams_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pq = need("pyarrow.parquet")
    out = tmp_path / "rows.parquet"
    assert main(["batch", DUEL, "-n", "20", "--workers", "1", "--chunk-size", "8", "--out", str(out), "--json"]) == 0
    capsys.readouterr()
    table = pq.read_table(out)
    assert table.num_rows == 20
    assert table.column("fight").to_pylist() == list(range(20))


def test_missing_parquet_extra_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    out = tmp_path / "rows.parquet"
    assert main(["batch", DUEL, "-n", "5", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"fracas: error: --out {out}: Parquet needs pyarrow: install the extra with pip install 'fracas[parquet]'\n"
    )


def test_missing_plot_extra_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["batch", DUEL, "-n", "5", "--plot", "x.png"]) == 2
    assert capsys.readouterr().err == (
        "fracas: error: --plot x.png: plots need matplotlib: install the extra with pip install 'fracas[plot]'\n"
    )


def test_missing_dask_extra_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    assert main(["batch", DUEL, "-n", "5", "--dask-local", "1"]) == 2
    assert capsys.readouterr().err == (
        "fracas: error: Dask is not installed: install the extra with pip install 'fracas[dask]'\n"
    )


def test_bad_out_suffix_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", DUEL, "-n", "5", "--out", "rows.txt"]) == 2
    assert capsys.readouterr().err == "fracas: error: --out rows.txt: expected a .csv or .parquet file name\n"


def test_invalid_sweep_path_exits_2_before_any_fight(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", DUEL, "-n", "5", "--sweep", "actors.nobody.skills.handguns=3,4"]) == 2
    assert capsys.readouterr().err == (
        "fracas: error: --sweep actors.nobody.skills.handguns: no element with id `nobody` at $.actors "
        "(ids: mira, guard, guard2, guard3)\n"
    )


def test_three_sweeps_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["batch", DUEL, "--sweep", "round_limit=2,3", "--sweep", "seed=1,2", "--sweep", "map.width=30,31"]
    assert main(argv) == 2
    assert capsys.readouterr().err == "fracas: error: --sweep: at most two at a time, got 3\n"


def test_sweep_prints_a_curve_point_per_value_with_common_seeds(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, "-n", "20", "--seed", "w", "--workers", "1", "--sweep", "actors.guard.skills.handguns=1,9")
    assert doc["sweep"] == ["actors.guard.skills.handguns"]
    assert [p["values"] for p in doc["points"]] == [
        {"actors.guard.skills.handguns": 1},
        {"actors.guard.skills.handguns": 9},
    ]
    assert all(p["result"]["fights"] == 20 for p in doc["points"])
    assert (
        main(
            ["batch", DUEL, "-n", "20", "--seed", "w", "--workers", "1", "--sweep", "actors.guard.skills.handguns=1,9"]
        )
        == 0
    )
    text = capsys.readouterr().out.splitlines()
    assert text[3].startswith("actors.guard.skills.handguns  Mira wins")
    assert text[4].startswith("1 ") and text[5].startswith("9 ")


def test_kept_logs_replay_to_the_batch_result_and_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keep = tmp_path / "kept"
    doc = _json(
        capsys,
        "-n",
        "30",
        "--seed",
        "k",
        "--workers",
        "1",
        "--keep-logs",
        str(keep),
        "--keep-if",
        "longest",
        "--keep-max",
        "2",
        "--out",
        str(tmp_path / "rows.csv"),
    )
    kept = [Path(p) for p in doc["kept_logs"]]
    assert len(kept) == 2
    with (tmp_path / "rows.csv").open(encoding="utf-8") as f:
        rows = {r["fight"]: r for r in csv.DictReader(f)}
    longest = max(int(r["rounds"]) for r in rows.values())
    for path in kept:
        fight = path.stem.removeprefix("fight")
        state = replay_log(path).state
        assert (state.winner or "", str(state.round)) == (rows[fight]["winner"], rows[fight]["rounds"])
        assert main(["verify", str(path)]) == 0
    assert int(rows[kept[0].stem.removeprefix("fight")]["rounds"]) == longest


def test_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need("matplotlib")
    png = tmp_path / "b.png"
    assert main(["batch", DUEL, "-n", "10", "--workers", "1", "--plot", str(png), "--json"]) == 0
    capsys.readouterr()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ctrl_c_prints_partial_results_and_exits_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = B.run_chunk
    calls = {"n": 0}

    def interrupt_second(chunk: B.Chunk) -> B.ChunkResult:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(chunk)

    monkeypatch.setattr(executors, "run_chunk", interrupt_second)  # where InlineExecutor looks it up
    assert main(["batch", DUEL, "-n", "40", "--workers", "1", "--chunk-size", "10", "--json"]) == 130
    doc = json.loads(capsys.readouterr().out)
    assert (doc["partial"], doc["fights"], doc["requested"]) == (True, 10, 40)


FORTY_DEAD = str(ROOT / "tests" / "data" / "zc_horde.toml")  # 4 survivors against 40 zombies


def test_a_big_sides_actors_are_one_row_of_their_means_in_the_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    """The thousand-zombie horde printed two lines per zombie; a side of more than 20 actors is one row."""
    from fracas.services.batch.report import SIDE_ROWS

    assert main(["batch", FORTY_DEAD, "-n", "3", "--seed", "2", "--workers", "1", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)["result"]
    dead = {aid: a for aid, a in res["actors"].items() if a["side"] == "dead"}
    assert len(dead) > SIDE_ROWS
    assert main(["batch", FORTY_DEAD, "-n", "3", "--seed", "2", "--workers", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line for line in lines if line and line.split()[0] in {*res["actors"], "dead"}}
    assert set(rows) == {aid for aid, a in res["actors"].items() if a["side"] != "dead"} | {"dead"}
    # the side's row: each column the mean over its 40 actors, computed here from the JSON
    n = res["fights"] * len(dead)
    down = 100 * sum(a["down"]["count"] for a in dead.values()) / n
    taken = sum(a["damage_taken_mean"] for a in dead.values()) / len(dead)
    row = rows["dead"].split()
    assert row[1] == f"×{len(dead)}"
    assert row[2] == f"{down:.1f}" and row[9] == f"{taken:.1f}", rows["dead"]
    ends = {k: 0 for a in dead.values() for k in a["status_at_end_of_fight"]}
    for a in dead.values():
        for k, c in a["status_at_end_of_fight"].items():
            ends[k] += c
    ranked = sorted(ends.items(), key=lambda kv: (-kv[1], kv[0]))
    shares = [(k, 100 * c / n) for k, c in ranked]
    said = " ".join(f"{k} {'<1%' if pct < 0.5 else f'{pct:.0f}%'}" for k, pct in shares)
    assert rows["dead"].endswith("end: " + said), rows["dead"]
    assert any("a side of more than 20 actors is one row" in line for line in lines)
