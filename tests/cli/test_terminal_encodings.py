"""A terminal that cannot show every character still gets the fight, never a traceback.

The narration speaks French rule names and typography ("Point Zéro", "margin −2", "…"). A
Latin-1 terminal has no "−" or "…", an ASCII one no "é", and Windows writes a redirected
output in its ANSI code page: every command that printed one crashed with exit 70. Text
now shows "?" for what the terminal cannot show; JSON stays exact (ASCII escapes).
Run as a user runs it: a fresh interpreter whose output encoding is set by PYTHONIOENCODING.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def fracas(tmp_path: Path, encoding: str, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "fracas", *argv], cwd=tmp_path, env=env, capture_output=True, timeout=120
    )


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "cp1252"])
def test_the_fight_is_told_in_any_terminal_encoding(tmp_path: Path, encoding: str) -> None:
    there, here = tmp_path / encoding, tmp_path / "utf-8"
    there.mkdir()
    here.mkdir()
    ended = fracas(there, encoding, "run", "mira_vs_guard", "--seed", "7", "--log", "m.jsonl")
    assert ended.returncode == 0, ended.stderr.decode(encoding, "replace")[-2000:]
    told = ended.stdout.decode(encoding)
    assert "Won by Mira, who escaped, after 3 rounds; 153 events" in told
    utf8 = fracas(here, "utf-8", "run", "mira_vs_guard", "--seed", "7", "--log", "m.jsonl").stdout.decode()
    assert told == utf8.encode(encoding, "replace").decode(encoding)  # only what the terminal lacks is "?"
    assert (there / "m.jsonl").read_bytes() == (here / "m.jsonl").read_bytes()


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_json_output_is_exact_in_any_terminal_encoding(tmp_path: Path, encoding: str) -> None:
    for argv in (["odds", "point_zero", "5d6k3", "--vs", "12", "--json"], ["systems", "--json"]):
        ended = fracas(tmp_path, encoding, *argv)
        assert ended.returncode == 0, ended.stderr.decode(encoding, "replace")[-2000:]
        utf8 = fracas(tmp_path, "utf-8", *argv)
        assert json.loads(ended.stdout.decode(encoding)) == json.loads(utf8.stdout.decode())


def test_an_error_naming_an_accented_file_is_one_line_in_ascii(tmp_path: Path) -> None:
    ended = fracas(tmp_path, "ascii", "verify", "Zéro.jsonl")
    assert ended.returncode == 2
    # standard error escapes what it cannot show (Python's own choice for it): the name stays exact
    assert ended.stderr.decode("ascii").splitlines() == [
        "fracas: error: Z\\xe9ro.jsonl: cannot read log: No such file or directory"
    ]
