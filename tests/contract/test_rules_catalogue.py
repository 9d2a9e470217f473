"""The repository is self-contained: its own rule catalogue, and no reference to a file outside it.

docs/rules.md is written by tools/rules_catalogue.py from what ``fracas
systems`` reports; these tests fail when the two drift apart, when a rule ID
that the readings, the code or the expected logs cite is not catalogued, and
when a test, doc, scenario or source file points outside the repository.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT
from fracas.cli.main import main
from fracas.core.catalogue import COMMON_RULE_IDS

RULE_ID = re.compile(r"\b((?:C|PZ|ZC|D100)-[A-Z]+-\d+)\b")
CATALOGUE = ROOT / "docs" / "rules.md"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rules_catalogue", ROOT / "tools" / "rules_catalogue.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def catalogued() -> set[str]:
    return set(re.findall(r"^\| `([^`]+)` \| ", CATALOGUE.read_text(encoding="utf-8"), re.M)) & set(
        RULE_ID.findall(CATALOGUE.read_text(encoding="utf-8"))
    )


def test_the_catalogue_is_what_fracas_systems_reports() -> None:
    assert CATALOGUE.read_text(encoding="utf-8") == _tool().render(), (
        "docs/rules.md drifted from `fracas systems`: run python tools/rules_catalogue.py --write"
    )


def test_the_check_names_the_first_line_that_drifted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "rules.md"
    stale.write_text(
        CATALOGUE.read_text(encoding="utf-8").replace("| `PZ-MOVE-2` | ", "| `PZ-MOVE-2` | (edited) "), encoding="utf-8"
    )
    tool = _tool()
    assert tool.main(["--path", str(stale)]) == 1
    out = capsys.readouterr().out
    assert "differs from what fracas systems reports" in out and "PZ-MOVE-2" in out
    assert tool.main(["--path", str(stale), "--write"]) == 0
    assert tool.main(["--path", str(stale)]) == 0


def test_every_rule_id_fracas_systems_prints_is_catalogued(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["systems"]) == 0
    printed = set(RULE_ID.findall(capsys.readouterr().out))
    assert printed >= set(COMMON_RULE_IDS)
    assert printed == catalogued()


@pytest.mark.parametrize(
    "where",
    ["docs/rules-notes.md", "scenarios/*/*.expected.jsonl", "engine/**/*.py", "systems/**/*.py"],
)
def test_every_rule_id_cited_is_catalogued(where: str) -> None:
    cited: set[str] = set()
    for path in ROOT.glob(where):
        cited |= set(RULE_ID.findall(path.read_text(encoding="utf-8")))
    assert cited, f"{where}: no rule ID found: the check would pass vacuously"
    assert cited - catalogued() == set()


#: Paths that would point outside the repository (split so this file does not match itself).
OUTSIDE = re.compile(r"\.\./" + "shared" + "|" + "shared" + r"/(?:seeds|RULES|DESIGN|STYLE|README|hooks)")
#: Where a user or a test could meet such a reference; stored old-version logs are data, left as written.
TEXTS = ["README.md", "CHANGELOG.md", "pyproject.toml", ".ci/run", "docs", "engine", "systems", "scenarios", "tools"]


def _texts() -> list[Path]:
    files: list[Path] = []
    for name in [*TEXTS, "tests"]:
        path = ROOT / name
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for p in candidates:
            if p.suffix in {".pyc", ".png"} or ("logs" in p.relative_to(ROOT).parts[:3] and p.suffix == ".jsonl"):
                continue
            files.append(p)
    return files


def test_nothing_in_the_repository_points_at_a_file_outside_it() -> None:
    hits = []
    for path in _texts():
        if path == Path(__file__):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert hits == []


def test_the_check_for_outside_references_can_fail() -> None:
    assert OUTSIDE.search("read ../" + "shared/RULES.md")
    assert OUTSIDE.search("seed " + "shared/seeds/003_bc2a140c3a977501.txt")
    assert not OUTSIDE.search("the codes are shared, hence read-only")
