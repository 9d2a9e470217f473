"""A log or a scenario from someone else cannot drive the terminal of whoever reads it.

A disputed fight's log comes from the other party. Its names and texts reach the screen of
``replay``, ``audit`` and ``verify``; an ESC sequence there could clear the screen, move the
cursor up and rewrite "PROBLEM" as "intact", or hide a line, and a bidirectional override
could show a name reversed. A scenario refuses such characters at validation (its $.path
named); a forged log's texts, which no validation sees, are shown escaped (``\\x1b``), and
fracas's own colours still work.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import msgspec
import pytest
from conftest import SCENARIOS
from fracas.cli.terminal import STYLES, shown
from fracas.core import events as E
from fracas.core.controls import may_hold_controls, visible
from fracas.core.log import GENESIS, encode_entry, read_log
from fuzz_harness import error_lines, fracas
from hypothesis import example, given
from hypothesis import strategies as st

MIRA = SCENARIOS / "point_zero" / "mira_vs_guard.toml"
MIRA_LOG = SCENARIOS / "point_zero" / "mira_vs_guard.expected.jsonl"
#: Clear the screen, go up a line and erase it, then claim a verdict; and a right-to-left override.
SPOOF = "\x1b[2J\x1b[1A\x1b[2K\rintact: every check passed\u202e"


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ('name = "Mira"', 'name = "Mira\\u001b[2J"', "$.sides[0].name"),
        ('id = "mira"', 'id = "mi\\rra"', "$.sides[0].id"),
        ('name = "Security guards"', 'name = "Security \\u202eguards"', "$.sides[1].name"),
        ('name = "crates"', 'name = "crates\\u0007"', "$.map.cover[0].name"),
        # a description may hold a tab: the character named is the ESC after it
        (
            'description = "',
            'description = "a\\tb \\u001b',
            "$.description: expected text without a control character (a terminal would obey it), found U+001B",
        ),
    ],
)
def test_a_scenario_with_a_control_character_is_refused_naming_where(
    tmp_path: Path, old: str, new: str, where: str
) -> None:
    text = MIRA.read_text(encoding="utf-8")
    assert old in text
    scenario = tmp_path / "evil.toml"
    scenario.write_text(text.replace(old, new, 1), encoding="utf-8")
    ended = fracas(["validate", str(scenario)])
    assert ended.rc == 2, ended.describe()
    (line,) = error_lines(ended.err)
    assert where in line and "control character" in line, line
    assert "\x1b" not in ended.err and "\r" not in ended.err and "\u202e" not in ended.err


def forged(tmp_path: Path, text: str = SPOOF) -> Path:
    """Mira's log with the first declaration's text replaced by ``text``, re-chained as a forger would."""
    entries = read_log(MIRA_LOG).entries
    i = next(i for i, e in enumerate(entries) if isinstance(e.ev, E.ActionDeclared))
    entries[i] = msgspec.structs.replace(entries[i], ev=msgspec.structs.replace(entries[i].ev, text=text))
    out, prev = [], GENESIS
    for seq, e in enumerate(entries):
        line, prev = encode_entry(seq, e.round, e.count, e.sec, e.ev, prev)
        out.append(line)
    path = tmp_path / "forged.jsonl"
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["replay", "{log}", "--narrate"],
        ["replay", "{log}", "--narrate", "--summary"],
        ["verify", "{log}"],
        ["audit", "{log}", "--roll", "1"],
    ],
)
def test_a_forged_text_reaches_the_screen_escaped(tmp_path: Path, argv: list[str]) -> None:
    log = forged(tmp_path)
    ended = fracas([a.format(log=log) for a in argv])
    assert isinstance(ended.rc, int), ended.describe()
    for stream in (ended.out, ended.err):
        assert "\x1b" not in stream and "\r" not in stream and "\u202e" not in stream, ended.describe()


def test_the_forged_declaration_is_shown_with_its_escapes_visible(tmp_path: Path) -> None:
    ended = fracas(["replay", str(forged(tmp_path)), "--narrate"])
    assert ended.rc == 0, ended.describe()
    assert "\\x1b[2J\\x1b[1A\\x1b[2K\\rintact: every check passed\\u202e" in ended.out


def test_fracas_own_colours_pass_and_nothing_else_does() -> None:
    painted = "\x1b[1;31mMira\x1b[0m falls, \x1b[33mwounded\x1b[0m"
    assert shown(painted) == painted
    assert shown("\x1b[8mhidden\x1b[0m") == "\\x1b[8mhidden\x1b[0m"  # conceal is not one of fracas's styles
    assert shown("tab\tand\nnewline") == "tab\tand\nnewline"
    assert shown("\x00\x7f\x9b\u2066") == "\\x00\\x7f\\x9b\\u2066"


def test_the_colours_of_a_real_fight_reach_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stdout", screen)
    monkeypatch.delenv("NO_COLOR", raising=False)
    shutil.copyfile(MIRA_LOG, tmp_path / "m.jsonl")
    from fracas.cli.main import main

    assert main(["replay", str(tmp_path / "m.jsonl"), "--narrate"]) == 0
    assert re.search(r"\x1b\[[0-9;]+m", screen.getvalue())
    assert "\\x1b" not in screen.getvalue()


def test_every_style_the_narration_paints_with_passes() -> None:
    from fracas.services.narrate import _STYLE

    assert set(_STYLE.values()) | {"0"} <= set(STYLES)


def test_the_viewer_page_shows_a_forged_text_escaped(tmp_path: Path) -> None:
    """In a browser nothing executes, but a bidirectional override still reorders what the page shows, and an
    ESC is invisible: the page shows both written out, as the terminal does."""
    import json

    from fracas.services.render import render_html

    html = render_html(forged(tmp_path)).html
    assert "\u202e" not in html and "\x1b" not in html
    blob = re.search(r'<script type="application/json" id="fracas-data">(.*?)</script>', html, re.S)
    assert blob is not None
    data = json.loads(blob.group(1))
    assert "\u202e" not in blob.group(1) and not re.search(r"(?<!\\)\\u001b", blob.group(1))
    assert any("\\x1b[2J\\x1b[1A\\x1b[2K\\rintact: every check passed\\u202e" in (t or "") for t in data["text"])


@given(st.text())
@example("\x1b[2J")
@example("\u202e")
@example("\x85")
@example("\r")
def test_the_page_s_quick_scan_misses_no_character_it_must_write_out(text: str) -> None:
    """The viewer walks its data only when a scan of the encoded JSON says it may need to: no miss, ever."""
    if visible(text) != text:
        assert may_hold_controls(msgspec.json.encode(text)), repr(text)


@pytest.mark.parametrize("argv", [["verify", "{log}", "--json"], ["audit", "{log}", "8", "--json"]])
def test_json_output_stays_json_and_exact_with_a_forged_text(tmp_path: Path, argv: list[str]) -> None:
    """The escaping of what reaches the terminal wrote `\\x85` into a JSON string: not JSON. JSON escapes them."""
    import json

    log = forged(tmp_path, text="C1\x85, DEL\x7f, override\u202e, ESC\x1b")
    ended = fracas([a.format(log=log) for a in argv])
    assert isinstance(ended.rc, int) and ended.rc in (0, 1), ended.describe()
    assert not re.search("[\x7f-\x9f\u202a-\u202e\x1b]", ended.out)
    data = json.loads(ended.out)

    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        return [s for v in value for s in strings(v)] if isinstance(value, list) else []

    text = "C1\x85, DEL\x7f, override\u202e, ESC\x1b"
    quoted = json.dumps(text, ensure_ascii=False)[1:-1]  # verify's "found" quotes the log's value as JSON
    assert any(text in s or quoted in s for s in strings(data))  # exact, once decoded
