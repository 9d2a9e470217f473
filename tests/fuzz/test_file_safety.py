"""Files are safe (issue 15): every destructive case, tried against every command that writes.

Never replace an existing file without ``--force``; never write an input; never
write through a symbolic link or onto a folder, a device or a FIFO; a seed never
steers the default log out of ``logs/``; readers refuse what is not a regular
file at once (a FIFO or ``/dev/zero`` would block or never end).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SCENARIOS
from fuzz_harness import error_lines, fracas

MIRA = SCENARIOS / "point_zero" / "mira_vs_guard.toml"
MIRA_LOG = SCENARIOS / "point_zero" / "mira_vs_guard.expected.jsonl"
PRECIOUS = b"precious bytes that must survive\n"
ANSWERS = "1\n" * 400  # Mira's choices at `fracas play`: always the first, to the fight's end


def refused(argv: list[str], *words: str) -> str:
    ended = fracas(argv)
    assert ended.rc == 2, ended.describe()
    lines = error_lines(ended.err)
    assert len(lines) == 1, ended.describe()
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "fight.jsonl"
    shutil.copyfile(MIRA_LOG, path)
    return path


def writers(tmp_path: Path, log: Path, target: Path) -> dict[str, list[str]]:
    """Every command that writes a file, aimed at ``target``."""
    return {
        "run": ["run", str(MIRA), "--quiet", "--log", str(target)],
        "play": ["play", str(MIRA), "--human", "mira", "--summary", "--log", str(target)],  # answers: ANSWERS
        "fork": ["replay", str(log), "--fork-at", "5", "--seed", "2", "--log", str(target)],
        "render": ["render", str(log), "-o", str(target)],
        "batch-out": ["batch", str(MIRA), "-n", "2", "--workers", "1", "--no-progress", "--out", str(target)],
        "odds-plot": ["odds", "zcorps", "4D", "--plot", str(target)],
    }


#: The name a command's output must have (a --out or --plot file is named by its format).
SUFFIX = {"batch-out": ".csv", "odds-plot": ".png"}


@pytest.mark.parametrize("command", ["run", "play", "fork", "render", "batch-out", "odds-plot"])
def test_an_existing_file_is_never_replaced_without_force(
    command: str, tmp_path: Path, log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(ANSWERS))
    target = tmp_path / f"victim{SUFFIX.get(command, '.out')}"
    target.write_bytes(PRECIOUS)
    argv = writers(tmp_path, log, target)[command]
    refused(argv, str(target), "--force")
    assert target.read_bytes() == PRECIOUS
    ended = fracas([*argv, "--force"])
    assert ended.rc == 0, ended.describe()
    assert target.read_bytes() != PRECIOUS


@pytest.mark.parametrize("command", ["run", "play", "fork", "render", "batch-out", "odds-plot"])
def test_a_symbolic_link_is_never_written_through(command: str, tmp_path: Path, log: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(PRECIOUS)
    link = tmp_path / f"link{SUFFIX.get(command, '.out')}"
    link.symlink_to(victim)
    for extra in ([], ["--force"]):
        refused([*writers(tmp_path, log, link)[command], *extra], str(link), "symbolic link")
        assert victim.read_bytes() == PRECIOUS
        assert link.is_symlink()


@pytest.mark.parametrize("command", ["run", "play", "fork", "render"])
def test_a_folder_is_never_an_output(command: str, tmp_path: Path, log: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "inside").write_bytes(PRECIOUS)
    refused([*writers(tmp_path, log, folder)[command], "--force"], str(folder), "folder")
    assert (folder / "inside").read_bytes() == PRECIOUS


@pytest.mark.parametrize("command", ["run", "play", "fork", "render"])
def test_a_fifo_or_a_device_is_never_an_output(command: str, tmp_path: Path, log: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused([*writers(tmp_path, log, fifo)[command], "--force"], str(fifo), "FIFO")
    assert fifo.is_fifo()
    refused([*writers(tmp_path, log, Path("/dev/full"))[command], "--force"], "/dev/full", "device")
    assert Path("/dev/full").is_char_device()


def test_a_log_under_a_file_or_in_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_bytes(PRECIOUS)
    refused(["run", str(MIRA), "--quiet", "--log", str(plain / "x.jsonl")], str(plain))
    assert plain.read_bytes() == PRECIOUS


def test_the_scenario_is_never_its_own_log(tmp_path: Path) -> None:
    scenario = tmp_path / "mira.toml"
    shutil.copyfile(MIRA, scenario)
    before = scenario.read_bytes()
    refused(["run", str(scenario), "--log", str(scenario), "--force"], "input")
    assert scenario.read_bytes() == before


def test_a_fork_never_replaces_its_parent(log: Path) -> None:
    before = log.read_bytes()
    refused(["replay", str(log), "--fork-at", "5", "--seed", "2", "--log", str(log), "--force"], "input")
    assert log.read_bytes() == before


def test_render_never_replaces_the_log_it_renders(log: Path, tmp_path: Path) -> None:
    before = log.read_bytes()
    refused(["render", str(log), "-o", str(log), "--force"], "input")
    alias = tmp_path / "alias.jsonl"
    alias.hardlink_to(log)
    refused(["render", str(log), "-o", str(alias), "--force"], "input")
    assert log.read_bytes() == before


def test_a_seed_never_steers_the_default_log_out_of_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "a" / "b" / "c"
    (work / "logs").mkdir(parents=True)
    monkeypatch.chdir(work)
    for seed in ("/../../../victim", "../../x", "a/b", "..", "x" * 500, "\x00evil", "-rf"):
        ended = fracas(["run", str(MIRA), "--quiet", f"--seed={seed}"])
        assert ended.rc == 0, ended.describe()
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert all(p.parent == Path("a/b/c/logs") for p in written), written
    assert all(len(p.name) <= 100 and not p.name.startswith(".") for p in written), written


def test_a_refused_write_leaves_no_temporary_file(tmp_path: Path, log: Path) -> None:
    target = tmp_path / "page.html"
    target.write_bytes(PRECIOUS)
    refused(["render", str(log), "-o", str(target)], "--force")
    assert fracas(["render", str(log), "-o", str(target), "--force"]).rc == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fight.jsonl", "page.html"]


@pytest.mark.parametrize("command", ["verify", "replay", "audit", "render"])
def test_readers_refuse_a_fifo_or_a_device_at_once(command: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    extra = ["--roll", "1"] if command == "audit" else []
    for source in (fifo, Path("/dev/zero"), tmp_path):
        done = subprocess.run(
            [sys.executable, "-m", "fracas", command, str(source), *extra],
            capture_output=True,
            text=True,
            timeout=20,  # a reader that blocks on the FIFO or reads /dev/zero forever fails here
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "regular file" in done.stderr, done.stderr


def test_validate_and_run_refuse_a_fifo_scenario_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    for argv in (["validate", str(fifo)], ["run", str(fifo)]):
        done = subprocess.run(
            [sys.executable, "-m", "fracas", *argv], capture_output=True, text=True, timeout=20, check=False
        )
        assert done.returncode == 2 and "regular file" in done.stderr, done.stderr


def _fork(tmp_path: Path, log: Path) -> Path:
    fork = tmp_path / "fork.jsonl"
    ended = fracas(["replay", str(log), "--fork-at", "5", "--seed", "2", "--log", str(fork)])
    assert ended.rc == 0, ended.describe()
    return fork


def test_a_fork_whose_parent_is_a_fifo_is_reported_not_waited_on(tmp_path: Path, log: Path) -> None:
    """The fork's header names its parent; verify reads the file of that name beside it: a FIFO blocked it."""
    fork = _fork(tmp_path, log)
    log.unlink()
    os.mkfifo(log)  # the parent's name, now a FIFO nobody writes to
    ended = fracas(["verify", str(fork)])
    assert ended.rc == 1, ended.describe()
    assert "not a regular file (a FIFO)" in ended.out, ended.out


def test_a_forged_parent_name_with_a_nul_byte_is_reported_not_a_crash(tmp_path: Path, log: Path) -> None:
    import msgspec
    from fracas.core.log import GENESIS, encode_entry, read_log

    entries = read_log(_fork(tmp_path, log)).entries
    head = entries[0].ev
    forged = msgspec.structs.replace(head, parent=msgspec.structs.replace(head.parent, parent_log="fight\x00.jsonl"))
    entries[0] = msgspec.structs.replace(entries[0], ev=forged)
    out, prev = [], GENESIS
    for seq, e in enumerate(entries):
        line, prev = encode_entry(seq, e.round, e.count, e.sec, e.ev, prev)
        out.append(line)
    (tmp_path / "forged.jsonl").write_bytes(b"\n".join(out) + b"\n")
    ended = fracas(["verify", str(tmp_path / "forged.jsonl")])
    assert ended.rc in (1, 2), ended.describe()
