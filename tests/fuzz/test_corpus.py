"""The committed corpus of issue 15: every reproduction, one file each, with what must happen.

Each ``tests/data/fuzz/scenarios/*.toml`` starts with ``# expect: 2 TOKEN`` (validate
refuses it in one located line naming TOKEN: a ``$.path``, ``byte`` or ``line``) or
``# expect: 0`` (it validates, and then ``run`` must finish cleanly). Cases named
``*_typo`` must suggest the near miss ("did you mean ...").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA
from fuzz_harness import LOCATED, error_lines, fracas

CORPUS = sorted((DATA / "fuzz" / "scenarios").glob("*.toml"))


def expectation(path: Path) -> tuple[int, str]:
    head = path.read_bytes().split(b"\n", 1)[0].decode("ascii")
    assert head.startswith("# expect: "), f"{path.name}: no '# expect:' header"
    code, _, token = head.removeprefix("# expect: ").partition(" ")
    return int(code), token


def test_the_corpus_holds_every_reproduction_of_the_issue() -> None:
    assert len(CORPUS) >= 50


@pytest.mark.parametrize("case", CORPUS, ids=lambda p: p.stem)
def test_corpus_case_is_refused_in_one_located_line_or_runs_cleanly(case: Path, tmp_path: Path) -> None:
    code, token = expectation(case)
    validated = fracas(["validate", str(case)])
    assert not validated.crashed, validated.describe()
    assert validated.rc == code, validated.describe()
    if code == 2:
        lines = error_lines(validated.err)
        assert len(lines) == 1 and validated.err.count("\n") == 1, validated.describe()
        assert LOCATED.match(lines[0]), f"no line:column or byte offset: {lines[0]}"
        assert token in lines[0], f"{token} not named: {lines[0]}"
        assert "expected" in lines[0] or "unknown" in lines[0], lines[0]
        if case.stem.endswith("_typo"):
            assert "did you mean" in lines[0], lines[0]
        return
    ran = fracas(["run", str(case), "--quiet", "--log", str(tmp_path / "fight.jsonl")])
    assert ran.rc == 0, ran.describe()
