"""Point Zéro rules as written (issue 13, rules edition 3): each test quotes the sentence of seed 003 it holds to.

The set-up is test_point_zero_rules.py's duel: Ann (DEP 18, medic) and Bob (DEP 15), 5 m apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import encounter_for, run_fight
from fracas.core import events as E
from fracas.core.encounter import TICKS_PER_SECOND, Encounter
from fracas.systems.point_zero import SYSTEM
from fracas.systems.point_zero import policies as P
from fracas.systems.point_zero import resolution as R
from fracas.systems.point_zero.rules import SHOCK
from test_point_zero_rules import duel, enc_for, recording, run_aftermath, wound

HOLD = '[{ action = "hold" }]'  # a scripted hold: moves only, initiative DEP (PZ-INIT-2)


def play_one_round(enc: Encounter) -> list[E.Event]:
    seen = recording(enc)
    enc.env.process(SYSTEM.play_round(enc, 1))
    enc.env.run()
    return seen


def of(seen: list[E.Event], kind: type) -> list:  # type: ignore[type-arg]
    return [e for e in seen if isinstance(e, kind)]


# ------------------------------------------------------------ PZ-MON-5 / PZ-MOVE-4


def test_pz_mon_5_a_critique_actor_may_still_act_with_every_attribute_at_1(tmp_path: Path) -> None:
    """Seed 003: « Un personnage dont l'état de santé atteint le niveau « Critique » ou « Sonné » s'effondre au sol
    incapacité. S'il décide d'agir, tous ses Attributs sont considérés comme égaux à 1. »

    Bob, Critique, aggressive, shoots Ann: 3 dice keep PER 1 (1, 1, 1: a critical failure, his pistol jams).
    """
    # initiative: Ann 1, 1, 1 = 3 (then holds: DEP 18), Bob 2, 2, 2 = 6; Bob's shot 1, 1, 1
    # Bob's player decides to shoot (a script: the AI would not take a shot at 0 %, issue 16)
    shoot = '[{ action = "shoot", target = "ann", weapon = "pistol" }]'
    enc = enc_for(
        tmp_path, dice=[1, 1, 1, 2, 2, 2, 1, 1, 1], apolicy="scripted", ascript=HOLD, bpolicy="scripted", bscript=shoot
    )
    wound(enc, "bob", 2)
    assert "incapacitated" in enc.state.actors["bob"].conditions
    seen = play_one_round(enc)
    assert [(d.actor, d.action) for d in of(seen, E.ActionDeclared)] == [("ann", "hold"), ("bob", "attack")]
    (shot,) = of(seen, E.SkillTested)
    assert (shot.actor, shot.kept) == ("bob", 1)
    assert [m.name for m in shot.pool_modifiers] == ["PER counts as 1 (Critique/Sonné)"]
    assert enc.state.actors["bob"].weapons["pistol"] == "jammed"


def test_pz_move_4_a_critique_actor_crawls_at_most_one_metre(tmp_path: Path) -> None:
    """Seed 003: « S'il doit se mouvoir, son déplacement est limité à 1m/Tour. »

    Bob, Critique and cautious, has no cover near and an exit: he crawls one metre toward it.
    """
    enc = enc_for(tmp_path, dice=[1, 1, 1, 2, 2, 2], apolicy="scripted", ascript=HOLD, bpolicy="cautious")
    wound(enc, "bob", 2)
    seen = play_one_round(enc)
    bob = [d for d in of(seen, E.ActionDeclared) if d.actor == "bob"]
    assert bob[0].action == "flee"
    assert [(m.x, m.y) for m in of(seen, E.Moved) if m.actor == "bob"] == [(9, 5)]


def test_c_end_1_a_side_whose_actors_have_all_collapsed_has_lost(tmp_path: Path) -> None:
    """Seed 003: « s'effondre au sol incapacité »: C-END-1 counts a Critique/Sonné actor as out of the fight."""
    enc = enc_for(tmp_path)
    wound(enc, "bob", 2)
    assert enc.check_end() and enc.winner == "a"


# ------------------------------------------------------------ PZ-MOVE-2 / PZ-MOVE-3


def test_pz_move_3_a_sprinter_covers_its_whole_dep(tmp_path: Path) -> None:
    """Seed 003: « Un personnage peut également parcourir une distance maximale égale à son DEP en un Tour »;
    « son Initiative de départ est simplement égale à son DEP, et se réduit d'un point par mètre parcouru ».

    Bob (DEP 15) sprints from x = 10: his 15th metre is walked at initiative 0.
    """
    script = '[{ action = "sprint", to = [39, 5] }]'
    fight = run_fight(
        duel(tmp_path, apolicy="scripted", ascript=HOLD, bpolicy="scripted", bscript=script, limit=1),
        tmp_path,
        dice=[1, 1, 1, 1, 1, 1],
    )
    moves = [(x.count, x.ev.x) for x in fight.entries_of(E.Moved) if x.ev.actor == "bob"]
    assert len(moves) == 15
    assert moves[-1] == (0, 25) and moves[0] == (14, 11)


def test_pz_move_2_a_free_move_after_the_action_reaches_initiative_0(tmp_path: Path) -> None:
    """Seed 003: « Si son Initiative atteint 0 au cours du déplacement, le Tour du personnage est terminé ».

    Ann acts at initiative 3 (1, 1, 1) and then moves: metres at 2, 1 and 0 (three, not two).
    """
    enc = enc_for(
        tmp_path,
        dice=[1, 1, 1, 6, 6, 6],
        apolicy="scripted",
        ascript='[{ action = "reload", weapon = "pistol", after = [5, 15] }]',
        bpolicy="scripted",
        bscript=HOLD,
    )
    seen = play_one_round(enc)
    assert [m.initiative for m in of(seen, E.Moved) if m.actor == "ann"] == [2, 1, 0]


def test_pz_move_2_a_metre_that_brings_initiative_to_0_before_acting_ends_the_round(tmp_path: Path) -> None:
    """Seed 003: « Si son Initiative atteint 0 au cours du déplacement, le Tour du personnage est terminé (même s'il
    n'a pas parcouru toute la distance qui lui est permise). Si, pour une quelconque raison, le personnage n'agit
    pas avant que son Initiative atteigne 0, son action du Tour est perdue. »"""
    enc = enc_for(
        tmp_path,
        dice=[1, 1, 1, 6, 6, 6],
        apolicy="scripted",
        ascript='[{ action = "reload", weapon = "pistol", before = [5, 15] }]',
        bpolicy="scripted",
        bscript=HOLD,
    )
    seen = play_one_round(enc)
    assert [m.initiative for m in of(seen, E.Moved) if m.actor == "ann"] == [2, 1, 0]
    assert [(e.actor, e.rule) for e in of(seen, E.ActionLost)] == [("ann", "PZ-MOVE-2")]
    assert not of(seen, E.Reloaded)


# ------------------------------------------------------------------- PZ-INIT-3


def test_pz_init_3_initiative_first_then_declarations_slowest_first_seeing_those_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 003: « Ensuite, le MJ invite chaque personnage (PJ et PNJ) à déclarer, par ordre croissant d'Initiative,
    leurs intentions d'action pour le tour. Chaque personnage a ainsi la possibilité de déclarer son action en tenant
    compte des intentions des personnages plus lents que lui. »

    Bob (2, 2, 2 = 6) is slower than Ann (5, 5, 5 = 15): he declares first; when Ann's policy is asked, it sees
    Bob's declaration. Every initiative is rolled before the first declaration.
    """
    asked: list[tuple[str, list[str]]] = []
    aggressive = P.POLICIES["aggressive"]

    def spy(enc: Encounter, actor: str) -> P.Plan:
        asked.append((actor, [f"{a}: {p.kind}" for a, p in P.declared(enc).items()]))
        return aggressive(enc, actor)

    import fracas.systems.point_zero as point_zero

    monkeypatch.setattr(point_zero, "policy_table", lambda *args, **kw: {**P.POLICIES, "aggressive": spy})
    enc = enc_for(tmp_path, dice=[5, 5, 5, 2, 2, 2] + [1] * 40)
    seen = play_one_round(enc)
    assert asked == [("bob", []), ("ann", ["bob: attack"])]
    kinds = [type(e).__name__ for e in seen if isinstance(e, (E.InitiativeSet, E.ActionDeclared))]
    assert kinds == ["InitiativeSet", "InitiativeSet", "ActionDeclared", "ActionDeclared"]


def test_pz_init_2_an_actor_that_declares_only_a_move_takes_dep(tmp_path: Path) -> None:
    """Seed 003: « Les personnages qui se déplacent sans agir bénéficient automatiquement d'une Initiative égale à
    leur caractéristique DEP »: Bob rolled 6 to declare; he declares a sprint and resolves at DEP 15."""
    script = '[{ action = "sprint", to = [39, 5] }]'
    enc = enc_for(
        tmp_path, dice=[5, 5, 5, 2, 2, 2], apolicy="scripted", ascript=HOLD, bpolicy="scripted", bscript=script
    )
    seen = play_one_round(enc)
    bob = [(e.value, e.rule) for e in of(seen, E.InitiativeSet) if e.actor == "bob"]
    assert bob == [(6, "PZ-INIT-1"), (15, "PZ-INIT-2")]


# ------------------------------------------------------------------- PZ-HEAL-3


def test_pz_heal_3_an_unconscious_medic_treats_nobody(tmp_path: Path) -> None:
    """Seed 003: « Un personnage conscient peut tenter de se soigner lui-même »: care needs a conscious carer."""
    enc = enc_for(tmp_path, dice=[6, 6, 6], care="first_aid", duration="1min")
    wound(enc, "bob", 0)
    wound(enc, "ann", 3, monitor=SHOCK)  # Inconscient
    seen = run_aftermath(enc)
    assert not of(seen, E.SkillTested)
    assert [n.rule for n in of(seen, E.Noted) if "unconscious" in n.text] == ["PZ-HEAL-3"]


def test_pz_heal_3_a_grave_medic_keeps_one_die_fewer(tmp_path: Path) -> None:
    """Seed 003: « Une blessure de niveau « Grave » [...] impose au personnage une réduction d'1 point de tous ses
    Attributs (minimum : 1) pour la résolution de ses Tests »: the medic's COG 3 counts 2."""
    enc = enc_for(tmp_path, dice=[4, 1, 1], care="first_aid")
    wound(enc, "bob", 0)
    wound(enc, "ann", 1)
    seen = recording(enc)
    R.medicine_test(enc, "bob", enc.scenario.aftermath)
    (test,) = of(seen, E.SkillTested)
    assert (test.kept, test.total) == (2, 5)


# ------------------------------------------------------------------- PZ-HEAL-1


def test_pz_heal_1_shock_clears_a_minute_after_it_was_marked_during_the_fight(tmp_path: Path) -> None:
    """Seed 003: « Les blessures choc disparaissent à raison d'une case par minute, quelle que soit leur gravité. »

    A Shock box marked at 12 s clears at 72 s, while the fight still goes on.
    """
    enc = enc_for(tmp_path)
    seen = recording(enc)
    enc.env.run(until=12 * TICKS_PER_SECOND)
    R.mark_level(enc, "bob", SHOCK, 1, damage=13, threshold=6, rule="PZ-MON-3")
    times: list[float] = []
    enc.listeners.append(lambda seq, rnd, count, sec, ev: times.append(sec) if isinstance(ev, E.WoundHealed) else None)
    enc.env.run(until=80 * TICKS_PER_SECOND)
    assert [(e.level, e.rule) for e in of(seen, E.WoundHealed)] == [(1, "PZ-HEAL-1")]
    assert times == [72.0]
    assert enc.state.actors["bob"].monitors[SHOCK].worst() == -1


# ------------------------------------------------------------------- PZ-INIT-4


def test_pz_init_4_an_attack_on_a_target_that_died_earlier_in_the_round_is_lost(tmp_path: Path) -> None:
    """Seed 003: « Une action devenue impossible à réaliser au moment de sa résolution est tout simplement perdue. »

    Bob died (still marked incapacitated): Ann's shot is lost, no ammunition, dice or strain spent.
    """
    enc = enc_for(tmp_path)
    wound(enc, "bob", 2)
    enc.emit(E.ActorDied(actor="bob", cause="test", rule="PZ-MON-4"))
    seen = recording(enc)
    R.attack(enc, "ann", "bob", "pistol", 1)
    assert [(e.rule, e.reason) for e in of(seen, E.ActionLost)] == [("PZ-INIT-4", "bob is no longer a target")]
    assert not of(seen, E.AmmoSpent) and not of(seen, E.DiceRolled) and not of(seen, E.WoundMarked)


# ------------------------------------------------------------------- PZ-MOVE-1


def test_pz_move_1_a_script_walks_no_more_than_a_third_of_dep_around_its_action(tmp_path: Path) -> None:
    """Seed 003: « La distance maximale de ce déplacement gratuit est égale au tiers du Déplacement (DEP) du
    personnage. »

    Ann's script walks 8 m then shoots: clamped to 6 m (DEP 18 / 3), with a logged reason.
    """
    script = '[{ action = "shoot", target = "bob", weapon = "pistol", before = [5, 13], after = [5, 19] }]'
    enc = enc_for(tmp_path, apolicy="scripted", ascript=script)
    seen = recording(enc)
    plan = P.scripted(enc, "ann")
    assert (len(plan.before), plan.after) == (6, [])
    (note,) = of(seen, E.Noted)
    assert note.rule == "PZ-MOVE-1" and "6 m" in note.text


# ------------------------------------------------------------------ PZ-ROUND-1


def test_pz_move_1_aiming_stands_still_no_free_move(tmp_path: Path) -> None:
    """Seed 003: « un personnage a droit à un déplacement gratuit par Tour (à la condition évidente que l'action ne
    nécessite pas de rester à un emplacement fixe) »: aiming is done standing still."""
    script = '[{ action = "aim", target = "bob", before = [5, 8], after = [5, 2] }]'
    enc = enc_for(tmp_path, apolicy="scripted", ascript=script)
    seen = recording(enc)
    plan = P.scripted(enc, "ann")
    assert (plan.kind, plan.before, plan.after) == ("aim", [], [])
    assert [n.rule for n in of(seen, E.Noted)] == ["PZ-MOVE-1"]


RELOAD = '[{ action = "reload", weapon = "pistol", before = [5, 7] }]'


def slow_reload(tmp_path: Path, rounds: int = 3, **kw: object) -> Path:
    """The duel with Ann's pistol loaded round by round: a reload of ``rounds`` Tours (`reload_rounds`)."""
    path = duel(tmp_path, apolicy="scripted", ascript=RELOAD, bpolicy="scripted", bscript=HOLD, **kw)
    text = path.read_text()
    path.write_text(text.replace("ammo = 12, reloads = 1 }", f"ammo = 12, reloads = 1, reload_rounds = {rounds} }}"))
    return path


def test_pz_round_1_a_longer_action_spans_rounds_doing_nothing_else(tmp_path: Path) -> None:
    """Seed 003: « Les actions de durées plus longues s'étendent simplement sur plusieurs Tours durant lesquels le
    personnage, concentré sur sa tâche, ne peut rien faire d'autre. »

    Ann's pistol takes 3 Tours to reload (`reload_rounds = 3`): she starts in round 1 (after her free move), keeps
    at it in round 2 without moving or being asked, and the pistol is loaded at her count in round 3."""
    fight = run_fight(slow_reload(tmp_path, limit=4), tmp_path)
    ann = [(e.round, e.ev) for e in fight.entries if getattr(e.ev, "actor", None) == "ann"]
    declared = [(rnd, ev.action, ev.text, ev.policy, ev.rule) for rnd, ev in ann if isinstance(ev, E.ActionDeclared)]
    assert declared == [
        (1, "reload", "move 2 m to (5, 7), reload pistol", "scripted", "PZ-INIT-3"),
        (2, "continue", "keeps at it: reload pistol (round 2 of 3)", "", "PZ-ROUND-1"),
        (3, "continue", "keeps at it: reload pistol (round 3 of 3)", "", "PZ-ROUND-1"),
        (4, "hold", "hold", "scripted", "PZ-INIT-3"),
    ]
    assert [rnd for rnd, ev in ann if isinstance(ev, E.Reloaded)] == [3]
    assert {rnd for rnd, ev in ann if isinstance(ev, E.Moved)} == {1}  # the free move of round 1 only
    busy = [(rnd, type(ev).__name__, getattr(ev, "value", None)) for rnd, ev in ann if "busy" in str(ev)]
    assert busy == [(1, "ConditionSet", 2), (2, "ConditionSet", 1), (3, "ConditionCleared", None)]
    from fracas.services.verify import verify_log

    assert verify_log(fight.result.log).ok


def test_pz_round_1_a_longer_action_is_interrupted_when_its_actor_collapses(tmp_path: Path) -> None:
    """Seed 003: « concentré sur sa tâche »: an actor who collapses (« s'effondre au sol incapacité », PZ-MON-5)
    or passes out loses the task under way; nothing is loaded, and next round she declares afresh."""
    enc = encounter_for(slow_reload(tmp_path, limit=4), [3] * 40)
    play_one_round(enc)
    assert enc.state.actors["ann"].conditions.get("busy") == 2
    wound(enc, "ann", 2)  # Critique: « s'effondre au sol incapacité »
    seen = recording(enc)
    enc.round = 2
    enc.env.process(SYSTEM.play_round(enc, 2))
    enc.env.run()
    (lost,) = [e for e in of(seen, E.ActionLost) if e.actor == "ann"]
    assert (lost.rule, lost.reason) == ("PZ-ROUND-1", "reload pistol interrupted after 1 of 3 rounds")
    assert "busy" not in enc.state.actors["ann"].conditions and not of(seen, E.Reloaded)
    ann = [d for d in of(seen, E.ActionDeclared) if d.actor == "ann"]
    assert [d.action for d in ann] == ["hold"]  # her script's round 2: she may act again (PZ-MON-5)


def test_pz_round_1_a_collapse_between_the_declaration_and_the_count_breaks_the_task(tmp_path: Path) -> None:
    """Seed 003: « concentré sur sa tâche »: shot down to Critique in round 2 before her count, Ann loses it there."""
    enc = encounter_for(slow_reload(tmp_path, limit=4), [3] * 40)
    play_one_round(enc)
    task, _ = R.under_way(enc)["ann"]
    wound(enc, "ann", 2)
    seen = recording(enc)
    SYSTEM._perform(enc, "ann", task)  # her count in round 2
    assert [(e.rule, e.reason) for e in of(seen, E.ActionLost)] == [
        ("PZ-ROUND-1", "reload pistol interrupted after 1 of 3 rounds")
    ]
    assert not of(seen, E.Reloaded) and "ann" not in R.under_way(enc)


def test_pz_round_1_a_one_round_reload_is_as_before(tmp_path: Path) -> None:
    """The default `reload_rounds = 1`: the reload is the round's action, done at the count (no `busy`)."""
    fight = run_fight(slow_reload(tmp_path, rounds=1, limit=2), tmp_path)
    assert [e.round for e in fight.entries if isinstance(e.ev, E.Reloaded)] == [1]
    assert not [e for e in fight.entries if "busy" in str(e.ev)]


# --------------------------------------------------------------------- small


def test_pz_mon_6_the_fatale_clock_fires_on_the_exact_tick(tmp_path: Path) -> None:
    """Seed 003: « Un personnage en blessure Fatale décède après VIG minutes »: a Fatale marked at 16.06 s kills at
    16.06 s + 3 min exactly (tick 19 606, not 19 605 by truncating 16.06 x 100 = 1605.99...)."""
    enc = enc_for(tmp_path)
    marked_at = {("bob", 3): 16.06}
    assert SYSTEM._physical_change_at(enc, "bob", 3, False, False, marked_at) == 1606 + 3 * 60 * TICKS_PER_SECOND


def test_pz_surp_1_a_strain_box_that_overflows_keeps_its_own_rule(tmp_path: Path) -> None:
    """Seed 003: « Si toutes les cases du niveau de blessure atteint sont déjà remplies, le personnage coche une case
    du niveau de blessure supérieur »: the box a full Secoué pushes up is still strain (PZ-SURP-1)."""
    enc = enc_for(tmp_path)
    wound(enc, "ann", 0, times=3, monitor=SHOCK)
    seen = recording(enc)
    R.surpass_strain(enc, "ann", 1)
    assert [(w.level, w.rule) for w in of(seen, E.WoundMarked)] == [(1, "PZ-SURP-1")]


@pytest.mark.parametrize(
    ("moved", "modifier"), [(6, None), (7, ("target moving fast", 2)), (12, ("target sprinting", 5))]
)
def test_pz_diff_3_a_declared_sprinter_is_harder_to_hit_once_it_has_run_two_thirds_of_its_dep(
    tmp_path: Path, moved: int, modifier: tuple[str, int] | None
) -> None:
    """Seed 003: « se déplaçant au maximum à une vitesse inférieure ou égale au tiers de son DEP par Tour »: the base
    difficulty assumes at most DEP/3. Reading (docs/rules-notes.md): a target that has moved more than DEP/3 this
    round is +2; a declared sprinter (full DEP) that has covered two thirds of its DEP is +5. Bob: DEP 18."""
    enc = enc_for(tmp_path, bdep=18)
    enc.emit(E.ConditionSet(actor="bob", condition="sprinting", value=18, rule="PZ-MOVE-3"))
    enc.emit(E.Moved(actor="bob", x=10, y=5, metres=moved, initiative=18 - moved, rule="PZ-MOVE-3"))
    mods = [(m.name, m.value) for m in R._situation_modifiers(enc, "ann", "bob", ranged=True)]
    assert mods == ([modifier] if modifier else [])
