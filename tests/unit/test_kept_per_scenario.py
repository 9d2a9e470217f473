"""What a loaded scenario keeps for all its fights (``LoadedScenario.kept``, ``raw_sha256``) against the plain
computation at every fight (logs unchanged).

``Encounter`` takes the scenario's effective rules, their header form and hash, and the embedded scenario's hash,
worked out at the scenario's first fight (``fracas.core.encounter.kept_rules``). A fight's log must be byte for
byte the log of the plain code, which works them all out again for each header: on the first fight and the next
ones, with a scenario loaded afresh, with rules given apart (a re-simulation's), with a header that names only
some rules fields (``recorded_rule_keys``), for every system. Verify re-runs such logs too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from fracas.core import encounter as encounter_module
from fracas.core import events as E
from fracas.core.bundled import resolve_scenario
from fracas.core.encounter import Encounter, KeptRules
from fracas.core.scenario import LoadedScenario, content_sha256, load_scenario
from fracas.core.system import effective_rules, get_system, header_rules
from fracas.services.run import run_scenario
from fracas.services.verify import verify_log

#: every system; firefight has a [rules] table of its own
SCENARIOS = ["point_zero/duel", "zcorps/duel", "d100/duel", "point_zero/warehouse", "zcorps/firefight"]
#: Encounter.header as it is (the tests below stand another in its place)
kept_header = Encounter.header


def plain_kept_rules(system: Any, scenario: LoadedScenario) -> KeptRules:
    """Nothing kept: the rules worked out again for each fight, as before there was a cache."""
    rules = effective_rules(system, scenario.spec.rules)
    header = header_rules(rules)
    return KeptRules(rules, header, content_sha256(header))


def plain_header(enc: Encounter) -> E.EncounterStarted:
    """The header as the plain code builds it: every hash worked out from the header's own fields."""
    head = kept_header(enc)
    assert head.rules == header_rules(enc.rules, enc.recorded_rule_keys)
    assert head.scenario_sha256 == content_sha256(enc.loaded.raw)
    dice = msgspec.structs.replace(head.dice, commitment=encounter_module.header_commitment(head, enc.seed))
    return msgspec.structs.replace(head, dice=dice)


def fight_bytes(scenario: LoadedScenario, seed: str, log: Path, **kw: Any) -> bytes:
    run_scenario(scenario, seed=seed, log_path=log, **kw)
    return log.read_bytes()


@pytest.mark.parametrize("name", SCENARIOS)
def test_fights_log_as_with_nothing_kept(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = resolve_scenario(name)
    kept = load_scenario(path)
    logs = [fight_bytes(kept, seed, tmp_path / f"kept-{seed}.jsonl") for seed in ("1", "2", "1")]
    assert logs[0] == logs[2]  # the second fight of seed 1 took what the first kept
    with monkeypatch.context() as m:
        m.setattr(encounter_module, "kept_rules", plain_kept_rules)
        m.setattr(Encounter, "header", plain_header)
        plain = [fight_bytes(load_scenario(path), seed, tmp_path / f"plain-{seed}.jsonl") for seed in ("1", "2", "1")]
    assert logs == plain
    for seed in ("1", "2"):
        assert verify_log(tmp_path / f"kept-{seed}.jsonl").ok


def test_rules_given_apart_are_the_ones_recorded(tmp_path: Path) -> None:
    """A fight given its own rules (a re-simulation's) records those, not the scenario's kept ones."""
    loaded = load_scenario(resolve_scenario("point_zero/duel"))
    system = get_system(loaded.spec.system)
    Encounter(system, loaded, seed="1").run()  # the scenario's own rules kept
    other = msgspec.structs.replace(effective_rules(system, loaded.spec.rules), edition=1)
    enc = Encounter(system, loaded, seed="1", rules=other)
    head = enc.header()
    assert head.rules == header_rules(other) != loaded.kept[(KeptRules, system.rules_type)].header
    assert head.dice.commitment == encounter_module.header_commitment(head, "1")
    enc = Encounter(system, loaded, seed="1")
    enc.rules = other  # rules set after the encounter was made: recorded as they are
    head = enc.header()
    assert head.rules == header_rules(other)
    assert head.dice.commitment == encounter_module.header_commitment(head, "1")
    enc = Encounter(system, loaded, seed="1")
    enc.recorded_rule_keys = frozenset({"edition"})  # a header from before the other fields
    head = enc.header()
    assert head.rules == header_rules(enc.rules, enc.recorded_rule_keys)
    assert head.dice.commitment == encounter_module.header_commitment(head, "1")


def test_the_cache_is_no_field() -> None:
    """Kept things stay out of the struct's fields: not encoded, not pickled, not compared."""
    import pickle

    loaded = load_scenario(resolve_scenario("point_zero/duel"))
    fresh = load_scenario(resolve_scenario("point_zero/duel"))
    Encounter(get_system(loaded.spec.system), loaded, seed="1").header()
    assert loaded.kept and loaded == fresh
    assert msgspec.json.encode(loaded) == msgspec.json.encode(fresh)
    assert "kept" not in pickle.loads(pickle.dumps(loaded)).__dict__
