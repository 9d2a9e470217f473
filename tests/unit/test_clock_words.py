"""The clock in the narration and the audit says where an event is: the round, its start, its count, its end, the
aftermath. A round's last metres (initiative count 0) were labelled "after", the aftermath's label, a round before
the fight ended; the audit gave the round's start as "initiative count 300" and named a side by its id."""

from __future__ import annotations

from pathlib import Path

from fracas.cli.narration import narration_lines
from fracas.core import events as E
from fracas.core.log import read_log
from fracas.services.audit import audit_log

ROOT = Path(__file__).resolve().parents[2]
MIRA_LOG = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.expected.jsonl"


def test_after_labels_the_aftermath_only() -> None:
    entries = read_log(MIRA_LOG).entries
    aftermath = next(e.seq for e in entries if isinstance(e.ev, E.AftermathStarted))
    lines = narration_lines(MIRA_LOG)
    labelled = [(line.split()[0], line) for line in lines if line.split() and line.split()[0].isdecimal()]
    afters = [int(seq) for seq, line in labelled if line.split()[1] == "after"]
    assert afters and min(afters) == aftermath, [line for _, line in labelled if "after" in line][:3]
    # round 2's last metres, at its count 0: the round's end
    ends = [line for _, line in labelled if line.split()[1] == "R2" and line.split()[2] == "end"]
    assert any("Mira moves to (9, 8), 18 m this round" in line for line in ends), ends


def test_the_audit_says_when_in_words_and_names_the_side() -> None:
    lines = audit_log(MIRA_LOG, seq=3).lines
    assert lines[0] == "Mira vs the guard (point_zero), round 1, before anyone acts, 0 s into the fight"
    assert lines[1] == "seq 3: The guard enters at (20, 8) [side: Security guards, aggressive AI]"
    assert audit_log(MIRA_LOG, seq=102).lines[0].startswith("Mira vs the guard (point_zero), round 2, as it ends, ")
    assert ", in the aftermath, " in audit_log(MIRA_LOG, seq=145).lines[0]
    assert ", round 1, initiative count 9, " in audit_log(MIRA_LOG, roll=3).lines[0]


def test_what_followed_is_told_as_the_narration_tells_it(tmp_path: Path) -> None:
    """Each consequence line of an audit is the narration's line for that seq, roll numbers included: a Z-Corps
    pool waiting for its Joker was listed as "seq 512: None" and its roll numbered from 1."""
    from fracas.services.run import run_scenario

    log = tmp_path / "b.jsonl"
    run_scenario(ROOT / "scenarios" / "zcorps" / "barricade.toml", seed="3", log_path=log)
    told: dict[int, str] = {}
    for line in narration_lines(log):
        parts = line.split(maxsplit=1)
        if parts and parts[0].isdecimal():
            told[int(parts[0])] = parts[1]
    entries = read_log(log).entries
    tests = [e.seq for e in entries if isinstance(e.ev, E.SkillTested) and e.ev.target is not None]
    checked = 0
    for seq in tests[:12]:
        for line in audit_log(log, seq=seq).lines:
            if line.startswith("  seq "):
                number, said = line[len("  seq ") :].split(": ", 1)
                assert said != "None" and told[int(number)].endswith(said), (seq, line, told.get(int(number)))
                checked += 1
    assert checked > 20
