"""Narration names actors by id in logged texts; the lookup must give what an alternation of every id gives.

``Narrator.names_in`` reads a run of word characters as one id (a thousand zombies' ids are not tried one by one
on every line); these tests compare it with the plain reading: every id, longest first, standing alone.
"""

from __future__ import annotations

import re

from fracas.services.narrate import Narrator
from hypothesis import given, settings
from hypothesis import strategies as st

# word characters, the two an id is read within (' and -), and others an id may hold ('.', ' ')
ID_CHARS = st.sampled_from(list("az17_-'é. "))
IDS = st.lists(st.text(ID_CHARS, min_size=1, max_size=5), min_size=1, max_size=6, unique=True)
SEPARATORS = st.sampled_from([" ", ", ", "'s ", "-", ".", "(", ") ", "x", ""])


def plain_names_in(narrator: Narrator, text: str) -> str:
    ids = sorted(narrator.names, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w'-])(" + "|".join(re.escape(i) for i in ids) + r")(?![\w'-])")
    return pattern.sub(lambda m: narrator.name(m.group(1), start=m.start() == 0), text)


def narrator_of(ids: list[str]) -> Narrator:
    n = Narrator()
    for i, aid in enumerate(ids):
        n.names[aid] = f"The Name{i}" if i % 2 else f"Name{i}"
    return n


@settings(max_examples=400, deadline=None)
@given(IDS, st.data())
def test_names_in_is_the_alternation_of_every_id(ids: list[str], data: st.DataObject) -> None:
    pieces = data.draw(st.lists(st.one_of(st.sampled_from(ids), SEPARATORS, st.text(ID_CHARS, max_size=4))))
    text = "".join(pieces)
    narrator = narrator_of(ids)
    assert narrator.names_in(text) == plain_names_in(narrator, text)


def test_an_id_inside_a_longer_word_is_not_a_name() -> None:
    narrator = narrator_of(["z1", "z12", "mira"])
    assert narrator.names_in("z1 grabs z12; z123 and mira's friend (mira), not miras") == (
        "Name0 grabs the Name1; z123 and mira's friend (Name2), not miras"
    )


def test_an_id_with_a_dot_or_a_space_is_still_named() -> None:
    narrator = narrator_of(["dr. hal", "z1"])
    assert narrator.names_in("z1 bites dr. hal") == "The Name1 bites Name0"


def test_a_purpose_read_again_names_an_actor_learnt_since() -> None:
    narrator = Narrator()
    assert narrator.purpose_text("pistol attack on z7") == "for the pistol attack on z7"  # no actor introduced yet
    narrator.learn("z7", "The shambler")
    assert narrator.purpose_text("pistol attack on z7") == "for the pistol attack on the shambler"
