"""The plugin example (examples/coinflip_system) works as an installed plugin, through the command line.

The example is registered exactly as its pyproject.toml declares (a ``dist-info`` made from
its ``[project.entry-points]`` in a temporary folder on ``PYTHONPATH``, beside its source),
so nothing is installed and nothing outlives the test. Then run, replay, verify, audit,
render and batch drive it; its policies run, including ``steady``, a policy registered
from outside fracas for a shipped system (Point Zéro).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, SCENARIOS, register_entry_points
from fracas.core import events as E
from fracas.core.log import read_log

EXAMPLE = ROOT / "examples" / "coinflip_system"
STANDOFF = EXAMPLE / "scenarios" / "standoff.toml"


def _site(folder: Path, dist: str, groups: dict[str, dict[str, str]]) -> dict[str, str]:
    """An environment where the example's package and these entry points are installed, in ``folder`` only.

    The package is copied there, so that nothing a developer built in examples/ (an egg-info) is seen.
    """
    register_entry_points(folder, dist, groups)
    shutil.copytree(EXAMPLE / "src" / "fracas_coinflip", folder / "fracas_coinflip")
    return {**os.environ, "PYTHONPATH": str(folder)}


def _entry_points() -> dict[str, dict[str, str]]:
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups: dict[str, dict[str, str]] = project["entry-points"]
    return groups


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment in which `fracas` finds the example as if it were installed."""
    return _site(tmp_path_factory.mktemp("site"), "fracas-coinflip", _entry_points())


def fracas(env: dict[str, str], *args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fracas", *map(str, args)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_the_example_registers_a_system_and_policies_through_entry_points() -> None:
    groups = _entry_points()
    assert groups["fracas.systems"] == {"coinflip": "fracas_coinflip:SYSTEM"}
    assert "sniper" in groups["fracas.policies.coinflip"]
    assert "steady" in groups["fracas.policies.point_zero"]


def test_systems_lists_the_plugin_and_the_registered_policies(plugin_env: dict[str, str]) -> None:
    done = fracas(plugin_env, "systems", "--json")
    assert done.returncode == 0, done.stderr
    systems = json.loads(done.stdout)
    assert systems["coinflip"]["policies"] == ["aggressive", "nearest", "sniper"]
    assert systems["coinflip"]["rules"]["CF-SHOT-1"].startswith("a shot hits")
    assert systems["coinflip"]["defaults"] == {"hit_on": 4, "damage": 1}
    assert systems["point_zero"]["policies"][-1] == "steady"
    assert "steady" not in fracas(dict(os.environ), "systems", "--json").stdout  # only where installed


def test_run_replay_verify_audit_render_over_the_plugin(plugin_env: dict[str, str], tmp_path: Path) -> None:
    log = tmp_path / "standoff.jsonl"
    done = fracas(plugin_env, "run", STANDOFF, "--log", log)
    assert done.returncode == 0, done.stderr
    assert f"events logged to {log}" in done.stdout.splitlines()[-1]
    again = tmp_path / "again.jsonl"
    assert fracas(plugin_env, "run", STANDOFF, "--log", again, "--quiet").returncode == 0
    assert log.read_bytes() == again.read_bytes()  # same scenario + seed = same bytes

    entries = read_log(log).entries
    declared = [e.ev for e in entries if isinstance(e.ev, E.ActionDeclared)]
    assert {d.policy for d in declared} == {"sniper", "aggressive", "nearest"}
    ada_targets = [d.target for d in declared if d.actor == "ada" and d.target]
    assert ada_targets, "the sniper never shot"
    assert any(isinstance(e.ev, E.ActorDied) for e in entries)
    shots = [e for e in entries if isinstance(e.ev, E.SkillTested)]
    assert shots and all(e.ev.rule == "CF-SHOT-1" for e in shots)

    replayed = fracas(plugin_env, "replay", log, "--json")
    assert replayed.returncode == 0, replayed.stderr
    state = json.loads(replayed.stdout)["state"]
    assert set(state["actors"]) == {"ada", "bo", "cal", "dee", "eli"}

    verified = fracas(plugin_env, "verify", log)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "intact" in verified.stdout and "re-simulated with coinflip" in verified.stdout

    shot = shots[0]
    audit = fracas(plugin_env, "audit", log, str(shot.seq))
    assert audit.returncode == 0, audit.stderr
    assert f"Test (seq {shot.seq}) [CF-SHOT-1]" in audit.stdout
    odds = (7 - shot.ev.total) / 6  # P(1d6 >= total), computed here independently of the plugin
    assert f"{100 * odds:.2f}%" in audit.stdout, audit.stdout  # the plugin's outcome_odds, as audit shows them

    html = tmp_path / "standoff.html"
    rendered = fracas(plugin_env, "render", log, "-o", html)
    assert rendered.returncode == 0, rendered.stderr
    assert "Standoff at noon" in html.read_text(encoding="utf-8")


def test_batch_over_the_plugin_gives_the_same_results_for_any_worker_count(
    plugin_env: dict[str, str], tmp_path: Path
) -> None:
    docs = []
    for workers in ("1", "2"):
        done = fracas(plugin_env, "batch", STANDOFF, "-n", "40", "--seed", "3", "--workers", workers, "--json")
        assert done.returncode == 0, done.stderr
        doc = json.loads(done.stdout)
        docs.append(doc["result"])
    assert docs[0] == docs[1]
    assert docs[0]["fights"] == 40
    sides = docs[0]["sides"]
    assert sides["law"]["win"]["count"] + sides["gang"]["win"]["count"] + docs[0]["draws"]["count"] == 40


def test_a_policy_from_outside_fracas_plays_a_shipped_system(plugin_env: dict[str, str], tmp_path: Path) -> None:
    """`steady` (registered by the example for point_zero) plays the guard; verify re-simulates it."""
    text = (SCENARIOS / "point_zero" / "mira_vs_guard.toml").read_text(encoding="utf-8")
    guard = text.index('id = "guard"')
    text = text[:guard] + text[guard:].replace('policy = "aggressive"', 'policy = "steady"', 1)
    scenario = tmp_path / "steady.toml"
    scenario.write_text(text, encoding="utf-8")
    log = tmp_path / "steady.jsonl"
    done = fracas(plugin_env, "run", scenario, "--seed", "1", "--log", log, "--quiet")
    assert done.returncode == 0, done.stderr
    declared = [e.ev for e in read_log(log).entries if isinstance(e.ev, E.ActionDeclared) and e.ev.actor == "guard"]
    assert declared and {d.policy for d in declared} == {"steady"}
    assert not any("surpassing" in d.text for d in declared)
    verified = fracas(plugin_env, "verify", log)
    assert verified.returncode == 0, verified.stdout + verified.stderr

    # Without the plugin the same scenario is bad input: one line naming the policy and the known ones.
    bare = fracas(dict(os.environ), "run", scenario, "--log", tmp_path / "x.jsonl")
    assert bare.returncode == 2
    assert bare.stderr.count("\n") == 1 and "$.actors[1].policy: unknown policy 'steady'" in bare.stderr


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("fracas_coinflip.policies:missing", "cannot load it"),
        ("fracas_coinflip:RULE_IDS", "expected a callable"),
    ],
)
def test_a_broken_policy_plugin_is_one_line_of_bad_input(tmp_path: Path, target: str, message: str) -> None:
    env = _site(
        tmp_path / "site",
        "broken-policies",
        {"fracas.systems": {"coinflip": "fracas_coinflip:SYSTEM"}, "fracas.policies.coinflip": {"sniper": target}},
    )
    done = fracas(env, "run", STANDOFF, "--log", tmp_path / "x.jsonl", "--quiet")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"policy 'sniper' of coinflip (fracas.policies.coinflip: {target}): {message}" in done.stderr


def test_a_policy_plugin_cannot_replace_a_built_in_policy(tmp_path: Path) -> None:
    env = _site(
        tmp_path / "site", "clash", {"fracas.policies.point_zero": {"aggressive": "fracas_coinflip.policies:steady"}}
    )
    done = fracas(env, "run", SCENARIOS / "point_zero" / "duel.toml", "--log", tmp_path / "x.jsonl", "--quiet")
    assert done.returncode == 2
    assert "'aggressive' is a built-in policy of point_zero; choose another name" in done.stderr


def test_bad_input_in_a_plugin_scenario_names_the_path(plugin_env: dict[str, str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(STANDOFF.read_text(encoding="utf-8").replace("hp = 4", "hp = 0"), encoding="utf-8")
    done = fracas(plugin_env, "validate", bad)
    assert done.returncode == 2
    assert f"{bad}:" in done.stderr and "$.actors[0].hp: expected at least 1, got 0" in done.stderr


def test_the_example_needs_no_type_ignore() -> None:
    """CI type-checks the example with mypy --strict (.ci/run); it must pass without silencing anything."""
    sources = sorted((EXAMPLE / "src").rglob("*.py"))
    assert sources
    assert [p.name for p in sources if "type: ignore" in p.read_text(encoding="utf-8")] == []


def test_a_log_of_a_system_not_installed_here_is_unverified_not_failed(
    plugin_env: dict[str, str], tmp_path: Path
) -> None:
    """A stranger without the plugin cannot re-simulate its rules: that is not evidence of tampering.

    verify checks what it can (structure, chain, dice, state), names the missing system and how to get
    it, and exits 2 (cannot do the job asked), never 1 (the log is proven wrong); render says so too.
    """
    log = tmp_path / "standoff.jsonl"
    assert fracas(plugin_env, "run", STANDOFF, "--log", log, "--quiet").returncode == 0
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # fracas without the plugin

    verified = fracas(bare, "verify", log)
    assert verified.returncode == 2, verified.stdout + verified.stderr
    out = verified.stdout
    assert "PROBLEM" not in out and "FAILED" not in out, out
    assert "UNVERIFIED" in out and "'coinflip'" in out and "install" in out, out
    for step in ("structure", "chain", "dice", "state"):
        assert re.search(rf"^  {step} +ok", out, re.M), out
    for step in ("header", "rules"):
        assert re.search(rf"^  {step} +skipped", out, re.M), out
    assert json.loads(fracas(bare, "verify", log, "--json").stdout)["unverified"].startswith("the rule system")

    tampered = tmp_path / "tampered.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = lines[5].replace('"seq":5', '"seq":6', 1)
    tampered.write_text("".join(lines), encoding="utf-8")
    assert fracas(bare, "verify", tampered).returncode == 1  # what can be checked still convicts

    html = tmp_path / "standoff.html"
    rendered = fracas(bare, "render", log, "-o", html)
    assert rendered.returncode == 0, rendered.stderr
    assert "log unverified" in rendered.stdout, rendered.stdout
    assert '"status":"unverified"' in html.read_text(encoding="utf-8").replace(" ", "")
