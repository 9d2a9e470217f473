"""Compare two logs event by event and describe the first difference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from fracas.services.run import run_scenario

_decoder = msgspec.json.Decoder()


def first_difference(expected: bytes, actual: bytes) -> str | None:
    """None when equal; else a readable account of the first differing line."""
    if expected == actual:
        return None
    exp_lines = expected.splitlines()
    act_lines = actual.splitlines()
    for i, (e, a) in enumerate(zip(exp_lines, act_lines, strict=False), start=1):
        if e != a:
            return f"line {i}: " + _describe(_decoder.decode(e), _decoder.decode(a))
    n = min(len(exp_lines), len(act_lines))
    if len(exp_lines) > n:
        return f"line {n + 1}: expected more events, the run ended; next expected: {exp_lines[n][:200].decode()}"
    return f"line {n + 1}: the run has extra events; first extra: {act_lines[n][:200].decode()}"


def _describe(expected: Any, actual: Any) -> str:
    ev_e, ev_a = expected.get("ev", {}), actual.get("ev", {})
    where = f"seq {expected.get('seq')} ({ev_e.get('type')})"
    if ev_e.get("type") != ev_a.get("type"):
        return f"{where}: expected a {ev_e.get('type')} event, got {ev_a.get('type')}"
    for key in list(ev_e) + [k for k in ev_a if k not in ev_e]:
        if ev_e.get(key) != ev_a.get(key):
            return f"{where}: field {key!r}: expected {ev_e.get(key)!r}, got {ev_a.get(key)!r}"
    for key in ("seq", "round", "count", "sec"):
        if expected.get(key) != actual.get(key):
            return f"{where}: {key}: expected {expected.get(key)!r}, got {actual.get(key)!r}"
    return f"{where}: hash chain differs (an earlier line changed)"


def expected_log_path(scenario: Path) -> Path:
    return scenario.with_suffix(".expected.jsonl")


def run_to_bytes(scenario: Path, out: Path) -> bytes:
    """Run a scenario with its own seed into ``out`` and return the log bytes."""
    run_scenario(scenario, log_path=out)
    return out.read_bytes()
