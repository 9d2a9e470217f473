"""Provably fair dice: docs/dice.md vectors, tools/verify_dice.py, run --commit / --player-seed."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from fracas.cli.main import main
from fracas.core.dice import commitment_of, derive_face, derive_key
from fracas.core.log import read_log

ROOT = Path(__file__).resolve().parents[2]
MIRA = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"
TOOL = ROOT / "tools" / "verify_dice.py"


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_dice_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def doc_vectors() -> list[tuple[str, list[str], dict[int, list[int]]]]:
    """The known-answer rows of docs/dice.md: (seed, player seeds, {sides: faces of dice 0..9})."""
    text = (ROOT / "docs" / "dice.md").read_text()
    rows = re.findall(r"^\| `([^`]+)`(?:, `([^`]+)` `([^`]+)`)?\s*\|([\d ]+)\|([\d ]+)\|([\d ]+)\|$", text, re.M)
    out = []
    for seed, p1, p2, d6, d10, d100 in rows:
        players = [p for p in (p1, p2) if p]
        out.append(
            (
                seed,
                players,
                {
                    6: [int(x) for x in d6.split()],
                    10: [int(x) for x in d10.split()],
                    100: [int(x) for x in d100.split()],
                },
            )
        )
    return out


def test_docs_list_three_vector_rows() -> None:
    assert [(s, p) for s, p, _ in doc_vectors()] == [("7", []), ("fracas", []), ("7", ["alice", "bob"])]


@pytest.mark.parametrize(("seed", "players", "faces"), doc_vectors())
def test_the_documented_vectors_are_what_the_engine_and_the_tool_derive(
    seed: str, players: list[str], faces: dict[int, list[int]]
) -> None:
    tool = load_tool()
    key = derive_key(seed, players)
    assert tool.derive_key(seed, players) == key
    for sides, want in faces.items():
        assert [derive_face(key, k, sides) for k in range(10)] == want
        assert [tool.derive_face(key, k, sides) for k in range(10)] == want


def test_the_commitment_is_the_sha256_of_the_seed() -> None:
    assert commitment_of("7") == hashlib.sha256(b"7").hexdigest()
    assert commitment_of("7") == "7902699be42c8a8e46fbbb4501726517e86b22c56a189f7625a6da49081b2451"


def test_run_commit_prints_the_commitment_before_the_first_die_and_player_seeds_reach_the_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "fair.jsonl"
    args = ["run", str(MIRA), "--seed", "s3cret", "--commit", "--player-seed", "alice", "--player-seed", "bob"]
    assert main([*args, "--log", str(log)]) == 0
    out = capsys.readouterr().out.splitlines()
    head = read_log(log).entries[0].ev
    assert out[0] == (
        f"dice commitment: {head.dice.commitment} (the seed is revealed at the end; "  # type: ignore[union-attr]
        "player seeds mixed in after it: 2)"
    )
    assert not any("rolls" in line for line in out[:2])
    assert head.dice.player_seeds == ["alice", "bob"]  # type: ignore[union-attr]
    assert main(["verify", str(log)]) == 0


def test_the_standalone_tool_accepts_an_intact_log_and_names_the_line_of_a_changed_face(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    assert main(["run", str(MIRA), "--seed", "7", "--player-seed", "p", "--log", str(log), "--quiet"]) == 0
    ok = subprocess.run([sys.executable, "-I", str(TOOL), str(log)], capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout
    dice = sum(len(e.ev.faces) for e in read_log(log).entries if type(e.ev).__name__ == "DiceRolled")  # type: ignore[attr-defined]
    lines = log.read_text().splitlines()
    assert ok.stdout == (
        f"{log}: ok: chain of {len(lines)} lines intact, seed opens its commitment, "
        f"{dice} derived dice re-derived, 0 entered dice, 0 scripted dice, 0 inherited from the parent log\n"
    )
    entry = json.loads(lines[4])
    entry["ev"]["faces"][0] = entry["ev"]["faces"][0] % 6 + 1
    lines[4] = json.dumps(entry, separators=(",", ":"), ensure_ascii=False)
    log.write_text("\n".join(lines) + "\n")
    bad = subprocess.run([sys.executable, "-I", str(TOOL), str(log)], capture_output=True, text=True, check=False)
    assert bad.returncode == 1
    assert bad.stdout.startswith(f"{log}: line 5: hash chain broken (expected ")


def test_derived_dice_fast_path_equals_the_reference_hmac() -> None:
    """DerivedDice keys the HMAC once; every face must still be derive_face's."""
    from fracas.core.dice import DerivedDice, derive_face, derive_key

    for seed, players in [("7", ()), ("a long seed " * 10, ()), ("table", ("alice", "bob"))]:
        dice = DerivedDice(seed, players)
        key = derive_key(seed, players)
        for sides in (2, 3, 6, 7, 10, 12, 100):
            assert [dice.face(k, sides) for k in range(200)] == [derive_face(key, k, sides) for k in range(200)]
