"""What a packager trusts: the metadata, the version, the sdist's contents, and CI running the README.

The built artefacts themselves are checked by .ci/run (the wheel holds only
``fracas``; installed outside the repository it runs the README's fight from
an empty folder; the suite passes with the lowest versions the floors allow).
These tests keep the declarations those checks rely on from drifting.
"""

from __future__ import annotations

import re
import tomllib

import pytest
from conftest import ROOT
from fracas.cli.main import main
from fracas.core.version import __version__

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
#: Tools a developer needs, not a user: never in a published extra.
DEV_TOOLS = {"ruff", "mypy", "build", "playwright", "uv"}


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower()


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert not any(c.startswith("License ::") for c in PROJECT["classifiers"])  # PEP 639: the expression only


def test_no_development_tool_is_a_published_extra() -> None:
    published = {_name(r) for reqs in PROJECT["optional-dependencies"].values() for r in reqs}
    assert published & DEV_TOOLS == set()
    assert {_name(r) for r in PYPROJECT["dependency-groups"]["dev"]} >= DEV_TOOLS


def test_the_floors_name_the_versions_known_to_work() -> None:
    floors = {_name(r): r for r in PROJECT["dependencies"]}
    assert floors["msgspec"] == "msgspec>=0.18.6"  # 0.18.0-0.18.5: Encoder(order=...) is missing
    assert all(">=" in r for r in PROJECT["dependencies"]), "every dependency has a floor"


def test_the_classifiers_name_the_supported_pythons() -> None:
    floor = PROJECT["requires-python"].removeprefix(">=")
    listed = sorted(c.rsplit(" :: ", 1)[1] for c in PROJECT["classifiers"] if re.search(r"Python :: 3\.\d+$", c))
    assert listed[0] == floor and listed == ["3.11", "3.12", "3.13"]


def test_the_version_has_one_source_and_fracas_version_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert "version" in PROJECT["dynamic"] and "version" not in PROJECT
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "fracas.core.version.__version__"
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"fracas {__version__}\n"


def test_the_sdist_manifest_holds_what_the_suite_needs() -> None:
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    for folder in ("tests", "scenarios", "docs", "tools", "examples"):
        assert f"graft {folder}" in manifest, folder
    assert "include LICENSE README.md CHANGELOG.md pyproject.toml .ci/run" in manifest


def test_ci_runs_the_readme_test_command_exactly() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install, test = readme.split("```sh\n", 1)[1].split("\n```", 1)[0].splitlines()
    assert install.startswith("pip install -e . && fracas run ")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test in ci, f".ci/run does not run the README's test command: {test}"
