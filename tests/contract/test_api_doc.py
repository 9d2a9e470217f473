"""docs/api.md documents exactly the public API: every name of ``fracas.__all__`` and ``fracas.plugin.__all__``.

The check lives in tools/api_doc.py (``python tools/api_doc.py --check``); here it runs on the
real document and on documents broken on purpose, so that it is known to catch drift.
"""

from __future__ import annotations

import importlib
import sys

import fracas
import fracas.plugin
from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
api_doc = importlib.import_module("api_doc")


def test_docs_api_md_matches_the_public_modules() -> None:
    assert api_doc.drift(api_doc.API_DOC.read_text(encoding="utf-8")) == []


def test_every_public_name_resolves() -> None:
    for module in (fracas, fracas.plugin):
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module.__name__}.{name}"
    assert sorted(fracas.__all__) == sorted(set(fracas.__all__))
    assert sorted(fracas.plugin.__all__) == sorted(set(fracas.plugin.__all__))


def test_a_name_missing_from_the_doc_is_caught() -> None:
    text = api_doc.API_DOC.read_text(encoding="utf-8")
    broken = text.replace("### `replay_log`", "### `replay_the_log`", 1)
    assert api_doc.drift(broken) == [
        "fracas.replay_log: exported but not in docs/api.md",
        "fracas.replay_the_log: in docs/api.md but not exported",
    ]


def test_a_wrong_signature_is_caught() -> None:
    text = api_doc.API_DOC.read_text(encoding="utf-8")
    broken = text.replace("`parse_duration(text: str) -> int`", "`parse_duration(text: str) -> float`", 1)
    assert broken != text
    assert api_doc.drift(broken) == [
        "fracas.plugin.parse_duration: docs/api.md should show `parse_duration(text: str) -> int`"
        " (python tools/api_doc.py --update)"
    ]
    assert api_doc.drift(api_doc.updated(broken)) == []  # --update repairs it


def test_the_plugin_module_exports_what_a_rule_system_method_touches() -> None:
    """The types in the RuleSystem contract and the Encounter a system drives are all importable from fracas.plugin."""
    for name in (
        "RuleSystem",
        "Process",
        "Encounter",
        "ActorEntered",
        "SkillTested",
        "DiceRolled",
        "ScenarioBase",
        "ActorBase",
        "ScenarioError",
        "OddsProvider",
        "Choice",
        "ask_human",
        "policy_table",
    ):
        assert name in fracas.plugin.__all__, name
