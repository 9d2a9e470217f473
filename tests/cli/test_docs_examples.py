"""Every ```sh example of README.md and docs/*.md runs, in order, as a user would type it.

Each fenced block tagged ``sh`` is one session: its ``fracas`` and
``python tools/`` lines run in a fresh directory holding the repository's
scenarios and tools (so the logs they write land there), and must exit 0.
Output shown in a ```text block right after a ``$ command`` line must appear
in that command's real output (lines with "..." stand for omitted output).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(path: Path) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(path.read_text(encoding="utf-8"))]


def commands(block: str) -> list[str]:
    out = []
    for line in block.splitlines():
        line = line.strip().removeprefix("$ ")
        for part in line.split(" && "):  # `pip install -e . && fracas run ...`: the fracas part
            if part.startswith(("fracas ", "python tools/")):
                out.append(part)
    return out


def session(path: Path) -> list[str]:
    """Every command of the document's ```sh blocks, in order: one session."""
    return [c for lang, body in blocks(path) if lang == "sh" for c in commands(body)]


DOCS_WITH_EXAMPLES = [p for p in DOCS if session(p)]


def run(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    line = line.split("  #")[0]
    argv = shlex.split(line)
    prefix = [sys.executable, "-m", "fracas"] if argv[0] == "fracas" else [sys.executable]
    argv = [*prefix, *argv[1:]]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=300)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for name in ("scenarios", "tools", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


@pytest.mark.parametrize("doc", DOCS_WITH_EXAMPLES, ids=[p.name for p in DOCS_WITH_EXAMPLES])
def test_sh_examples_run(doc: Path, workdir: Path) -> None:
    for line in session(doc):
        proc = run(line, workdir)
        assert proc.returncode == 0, f"{doc.name}: `{line}` exited {proc.returncode}: {proc.stderr[-2000:]}"


def test_readme_shows_real_output(workdir: Path) -> None:
    shown = [body for lang, body in blocks(ROOT / "README.md") if lang == "text"]
    assert shown, "README.md shows no output"
    for body in shown:
        lines = body.splitlines()
        assert lines[0].startswith("$ fracas "), lines[0]
        proc = run(lines[0][2:], workdir)
        assert proc.returncode == 0
        for expected in lines[1:]:
            if "..." not in expected and expected.strip():
                assert expected in proc.stdout, f"README output line not produced: {expected!r}"


def test_every_doc_has_a_runnable_example_or_none_claimed() -> None:
    assert session(ROOT / "README.md"), "README.md has no ```sh example"
