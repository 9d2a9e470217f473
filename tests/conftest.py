"""Shared fixtures: paths to the repository's scenarios and a scratch directory."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


@pytest.fixture
def root() -> Path:
    return ROOT
