"""A verifier written from docs/log-format.md and docs/dice.md alone agrees with ``fracas verify``.

tools/verify_dice.py imports nothing from fracas (the standard library
only). On every stored log of an earlier version, every expected log, their
binary forms and a fork, its verdict on the chain and dice steps is
``fracas verify``'s; on the forgeries of test_forgeries.py that break the
chain or the dice, it says no too.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, ROOT
from fracas.core.log import read_log, to_binary
from fracas.services.fork import fork_log
from fracas.services.verify import verify_log

TOOL = ROOT / "tools" / "verify_dice.py"
LOGS = sorted((DATA / "logs").glob("v*/*.jsonl")) + sorted((ROOT / "scenarios").glob("*/*.expected.jsonl"))


def stranger(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(TOOL), str(path), *args], capture_output=True, text=True)


def chain_and_dice(path: Path) -> bool:
    report = verify_log(path)
    return all(s.status == "ok" for s in report.steps if s.name in ("chain", "dice"))


def test_the_stranger_verifier_imports_only_the_standard_library() -> None:
    tree = ast.parse(TOOL.read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert names <= set(sys.stdlib_module_names) | {"__future__"}, names


@pytest.mark.parametrize("log", LOGS, ids=[f"{p.parent.name}/{p.name}" for p in LOGS])
def test_it_agrees_on_every_stored_and_expected_log(log: Path, tmp_path: Path) -> None:
    proc = stranger(log)
    assert proc.returncode == 0 and chain_and_dice(log), proc.stdout
    if "fork" in log.name:
        return
    binary = tmp_path / (log.stem + ".msgpack")
    binary.write_bytes(to_binary(read_log(log).entries))
    proc = stranger(binary)
    # a format-1 log re-encoded today gains format 2's header fields: both verifiers see its chain broken
    assert (proc.returncode == 0) == chain_and_dice(binary) == (log.parent.name not in ("v0.1.0",)), proc.stdout


def test_it_agrees_on_a_fork_found_beside_it_given_or_missing(tmp_path: Path) -> None:
    parent = tmp_path / "parent.jsonl"
    from fracas.services.run import run_scenario

    run_scenario(ROOT / "scenarios" / "zcorps" / "duel.toml", seed="1", log_path=parent)
    fork = tmp_path / "fork.jsonl"
    fork_log(parent, 40, seed="99", log_path=fork)
    assert stranger(fork).returncode == 0 and chain_and_dice(fork)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = elsewhere / "fork.jsonl"
    moved.write_bytes(fork.read_bytes())
    proc = stranger(moved)
    assert proc.returncode == 1 and "cannot prove" in proc.stdout
    report = verify_log(moved)
    assert report.exit_code == 1 and report.problem is not None and "cannot prove" in report.problem.message
    assert stranger(moved, "--parent", str(parent)).returncode == 0
    assert verify_log(moved, parent=parent).ok


@pytest.mark.parametrize("kind", ["face", "source", "seed"])
def test_it_says_no_where_verify_says_no_at_the_dice_step(kind: str, tmp_path: Path) -> None:
    from test_forgeries import Honest, relabel, reseal, unseal

    honest = Honest("point_zero", tmp_path)
    if kind == "source":
        data = relabel(honest, change_face=False)[0]
    else:
        lines = unseal(honest.data)
        if kind == "face":
            i = next(k for k, line in enumerate(lines) if b'"DiceRolled"' in line)
            lines[i] = lines[i].replace(b'"faces":[', b'"faces":[9', 1)  # 9 then the first face: 9x, not a face
        else:
            lines[-1] = lines[-1].replace(b'"seed":"1"', b'"seed":"2"')
        data = reseal(lines)
    path = tmp_path / "forged.jsonl"
    path.write_bytes(data)
    assert stranger(path).returncode == 1
    assert not chain_and_dice(path)
