"""Policies registered from another package (group ``fracas.policies.<system>``) play every shipped system.

The policies live in a module written by the test in a temporary folder, registered by a
temporary ``dist-info`` (tests/conftest.py ``register_entry_points``): the public plugin
route, with no install. Each fight is then verified by re-simulation, which needs the
same policy again.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SCENARIOS, register_entry_points
from fracas.core import events as E
from fracas.core.errors import FracasError
from fracas.core.log import read_log
from fracas.core.scenario import load_scenario
from fracas.core.system import get_system
from fracas.plugin import forget_plugins
from fracas.services.run import run_scenario
from fracas.services.verify import verify_log

POLICIES = '''
from fracas.plugin import Encounter
from fracas.systems.d100 import policies as d100
from fracas.systems.d100.resolution import can_dodge
from fracas.systems.zcorps import policies as zcorps


def zc_careful(enc: Encounter, actor: str) -> zcorps.Plan:
    """The built-in cautious Z-Corps plan, under another name."""
    return zcorps.cautious(enc, actor)


class DodgingShooter:
    """d100: shoot the first able foe in lethal mode with the first weapon, reload when empty; dodge when possible."""

    calls: list[str] = []

    def __call__(self, enc: Encounter, actor: str) -> d100.Plan:
        me = enc.state.actors[actor]
        weapon = next(iter(me.weapons))
        if me.ammo.get(weapon, 0) == 0:
            return d100.Plan(kind="reload", weapon=weapon) if me.spare.get(weapon, 0) else d100.Plan(kind="nothing")
        foes = d100.enemies(enc, actor)
        if not foes:
            return d100.Plan(kind="nothing")
        return d100.Plan(kind="shoot", target=foes[0].id, weapon=weapon, mode="lethal")

    def reaction(self, enc: Encounter, defender: str, attacker: str) -> str:
        self.calls.append(defender)
        return "dodge" if can_dodge(enc, defender) else "none"


dodging_shooter = DodgingShooter()


def parry_always(enc: Encounter, actor: str) -> d100.Plan:
    return dodging_shooter(enc, actor)


def _parry(enc: Encounter, defender: str, attacker: str) -> str:
    return "parry"


parry_always.reaction = _parry  # type: ignore[attr-defined]
'''


@pytest.fixture
def policy_plugin(tmp_path: Path) -> Iterator[None]:
    (tmp_path / "my_policies.py").write_text(textwrap.dedent(POLICIES), encoding="utf-8")
    register_entry_points(
        tmp_path,
        "my-policies",
        {
            "fracas.policies.zcorps": {"careful": "my_policies:zc_careful"},
            "fracas.policies.d100": {"dodger": "my_policies:dodging_shooter", "parrier": "my_policies:parry_always"},
        },
    )
    sys.path.insert(0, str(tmp_path))
    forget_plugins()
    try:
        yield
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("my_policies", None)
        forget_plugins()


def _with_policy(source: Path, tmp_path: Path, old: str, new: str, name: str) -> Path:
    text = source.read_text(encoding="utf-8")
    assert f'policy = "{old}"' in text
    out = tmp_path / name
    out.write_text(text.replace(f'policy = "{old}"', f'policy = "{new}"'), encoding="utf-8")
    return out


def test_registered_policies_are_listed_after_the_built_in_ones(policy_plugin: None) -> None:
    assert get_system("zcorps").policies[-1] == "careful"
    assert get_system("d100").policies[-2:] == ("dodger", "parrier")
    assert "aggressive" in get_system("d100").policies


def test_a_registered_zcorps_policy_plays_and_verifies_like_the_built_in_it_wraps(
    policy_plugin: None, tmp_path: Path
) -> None:
    plugin = _with_policy(SCENARIOS / "zcorps" / "duel.toml", tmp_path, "aggressive", "careful", "careful.toml")
    builtin = _with_policy(SCENARIOS / "zcorps" / "duel.toml", tmp_path, "aggressive", "cautious", "cautious.toml")
    # rules edition 5: from edition 6 the built-in survivors weigh their active defences (ZC-DEF-1), while a policy
    # from another package keeps the system's default rule (docs/plugins.md), so the two fights part at a defence
    for path in (plugin, builtin):
        path.write_text(path.read_text(encoding="utf-8") + "\n[rules]\nedition = 5\n", encoding="utf-8")
    run_scenario(plugin, seed="5", log_path=tmp_path / "p.jsonl")
    run_scenario(builtin, seed="5", log_path=tmp_path / "b.jsonl")
    plugin_decl = [e.ev for e in read_log(tmp_path / "p.jsonl").entries if isinstance(e.ev, E.ActionDeclared)]
    builtin_decl = [e.ev for e in read_log(tmp_path / "b.jsonl").entries if isinstance(e.ev, E.ActionDeclared)]
    assert {d.policy for d in plugin_decl} == {"careful"}
    assert [d.text for d in plugin_decl] == [d.text for d in builtin_decl]  # the same plan, another name
    assert verify_log(tmp_path / "p.jsonl").exit_code == 0


def test_a_registered_d100_policy_decides_turns_reloads_and_reactions(policy_plugin: None, tmp_path: Path) -> None:
    text = (SCENARIOS / "d100" / "duel.toml").read_text(encoding="utf-8")
    scenario = tmp_path / "dodger.toml"
    scenario.write_text(text.replace('policy = "security"', 'policy = "dodger"'), encoding="utf-8")
    import my_policies  # type: ignore[import-not-found]

    my_policies.DodgingShooter.calls.clear()
    run_scenario(scenario, seed="2", log_path=tmp_path / "d.jsonl")
    entries = read_log(tmp_path / "d.jsonl").entries
    dodger = load_scenario(scenario).spec.actors[0].id
    declared = [e.ev for e in entries if isinstance(e.ev, E.ActionDeclared) and e.ev.actor == dodger]
    turns = [d for d in declared if d.rule == "D100-TURN-1"]
    assert turns and {d.policy for d in turns} == {"dodger"}
    assert all("lethal mode" in d.text for d in turns if d.action == "shoot")
    assert dodger in my_policies.DodgingShooter.calls, "the plugin's reaction was never asked"
    assert any(d.action == "dodge" and d.rule == "D100-REACT-1" for d in declared)
    assert verify_log(tmp_path / "d.jsonl").exit_code == 0


def test_an_impossible_reaction_of_a_registered_policy_is_bad_input(policy_plugin: None, tmp_path: Path) -> None:
    """The duel's security officer has no parry object... unless the scenario gives one: check it does not."""
    text = (SCENARIOS / "d100" / "duel.toml").read_text(encoding="utf-8")
    scenario = tmp_path / "parrier.toml"
    scenario.write_text(text.replace('policy = "raider"', 'policy = "parrier"'), encoding="utf-8")
    loaded = load_scenario(scenario)
    parrier = next(a for a in loaded.spec.actors if a.policy == "parrier")
    assert parrier.parry_object is None
    with pytest.raises(FracasError, match=r"policy 'parrier': .* cannot react with 'parry' .*\(D100-REACT-1\)"):
        run_scenario(scenario, seed="2", log_path=tmp_path / "x.jsonl")
