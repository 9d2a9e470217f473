"""Hypothesis over mutations of every shipped scenario and expected log (issue 15).

Each mutated scenario must validate (exit 0) or be refused in one located line
(exit 2); one that validates must then run to its end. Each damaged log must be
reported (exit 1, or 2 for something that is not a fracas log) by every command
that reads logs, never crash. Every command is bounded (fuzz_harness.CASE_SECONDS).
The default suite tries a few dozen examples of each; ``-m slow`` soaks thousands.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import tomli_w
from conftest import all_scenarios
from fuzz_harness import LOCATED, error_lines, fracas
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SCENARIOS = all_scenarios()
LOGS = sorted(p.with_suffix("").with_suffix(".expected.jsonl") for p in SCENARIOS)

#: Values an attacker or a careless user puts in a field.
NASTY_INTS = [-(2**63), -1099511627776, -100, -1, 0, 1, 3, 99, 1000, 100_000_000, 1099511627776, 2**63 - 1]
NASTY_STRS = [
    "",
    " ",
    "1 day",
    "-1h",
    "99999999999w",
    "999999d6",
    "100000000D",
    "0d0",
    "1d0",
    "VIG+VIG+VIG",
    "/../../../victim",
    "é" * 300,
    "dim",
    "none",
    "NaN",
    "3D+99999999999",
    "1d99999999999999999999",
]

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SOAK = settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value in a parsed TOML tree (dict keys and list indices)."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


@st.composite
def mutated_scenario(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    source = draw(st.sampled_from(SCENARIOS))
    tree = tomllib.loads(source.read_text(encoding="utf-8"))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(tree)
        path = draw(st.sampled_from(paths))
        parent, key = _get(tree, path[:-1]), path[-1]
        old = parent[key]
        how = draw(st.sampled_from(["int", "str", "typo", "delete", "retype", "grow", "nest"]))
        if how == "int":
            parent[key] = draw(st.sampled_from(NASTY_INTS) | st.integers())
        elif how == "str":
            parent[key] = draw(st.sampled_from(NASTY_STRS) | st.text(max_size=12))
        elif how == "typo" and isinstance(old, str) and old:
            i = draw(st.integers(0, len(old) - 1))
            parent[key] = old[:i] + old[i + 1 :] if draw(st.booleans()) else old[:i] + old[i] + old[i:]
        elif how == "typo" and isinstance(parent, dict):  # a misspelt key
            parent[key[:-1] or "x"] = parent.pop(key)
        elif how == "delete":
            del parent[key]
        elif how == "retype":
            parent[key] = draw(st.sampled_from([[], {}, True, 1.5, "x", [1, 2, 3]]))
        elif how == "grow" and isinstance(old, list) and old:
            parent[key] = old * draw(st.integers(2, 40))
        elif how == "nest":
            deep: Any = 1
            for _ in range(draw(st.integers(1, 200))):
                deep = [deep]
            parent[key] = deep
    return source.name, tree


def _write_scenario(tmp: Path, tree: dict[str, Any]) -> Path | None:
    try:
        text = tomli_w.dumps(tree)
    except (TypeError, ValueError, RecursionError):  # tomli_w cannot write every tree
        return None
    path = tmp / "mutant.toml"
    path.write_text(text, encoding="utf-8")
    return path


def check_scenario(tmp: Path, tree: dict[str, Any]) -> None:
    path = _write_scenario(tmp, tree)
    if path is None:
        return
    validated = fracas(["validate", str(path)])
    assert not validated.crashed, validated.describe()
    assert validated.rc in (0, 2), validated.describe()
    if validated.rc == 2:
        lines = error_lines(validated.err)
        assert len(lines) == 1, validated.describe()
        assert LOCATED.match(lines[0]), f"refusal without a line: {lines[0]}"
        return
    log = tmp / "mutant.jsonl"
    log.unlink(missing_ok=True)
    ran = fracas(["run", str(path), "--quiet", "--log", str(log)])
    assert not ran.crashed, ran.describe()
    assert ran.rc == 0 or (ran.rc == 2 and len(error_lines(ran.err)) == 1), ran.describe()


# ---------------------------------------------------------------- logs


class DamagedLog(NamedTuple):
    """A shipped log with one to three damages; its repr names them, not the whole (100 kB) log."""

    source: str
    ops: list[str]
    data: bytes

    def __repr__(self) -> str:
        return f"DamagedLog({self.source!r}, {self.ops!r}, {len(self.data)} bytes)"


@st.composite
def damaged_log(draw: st.DrawFn) -> DamagedLog:
    source = draw(st.sampled_from(LOGS))
    lines = source.read_bytes().splitlines(keepends=True)
    ops: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["delete", "duplicate", "swap", "truncate", "flip", "field", "garbage"]))
        i = draw(st.integers(0, len(lines) - 1))
        ops.append(f"{how} line {i + 1}")
        if how == "delete" and len(lines) > 1:
            del lines[i]
        elif how == "duplicate":
            lines.insert(i, lines[i])
        elif how == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == "truncate":
            lines = lines[: i + 1]
            lines[-1] = lines[-1][: draw(st.integers(0, len(lines[-1])))]
        elif how == "flip" and lines[i]:
            at = draw(st.integers(0, len(lines[i]) - 1))
            line = bytearray(lines[i])
            line[at] = draw(st.integers(0, 255))
            lines[i] = bytes(line)
        elif how == "field":
            lines[i] = _mutate_field(draw, lines[i])
        elif how == "garbage":
            lines.insert(i, draw(st.binary(max_size=40)) + b"\n")
    return DamagedLog(source.name, ops, b"".join(lines))


def _mutate_field(draw: st.DrawFn, line: bytes) -> bytes:
    try:
        entry = json.loads(line)
    except ValueError:
        return line
    paths = _paths(entry)
    if not paths:
        return line
    path = draw(st.sampled_from(paths))
    parent = _get(entry, path[:-1])
    value = draw(st.sampled_from([None, -1, 0, 10**12, "x", [], {}, {"zz": 1}, True]))
    parent[path[-1]] = value
    if isinstance(parent, dict) and draw(st.booleans()):
        parent["unknown_key"] = 1
    return json.dumps(entry).encode() + b"\n"


def check_log(tmp: Path, data: bytes) -> None:
    log = tmp / "damaged.jsonl"
    log.write_bytes(data)
    for argv in (
        ["replay", str(log)],
        ["replay", str(log), "--at", "5"],
        ["verify", str(log)],
        ["audit", str(log), "--roll", "1"],
        ["render", str(log), "-o", str(tmp / "page.html"), "--force"],
        ["replay", str(log), "--fork-at", "5", "--seed", "2", "--log", str(tmp / "fork.jsonl"), "--force"],
    ):
        ended = fracas(argv)
        assert not ended.crashed, ended.describe()
        if ended.rc == 2 or (ended.rc == 1 and argv[0] != "verify"):
            lines = error_lines(ended.err)
            assert len(lines) == 1, ended.describe()


@FUZZ
@given(case=mutated_scenario())
def test_a_mutated_scenario_validates_or_is_refused_and_a_valid_one_runs(
    case: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    check_scenario(tmp_path, case[1])


@FUZZ
@given(case=damaged_log())
def test_a_damaged_log_is_reported_by_every_reader_never_crashed_on(case: DamagedLog, tmp_path: Path) -> None:
    check_log(tmp_path, case.data)


@pytest.mark.slow
@SOAK
@given(case=mutated_scenario())
def test_soak_mutated_scenarios(case: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    check_scenario(tmp_path, case[1])


@pytest.mark.slow
@SOAK
@given(case=damaged_log())
def test_soak_damaged_logs(case: DamagedLog, tmp_path: Path) -> None:
    check_log(tmp_path, case.data)
