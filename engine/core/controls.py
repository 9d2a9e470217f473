"""Characters that drive a terminal or reorder what is shown, and how fracas writes them out instead.

A control character (ESC, a carriage return, a bell ...) makes a terminal clear the screen, move
the cursor or rewrite a line; a bidirectional override shows a name reversed, on a terminal and in a
browser alike. A scenario refuses them (fracas.core.scenario's ``Name`` and ``Text``); what a log
from someone else carries anyway is written out (``\\x1b``, ``\\r``, ``\\u202e``) wherever fracas shows
it: the terminal (fracas.cli.terminal) and the viewer page (fracas.services.render).
"""

from __future__ import annotations

import re
from typing import Any

#: The controls but tab and line break, DEL and the C1 controls, and the bidirectional overrides and isolates.
CONTROLS = r"\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[{CONTROLS}]")


def written(char: str) -> str:
    """One such character as the text that shows it: ``\\r``, ``\\x1b``, ``\\u202e``."""
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with each such character written out (:func:`written`); tabs and line breaks stay."""
    return _CONTROL.sub(lambda m: written(m.group()), text) if _CONTROL.search(text) else text


#: What such a character looks like in UTF-8 JSON: a C0 control escaped (``\u001b``, ``\r``, ``\b``, ``\f``), DEL,
#: or a C1 control or an override as its UTF-8 bytes. A literal backslash before ``r`` also matches: a false alarm
#: costs one :func:`visible_all`, never a miss.
_IN_JSON = re.compile(rb"\\u00[01][0-9a-fA-F]|\\[rbf]|\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


def may_hold_controls(json_text: bytes) -> bool:
    """Whether UTF-8 JSON may hold a character :func:`visible` writes out (a scan of the bytes, no decoding)."""
    return _IN_JSON.search(json_text) is not None


def json_escaped(json_text: str) -> str:
    """JSON text with each such character as a ``\\uXXXX`` escape: the same JSON value, nothing raw to show."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text) if _CONTROL.search(json_text) else json_text


def visible_all(value: Any) -> Any:
    """``value`` (JSON-like: dicts, lists, strings, numbers) with every string, key or value, :func:`visible`."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {visible(k) if isinstance(k, str) else k: visible_all(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [visible_all(v) for v in value]
    return value
