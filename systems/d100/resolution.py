"""d100 resolution, in the order of the seed's flow chart (seed 002).

DEX bonus and initiative; the turn (nothing, reload, aim and shoot); the
shot: the defender's reaction (parry, dodge), the malfunction check (Panne,
Luck, malfunction table), the attack roll (fumble table, miss), then stun
mode or lethal mode and the effects of the hit points lost; and, after the
fight, healing. Each function names its rule ID in the first line of its
docstring; the functions read the live state through the encounter and
change it only by emitting events. ``enc.rules`` is the effective
:class:`D100Rules`.

Every d100 test is classified by :func:`fracas.systems.d100.odds.band_of`, the
same function the odds (and the chi-square test) count, so engine and
oracle share one definition of the bands.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from fracas.core import events as E
from fracas.core.encounter import TICKS_PER_SECOND, Encounter, tie_broken_order
from fracas.core.state import ActorState
from fracas.systems.d100.odds import band_of, effective_skill
from fracas.systems.d100.rules import (
    ALL_DAMAGE,
    BROKEN,
    DROPPED,
    HITS_SELF,
    JAM,
    MISFIRE,
    OFF_BALANCE,
    PRONE,
    SERIOUS_JAM,
    STRAY_SHOT,
    D100Rules,
    dex_bonus,
    table_lookup,
)
from fracas.systems.d100.sheet import Actor, Weapon, luck_of, parse_dice

# Weapon states (WeaponStateChanged) and conditions (ConditionSet).
READY = "ready"
JAMMED = "jammed"
SERIOUSLY_JAMMED = "seriously jammed"
WEAPON_BROKEN = "broken"
WEAPON_DROPPED = "dropped"

TETANISED = "tetanised"
PARALYSED = "paralysed"
UNCONSCIOUS = "unconscious"
DYING = "dying"
IS_PRONE = "prone"
IS_OFF_BALANCE = "off balance"
WOUNDED = "wounded"
BADLY_WOUNDED = "badly wounded"
RELOADING = "reloading"

SUCCESS_BANDS = ("critical_success", "success")

# ------------------------------------------------------------------ helpers

Cell = tuple[int, int]


def rules(enc: Encounter) -> D100Rules:
    r: D100Rules = enc.rules
    return r


def sheet(enc: Encounter, actor: str) -> Actor:
    a: Actor = enc.actor_specs[actor]
    return a


def weapon_of(enc: Encounter, actor: str, name: str | None) -> Weapon | None:
    for w in sheet(enc, actor).weapons:
        if w.name == name:
            return w
    return None


def pos(a: ActorState) -> Cell:
    return (a.x, a.y)


def distance(a: Cell, b: Cell) -> int:
    """Metres between two cells; a diagonal step counts one metre."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def name(enc: Encounter, actor: str) -> str:
    """The actor's display name, for sentences in events."""
    a = enc.state.actors.get(actor)
    return a.name if a is not None else actor


def timers(enc: Encounter) -> dict[tuple[str, str], int]:
    """Clock deadlines (ticks) of conditions set with ``until``: the system's own bookkeeping."""
    t: dict[tuple[str, str], int] = enc.scratch.setdefault("d100_timers", {})
    return t


@lru_cache(maxsize=64)
def dice_terms(text: str) -> tuple[tuple[tuple[int, int], ...], int]:
    """:func:`parse_dice` as an immutable value, parsed once per expression rather than once per roll."""
    groups, flat = parse_dice(text)
    return tuple(groups), flat


def roll_expr(enc: Encounter, text: str, *, actor: str, purpose: str, rule: str) -> int:
    """Roll a dice expression like ``1d3+1`` or ``10d6``, one DiceRolled per group."""
    groups, flat = dice_terms(text)
    total = flat
    for n, sides in groups:
        total += sum(enc.roll(n, sides, actor=actor, purpose=purpose, rule=rule))
    return total


def round_end_tick(enc: Encounter, rnd: int) -> int:
    """The tick at which round ``rnd`` ends (its count 0)."""
    return enc.round_start(rnd) + enc.round_ticks


def set_timed(enc: Encounter, actor: str, condition: str, value: int, until_tick: int, rule: str) -> None:
    """A condition that the clock ends: ``until`` in simulated seconds, remembered for the clock."""
    timers(enc)[(actor, condition)] = until_tick
    enc.emit(
        E.ConditionSet(actor=actor, condition=condition, value=value, until=until_tick / TICKS_PER_SECOND, rule=rule)
    )


def standing_modifiers(enc: Encounter, actor: str, kind: str) -> list[E.Modifier]:
    """D100-HP-1, D100-STUN-1, D100-ATK-2: the penalties an actor carries, which add up.

    ``kind``: ``attack``, ``dodge``, ``parry`` or ``skill`` (any other skill roll).
    """
    r = rules(enc)
    conds = enc.state.actors[actor].conditions
    mods: list[E.Modifier] = []
    if BADLY_WOUNDED in conds:
        mods.append(E.Modifier(name="badly wounded", value=r.hp_badly_modifier, rule="D100-HP-1"))
    elif WOUNDED in conds:
        mods.append(E.Modifier(name="wounded", value=r.hp_wounded_modifier, rule="D100-HP-1"))
    if TETANISED in conds and kind in ("attack", "dodge", "parry"):
        mods.append(E.Modifier(name="tetanised", value=r.stun_skill_penalty, rule="D100-STUN-1"))
    if IS_PRONE in conds and kind == "dodge":
        mods.append(E.Modifier(name="prone", value=r.prone_dodge_modifier, rule="D100-ATK-2"))
    if IS_OFF_BALANCE in conds and kind in ("attack", "skill"):
        mods.append(E.Modifier(name="off balance", value=r.off_balance_modifier, rule="D100-ATK-2"))
    return mods


# ------------------------------------------------------------ the d100 test


def d100_test(
    enc: Encounter,
    actor: str,
    *,
    skill: str,
    base: int,
    modifiers: Sequence[E.Modifier],
    purpose: str,
    rule: str,
    attack: bool = False,
    target: str | None = None,
) -> tuple[E.SkillTested, str]:
    """D100-ROLL-1 / D100-CRIT-1: roll d100 under the modified skill; returns the test and its band.

    The band comes from :func:`band_of`; the SkillTested event cites
    D100-ROLL-1, D100-CRIT-1 for a critical band, D100-ATK-2 for a fumble.
    ``margin`` is modified skill - roll (positive: succeeded by that much).
    """
    roll = enc.roll(1, 100, actor=actor, purpose=purpose, rule=rule)[0]
    mods = list(modifiers)
    mod = 0
    for m in mods:
        mod += m.value
    band = band_of(roll, base, mod, attack)
    value = effective_skill(base, mod)
    critical = CRITICAL_OF_BAND.get(band, "")
    ev = E.SkillTested(
        actor=actor,
        rule=RULE_OF_BAND.get(band, "D100-ROLL-1"),
        skill=skill,
        kept=1,
        dice_total=roll,
        modifiers=mods,
        difficulty=value,
        difficulty_base=base,
        total=roll,
        success=band in SUCCESS_BANDS,
        margin=value - roll,
        critical=critical,
        target=target,
    )
    enc.emit(ev)
    return ev, band


#: A test's ``critical`` field for each band that has one.
CRITICAL_OF_BAND = {"critical_success": "success", "critical_failure": "failure", "fumble": "fumble"}
#: The rule a test cites for each band that is not a plain success or failure (D100-ROLL-1).
RULE_OF_BAND = {"critical_success": "D100-CRIT-1", "critical_failure": "D100-CRIT-1", "fumble": "D100-ATK-2"}


# ------------------------------------------------------- DEX and initiative


def effective_dex(enc: Encounter, actor: str) -> int:
    """D100-STUN-1: a tetanised actor has -5 DEX."""
    dex = sheet(enc, actor).characteristics.DEX
    if TETANISED in enc.state.actors[actor].conditions:
        dex += rules(enc).stun_dex_penalty
    return dex


def roll_initiative(enc: Encounter, actor: str) -> int:
    """D100-INIT-1: 1D12 + DEX + the DEX bonus/malus."""
    dex = effective_dex(enc, actor)
    face = enc.roll(1, 12, actor=actor, purpose=f"initiative 1D12 + DEX {dex} + bonus", rule="D100-INIT-1")[0]
    value = face + dex + dex_bonus(rules(enc), dex)
    enc.emit(E.InitiativeSet(actor=actor, value=value, rule="D100-INIT-1"))
    return value


def resolution_order(enc: Encounter, inits: dict[str, int]) -> list[str]:
    """D100-INIT-1: descending; ties by the higher DEX, then the 1D12 rerolled until untied."""

    keys = {aid: (-init, -effective_dex(enc, aid)) for aid, init in inits.items()}
    return tie_broken_order(
        enc,
        inits,
        keys.__getitem__,
        rule="D100-INIT-1",
        sides=12,
        rolloff_rule="D100-INIT-1",
        purpose="initiative tie: 1D12 again",
    )


# ------------------------------------------------------------------ the turn


def start_reload(enc: Encounter, actor: str, weapon_name: str | None) -> bool:
    """D100-TURN-1: a reload takes the whole round: no reaction until the magazine is in at its end."""
    w = weapon_of(enc, actor, weapon_name)
    a = enc.state.actors[actor]
    if w is None or a.spare.get(w.name, 0) <= 0:
        enc.emit(E.ActionLost(actor=actor, reason=f"no spare magazine for {weapon_name}", rule="C-ILLEGAL-1"))
        return False
    enc.emit(E.ConditionSet(actor=actor, condition=RELOADING, rule="D100-TURN-1"))
    return True


def finish_reload(enc: Encounter, actor: str, weapon_name: str | None) -> None:
    """D100-TURN-1: at the end of the round the fresh magazine is in."""
    w = weapon_of(enc, actor, weapon_name)
    a = enc.state.actors[actor]
    if RELOADING in a.conditions:
        enc.emit(E.ConditionCleared(actor=actor, condition=RELOADING, rule="D100-TURN-1"))
    if w is None or not a.can_act():
        return
    enc.emit(
        E.Reloaded(actor=actor, weapon=w.name, rounds=w.ammo, spare_left=a.spare.get(w.name, 0) - 1, rule="D100-TURN-1")
    )


def stand_up(enc: Encounter, actor: str) -> None:
    """D100-ATK-2: standing up from prone costs the action."""
    enc.emit(E.ConditionCleared(actor=actor, condition=IS_PRONE, rule="D100-ATK-2"))


def pick_up(enc: Encounter, actor: str, weapon_name: str) -> None:
    """D100-ATK-2: picking a dropped weapon up costs the action."""
    enc.emit(E.WeaponStateChanged(actor=actor, weapon=weapon_name, state=READY, rule="D100-ATK-2"))


# ---------------------------------------------- the shot: the target reacts


def reactions_used(enc: Encounter, actor: str) -> int:
    """D100-REACT-1: reactions ``actor`` made this round so far."""
    used: dict[str, tuple[int, int]] = enc.scratch.setdefault("d100_reactions", {})
    rnd, n = used.get(actor, (0, 0))
    return n if rnd == enc.round else 0


def _count_reaction(enc: Encounter, actor: str) -> int:
    used: dict[str, tuple[int, int]] = enc.scratch.setdefault("d100_reactions", {})
    n = reactions_used(enc, actor)
    used[actor] = (enc.round, n + 1)
    return n


def in_cramped_zone(enc: Encounter, actor: str) -> bool:
    a = enc.state.actors[actor]
    return any(z.contains(a.x, a.y) for z in enc.scenario.map.cramped)


def can_react(enc: Encounter, actor: str) -> bool:
    a = enc.state.actors[actor]
    return a.can_act() and RELOADING not in a.conditions


def can_dodge(enc: Encounter, actor: str) -> bool:
    """D100-REACT-1: dodging needs room to move."""
    return can_react(enc, actor) and not in_cramped_zone(enc, actor)


def can_parry(enc: Encounter, actor: str) -> bool:
    """D100-REACT-1: parrying needs an object to parry with."""
    return can_react(enc, actor) and sheet(enc, actor).parry_object is not None


class Reaction:
    """What the target's reaction does to the shot: a to-hit modifier and a damage reduction."""

    def __init__(self, kind: str = "none") -> None:
        self.kind = kind
        self.modifiers: list[E.Modifier] = []
        self.reduction = 0  # ALL_DAMAGE: stops every point
        self.reduction_name = ""


def react(enc: Encounter, defender: str, attacker: str, choice: str) -> Reaction:
    """D100-REACT-1: the target chooses its reaction before the shot; each further one this round -20."""
    if choice == "dodge" and not can_dodge(enc, defender):
        choice = "none"
    if choice == "parry" and not can_parry(enc, defender):
        choice = "none"
    if choice == "none":
        return Reaction()
    obj = sheet(enc, defender).parry_object if choice == "parry" else None
    text = f"{choice} {name(enc, attacker)}'s shot" + (f" with the {obj.replace('_', ' ')}" if obj else "")
    enc.emit(E.ActionDeclared(actor=defender, action=choice, text=text, target=attacker, rule="D100-REACT-1"))
    before = _count_reaction(enc, defender)
    mods = standing_modifiers(enc, defender, choice)
    if before:
        mods.insert(
            0,
            E.Modifier(
                name=f"reaction {before + 1} this round",
                value=rules(enc).further_reaction * before,
                rule="D100-REACT-1",
            ),
        )
    return dodge(enc, defender, attacker, mods) if choice == "dodge" else parry(enc, defender, attacker, mods)


def dodge(enc: Encounter, defender: str, attacker: str, mods: list[E.Modifier]) -> Reaction:
    """D100-DODGE-1: the dodge band sets the attacker's modifier (-50, -30, 0, +10)."""
    s = sheet(enc, defender)
    _, band = d100_test(
        enc,
        defender,
        skill="dodge",
        base=s.skills.get("dodge", 0),
        modifiers=mods,
        purpose=f"dodge {name(enc, attacker)}'s shot",
        rule="D100-DODGE-1",
        target=attacker,
    )
    value = rules(enc).dodge_modifiers.get(band, 0)
    out = Reaction("dodge")
    out.modifiers.append(
        E.Modifier(name=f"{name(enc, defender)}'s dodge: {band.replace('_', ' ')}", value=value, rule="D100-DODGE-1")
    )
    return out


def parry(enc: Encounter, defender: str, attacker: str, mods: list[E.Modifier]) -> Reaction:
    """D100-PARRY-1: the parry band sets the damage reduction, or +10 to the attacker on a critical failure.

    Against gunfire only shields reduce anything; a critical parry gives the
    reduction x 1.5 rounded down; a force shield stops everything.
    """
    r = rules(enc)
    s = sheet(enc, defender)
    obj = s.parry_object or "improvised"
    _, band = d100_test(
        enc,
        defender,
        skill="parry",
        base=s.skills.get("parry", 0),
        modifiers=mods,
        purpose=f"parry {name(enc, attacker)}'s shot with the {obj.replace('_', ' ')}",
        rule="D100-PARRY-1",
        target=attacker,
    )
    out = Reaction("parry")
    base = r.parry_reduction.get(obj, 0) if obj in r.shields else 0
    if band == "critical_failure":
        out.modifiers.append(
            E.Modifier(
                name=f"{name(enc, defender)}'s parry: critical failure", value=r.parry_fumble_bonus, rule="D100-PARRY-1"
            )
        )
        return out
    if band not in SUCCESS_BANDS:
        return out
    if base == ALL_DAMAGE:
        out.reduction = ALL_DAMAGE
    elif band == "critical_success":
        num, den = r.parry_critical_multiplier
        out.reduction = base * num // den
    else:
        out.reduction = base
    out.reduction_name = f"parried with the {obj.replace('_', ' ')}" + (
        " (critical)" if band == "critical_success" else ""
    )
    if obj not in r.shields:
        out.reduction_name += ": no shield, nothing stops a bullet"
    return out


# --------------------------------------------- the shot: malfunction check


def malfunction_check(enc: Encounter, shooter: str, weapon: Weapon) -> bool:
    """D100-JAM-1: d100 below the Panne value fires; otherwise Luck, and on a failed Luck roll the table.

    Returns True when the weapon fires.
    """
    face = enc.roll(1, 100, actor=shooter, purpose=f"Panne of the {weapon.name} ({weapon.panne})", rule="D100-JAM-1")[0]
    if face < weapon.panne:
        return True
    enc.emit(
        E.Noted(actor=shooter, text=f"Panne roll {face} >= {weapon.panne}: a Luck roll decides", rule="D100-JAM-1")
    )
    luck = enc.state.actors[shooter].resources.get("luck", luck_of(sheet(enc, shooter)))
    test, _ = d100_test(
        enc, shooter, skill="luck", base=luck, modifiers=[], purpose="Luck: does the weapon hold?", rule="D100-JAM-1"
    )
    if test.success:
        return True
    malfunction(enc, shooter, weapon)
    return False


def malfunction(enc: Encounter, shooter: str, weapon: Weapon) -> str:
    """D100-JAM-1: the malfunction table (1D10): misfire, jam, serious jam, broken."""
    r = rules(enc)
    face = enc.roll(1, 10, actor=shooter, purpose=f"malfunction table ({weapon.name})", rule="D100-JAM-1")[0]
    outcome = table_lookup(r.malfunction_table, face)
    if outcome == MISFIRE:
        enc.emit(E.ActionLost(actor=shooter, reason=f"the {weapon.name} misfires", rule="D100-JAM-1"))
    elif outcome == JAM:
        enc.emit(E.WeaponStateChanged(actor=shooter, weapon=weapon.name, state=JAMMED, rule="D100-JAM-1"))
    elif outcome == SERIOUS_JAM:
        enc.emit(E.WeaponStateChanged(actor=shooter, weapon=weapon.name, state=SERIOUSLY_JAMMED, rule="D100-JAM-1"))
        rounds = roll_expr(
            enc, r.serious_jam_rounds, actor=shooter, purpose="rounds to work on the serious jam", rule="D100-JAM-1"
        )
        enc.emit(E.ConditionSet(actor=shooter, condition=unjamming(weapon.name), value=rounds, rule="D100-JAM-1"))
    elif outcome == BROKEN:
        enc.emit(E.WeaponStateChanged(actor=shooter, weapon=weapon.name, state=WEAPON_BROKEN, rule="D100-JAM-1"))
        if weapon.energy:
            overheat(enc, shooter, weapon)
    return outcome


def unjamming(weapon: str) -> str:
    return f"unjamming the {weapon}"


def overheat(enc: Encounter, shooter: str, weapon: Weapon) -> None:
    """D100-JAM-1: a broken energy weapon overheats: 1D3 damage to its wielder, no armour."""
    dmg = roll_expr(enc, rules(enc).overheat_damage, actor=shooter, purpose="overheat burn", rule="D100-JAM-1")
    enc.emit(
        E.DamageRolled(
            actor=shooter, target=shooter, dice_total=dmg, bonus=0, total=dmg, kind="burn", rule="D100-JAM-1"
        )
    )
    lose_hp(enc, shooter, dmg, rule="D100-JAM-1")


def clear_jam(enc: Encounter, actor: str, weapon: Weapon) -> None:
    """D100-JAM-1: clearing a jam takes the action and a Mechanics or weapon-skill roll, retried each round."""
    s = sheet(enc, actor)
    options = [(weapon.skill, s.skills.get(weapon.skill, 0)), ("mechanics", s.skills.get("mechanics", 0))]
    skill, base = max(options, key=lambda p: p[1])
    test, _ = d100_test(
        enc,
        actor,
        skill=skill,
        base=base,
        modifiers=standing_modifiers(enc, actor, "skill"),
        purpose=f"clear the jammed {weapon.name}",
        rule="D100-JAM-1",
    )
    if test.success:
        enc.emit(E.WeaponStateChanged(actor=actor, weapon=weapon.name, state=READY, rule="D100-JAM-1"))


def work_serious_jam(enc: Encounter, actor: str, weapon: Weapon) -> None:
    """D100-JAM-1: a serious jam takes 1D6 rounds of work, then a Mechanics -20 roll each round."""
    r = rules(enc)
    cond = unjamming(weapon.name)
    left = enc.state.actors[actor].conditions.get(cond)
    if left is not None:
        if left > 1:
            enc.emit(E.ConditionSet(actor=actor, condition=cond, value=left - 1, rule="D100-JAM-1"))
            return
        enc.emit(E.ConditionCleared(actor=actor, condition=cond, rule="D100-JAM-1"))
    mods = [E.Modifier(name="serious jam", value=r.serious_jam_modifier, rule="D100-JAM-1")]
    test, _ = d100_test(
        enc,
        actor,
        skill="mechanics",
        base=sheet(enc, actor).skills.get("mechanics", 0),
        modifiers=mods + standing_modifiers(enc, actor, "skill"),
        purpose=f"clear the serious jam of the {weapon.name}",
        rule="D100-JAM-1",
    )
    if test.success:
        enc.emit(E.WeaponStateChanged(actor=actor, weapon=weapon.name, state=READY, rule="D100-JAM-1"))


# ----------------------------------------------------------- the attack roll


def shoot(enc: Encounter, shooter: str, target: str, weapon_name: str | None, mode: str, reaction: str) -> None:
    """D100-TURN-1: aim and shoot, in the seed's order: reaction, Panne, attack roll, hit.

    ``reaction`` is the target's choice (its policy's), made before the shot.
    """
    st = enc.state.actors
    a = st[shooter]
    t = st.get(target)
    weapon = weapon_of(enc, shooter, weapon_name)
    if t is None or not t.can_act():
        enc.emit(E.ActionLost(actor=shooter, reason=f"{name(enc, target)} is no longer a target", rule="C-ILLEGAL-1"))
        return
    if weapon is None:
        enc.emit(E.ActionLost(actor=shooter, reason=f"no weapon {weapon_name!r}", rule="C-ILLEGAL-1"))
        return
    state = a.weapons.get(weapon.name, READY)
    if state != READY:
        enc.emit(E.ActionLost(actor=shooter, reason=f"the {weapon.name} is {state}", rule="C-ILLEGAL-1"))
        return
    if a.ammo.get(weapon.name, 0) <= 0:
        enc.emit(E.ActionLost(actor=shooter, reason=f"the {weapon.name} is empty", rule="C-ILLEGAL-1"))
        return
    if mode not in weapon.modes:
        enc.emit(E.ActionLost(actor=shooter, reason=f"the {weapon.name} has no {mode} mode", rule="C-ILLEGAL-1"))
        return
    wall = enc.battlefield.sight_blocker((a.x, a.y), (t.x, t.y))
    if wall is not None:
        reason = f"no line of sight to {name(enc, target)}: the wall {wall.name!r} is in the way"
        enc.emit(E.ActionLost(actor=shooter, reason=reason, rule="C-ILLEGAL-1"))
        return
    reacted = react(enc, target, shooter, reaction)
    if not malfunction_check(enc, shooter, weapon):
        return
    enc.emit(E.AmmoSpent(actor=shooter, weapon=weapon.name, rounds=1, left=a.ammo[weapon.name] - 1, rule="D100-ATK-1"))
    attack(enc, shooter, target, weapon, mode, reacted)


def attack(enc: Encounter, shooter: str, target: str, weapon: Weapon, mode: str, reacted: Reaction) -> None:
    """D100-ATK-1: d100 under the weapon skill with every modifier (reaction, stun, wounds)."""
    mods = reacted.modifiers + standing_modifiers(enc, shooter, "attack")
    test, band = d100_test(
        enc,
        shooter,
        skill=weapon.skill,
        base=sheet(enc, shooter).skills.get(weapon.skill, 0),
        modifiers=mods,
        purpose=f"{weapon.name} shot at {name(enc, target)} ({mode})",
        rule="D100-ATK-1",
        attack=True,
        target=target,
    )
    if band == "fumble":
        fumble(enc, shooter, target, weapon, mode)
        return
    if not test.success:
        enc.emit(E.Noted(actor=shooter, text=f"the shot misses {name(enc, target)}", rule="D100-ATK-3"))
        return
    hit(enc, shooter, target, weapon, mode, critical=band == "critical_success", reacted=reacted)


def fumble(enc: Encounter, shooter: str, target: str, weapon: Weapon, mode: str) -> str:
    """D100-ATK-2: a natural double above the skill: the fumble table (1D10)."""
    r = rules(enc)
    face = enc.roll(1, 10, actor=shooter, purpose=f"fumble table ({weapon.name})", rule="D100-ATK-2")[0]
    outcome = table_lookup(r.fumble_table, face)
    if outcome == OFF_BALANCE:
        off_balance_fumbles = enc.scratch.setdefault("d100_off_balance_fumbles", {})
        off_balance_fumbles[shooter] = off_balance_fumbles.get(shooter, 0) + 1
        enc.emit(E.ConditionSet(actor=shooter, condition=IS_OFF_BALANCE, rule="D100-ATK-2"))
    elif outcome == DROPPED:
        enc.emit(E.WeaponStateChanged(actor=shooter, weapon=weapon.name, state=WEAPON_DROPPED, rule="D100-ATK-2"))
    elif outcome == JAM:
        enc.emit(E.Noted(actor=shooter, text="the weapon jams: straight to the malfunction table", rule="D100-ATK-2"))
        malfunction(enc, shooter, weapon)
    elif outcome == PRONE:
        enc.emit(E.ConditionSet(actor=shooter, condition=IS_PRONE, rule="D100-ATK-2"))
    elif outcome == STRAY_SHOT:
        stray_shot(enc, shooter, target, weapon, mode)
    elif outcome == HITS_SELF:
        enc.emit(E.Noted(actor=shooter, text=f"the shot hits the shooter ({mode} mode)", rule="D100-ATK-2"))
        hit(enc, shooter, shooter, weapon, mode, critical=False, reacted=Reaction())
    return outcome


def _segment_distance2(p: Cell, a: Cell, b: Cell) -> Fraction:
    """Squared distance from ``p`` to the segment ``a``-``b``, exactly."""
    ab = (b[0] - a[0], b[1] - a[1])
    ap = (p[0] - a[0], p[1] - a[1])
    length2 = ab[0] ** 2 + ab[1] ** 2
    t = Fraction(0)
    if length2:
        t = min(Fraction(1), max(Fraction(0), Fraction(ap[0] * ab[0] + ap[1] * ab[1], length2)))
    dx = p[0] - (a[0] + t * ab[0])
    dy = p[1] - (a[1] + t * ab[1])
    return dx * dx + dy * dy


def stray_target(enc: Encounter, shooter: str, target: str) -> str | None:
    """D100-ATK-2: the nearest other person within 2 m of the line of fire (nearest the line, then the shooter).

    Ties: the actor entered first. Only the cells within reach of the line's box are looked at (the crowd
    knows who stands where, the fallen included), or every actor when that box holds more cells than actors.
    """
    st = enc.state.actors
    a, b = pos(st[shooter]), pos(st[target])
    reach = rules(enc).stray_shot_metres
    r = abs(reach)
    x0, x1 = min(a[0], b[0]) - r, max(a[0], b[0]) + r
    y0, y1 = min(a[1], b[1]) - r, max(a[1], b[1]) + r
    if (x1 - x0 + 1) * (y1 - y0 + 1) < len(st):
        cells = enc.crowd.cells
        near: list[str] = []
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                near.extend(cells.get((x, y), ()))
    else:
        near = list(st)
    order = entry_order(enc)
    best: tuple[Fraction, int, int, str] | None = None
    for aid in near:
        other = st[aid]
        if not (x0 <= other.x <= x1 and y0 <= other.y <= y1):
            continue  # beyond reach of every point of the line (no exact distance needed)
        if aid in (shooter, target) or "dead" in other.conditions or "fled" in other.conditions:
            continue
        d2 = _segment_distance2(pos(other), a, b)
        if d2 <= reach * reach:
            key = (d2, distance(a, pos(other)), order[aid], aid)
            if best is None or key < best:
                best = key
    return best[3] if best else None


def entry_order(enc: Encounter) -> dict[str, int]:
    """Each actor's place in the order the actors entered (the state's order), kept until another enters."""
    order: dict[str, int] | None = enc.scratch.get("d100_entry_order")
    if order is None or len(order) != len(enc.state.actors):
        order = enc.scratch["d100_entry_order"] = {aid: i for i, aid in enumerate(enc.state.actors)}
    return order


def stray_shot(enc: Encounter, shooter: str, target: str, weapon: Weapon, mode: str) -> None:
    """D100-ATK-2: the stray shot: to-hit at the base skill, normal damage, no reaction."""
    victim = stray_target(enc, shooter, target)
    if victim is None:
        enc.emit(E.Noted(actor=shooter, text="a stray shot, but nobody near the line of fire", rule="D100-ATK-2"))
        return
    enc.emit(E.Noted(actor=shooter, text=f"a stray shot flies toward {name(enc, victim)}", rule="D100-ATK-2"))
    test, band = d100_test(
        enc,
        shooter,
        skill=weapon.skill,
        base=sheet(enc, shooter).skills.get(weapon.skill, 0),
        modifiers=[],
        purpose=f"stray shot at {name(enc, victim)} (base skill)",
        rule="D100-ATK-2",
        target=victim,
    )
    if not test.success:
        enc.emit(E.Noted(actor=shooter, text=f"the stray shot misses {name(enc, victim)}", rule="D100-ATK-3"))
        return
    hit(enc, shooter, victim, weapon, mode, critical=band == "critical_success", reacted=Reaction())


def hit(
    enc: Encounter, shooter: str, target: str, weapon: Weapon, mode: str, *, critical: bool, reacted: Reaction
) -> None:
    """D100-ATK-1: a hit: stun mode or lethal mode."""
    if mode == "stun":
        stun(enc, shooter, target, weapon)
    else:
        lethal(enc, shooter, target, weapon, critical=critical, reacted=reacted)


# -------------------------------------------------------------- stun mode


def stun(enc: Encounter, shooter: str, target: str, weapon: Weapon) -> None:
    """D100-STUN-1: the target rolls under CON x (4 - 1D4): tetanised on a success, else paralysed."""
    s = sheet(enc, target)
    if s.sealed:
        enc.emit(E.Noted(actor=target, text="sealed armour keeps the stun out", rule="D100-STUN-1"))
        return
    d4 = enc.roll(1, 4, actor=target, purpose="stun: CON x (4 - 1D4)", rule="D100-STUN-1")[0]
    mult = 4 - d4
    con = s.characteristics.CON
    if mult <= 0:
        enc.emit(E.Noted(actor=target, text=f"CON {con} x 0 = 0: the stun cannot be resisted", rule="D100-STUN-1"))
        paralyse(enc, target)
        return
    test, _ = d100_test(
        enc,
        target,
        skill=f"CON x {mult}",
        base=con * mult,
        modifiers=[],
        purpose=f"resist the {weapon.name}'s stun",
        rule="D100-STUN-1",
    )
    if test.success:
        tetanise(enc, target)
    else:
        paralyse(enc, target)


def tetanise(enc: Encounter, target: str) -> None:
    """D100-STUN-1: tetanised, -5 DEX and -10 to hit, dodge and parry for 1D3+1 full rounds; a new stun resets it."""
    r = rules(enc)
    a = enc.state.actors[target]
    rounds = roll_expr(enc, r.stun_rounds, actor=target, purpose="rounds tetanised", rule="D100-STUN-1")
    if TETANISED in a.conditions and not r.stun_resets:
        rounds = max(rounds, a.conditions[TETANISED])
    set_timed(enc, target, TETANISED, rounds, round_end_tick(enc, enc.round + rounds), "D100-STUN-1")


def paralyse(enc: Encounter, target: str) -> None:
    """D100-STUN-1: paralysed but conscious for 10D6 minutes, on the clock."""
    minutes = roll_expr(
        enc, rules(enc).paralysis_minutes, actor=target, purpose="minutes paralysed", rule="D100-STUN-1"
    )
    if TETANISED in enc.state.actors[target].conditions:
        timers(enc).pop((target, TETANISED), None)
        enc.emit(E.ConditionCleared(actor=target, condition=TETANISED, rule="D100-STUN-1"))
    set_timed(enc, target, PARALYSED, minutes, int(enc.env.now) + minutes * 60 * TICKS_PER_SECOND, "D100-STUN-1")


# ------------------------------------------------------------- lethal mode


def lethal(enc: Encounter, shooter: str, target: str, weapon: Weapon, *, critical: bool, reacted: Reaction) -> None:
    """D100-LETHAL-1: damage - armour - parry reduction, min 0, is the HP lost; a critical does maximum damage."""
    r = rules(enc)
    groups, flat = dice_terms(weapon.damage)
    mods: list[E.Modifier] = []
    if critical and r.critical_max_damage:
        rolled = sum(n * sides for n, sides in groups)
        mods.append(E.Modifier(name="critical: maximum damage", value=0, rule="D100-LETHAL-1"))
    else:
        rolled = 0
        for n, sides in groups:
            rolled += sum(
                enc.roll(n, sides, actor=shooter, purpose=f"{weapon.name} damage {weapon.damage}", rule="D100-LETHAL-1")
            )
    if flat:
        mods.append(E.Modifier(name="damage bonus", value=flat, rule="D100-LETHAL-1"))
    armour_name = sheet(enc, target).armour
    armour = r.armour.get(armour_name, 0)
    if armour:
        mods.append(E.Modifier(name=f"armour: {armour_name.replace('_', ' ')}", value=-armour, rule="D100-LETHAL-1"))
    if reacted.reduction == ALL_DAMAGE:
        mods.append(E.Modifier(name=reacted.reduction_name, value=-(rolled + flat), rule="D100-PARRY-1"))
    elif reacted.reduction_name:
        mods.append(E.Modifier(name=reacted.reduction_name, value=-reacted.reduction, rule="D100-PARRY-1"))
    bonus = 0
    for m in mods:
        bonus += m.value
    total = max(0, rolled + bonus)
    enc.emit(
        E.DamageRolled(
            actor=shooter,
            target=target,
            dice_total=rolled,
            bonus=bonus,
            total=total,
            kind="lethal",
            rule="D100-LETHAL-1",
            modifiers=mods,
        )
    )
    if total <= 0:
        enc.emit(E.Noted(actor=target, text="nothing gets through", rule="D100-LETHAL-1"))
        return
    lose_hp(enc, target, total, rule="D100-LETHAL-1")


def lose_hp(enc: Encounter, target: str, amount: int, *, rule: str) -> None:
    """D100-LETHAL-1: the HP lost, then D100-HP-1: their effects."""
    a = enc.state.actors[target]
    if "dead" in a.conditions or a.hp is None:
        return
    enc.emit(E.HitPointsChanged(actor=target, delta=-amount, hp=a.hp - amount, rule=rule))
    hp_effects(enc, target, amount)


# ------------------------------------------------------ effects of HP lost


def hp_effects(enc: Encounter, target: str, hit_points: int) -> None:
    """D100-HP-1: check the effect of the loss by the HP remaining.

    A single hit >= max HP, or HP <= -CON: dead. HP <= 0: unconscious and
    dying (dies at the end of the next round unless healed). HP 1-2:
    unconscious. Otherwise a single hit >= half max HP is a major wound:
    CON x 5 or unconscious. Then the penalties by HP remaining.
    """
    a = enc.state.actors[target]
    hp, top = a.hp or 0, a.hp_max or 0
    con = sheet(enc, target).characteristics.CON
    if hit_points >= top:
        enc.emit(E.ActorDied(actor=target, cause=f"a single hit of {hit_points} >= max HP {top}", rule="D100-HP-1"))
        return
    if hp <= -con:
        enc.emit(E.ActorDied(actor=target, cause=f"HP {hp} <= -CON ({-con})", rule="D100-HP-1"))
        return
    if hp <= 0:
        if UNCONSCIOUS not in a.conditions:
            enc.emit(E.ConditionSet(actor=target, condition=UNCONSCIOUS, rule="D100-HP-1"))
        if DYING not in a.conditions:
            deadline = enc.round + 1
            set_timed(enc, target, DYING, deadline, round_end_tick(enc, deadline), "D100-HP-1")
    elif hp <= 2:
        if UNCONSCIOUS not in a.conditions:
            enc.emit(E.ConditionSet(actor=target, condition=UNCONSCIOUS, rule="D100-HP-1"))
    elif 2 * hit_points >= top and UNCONSCIOUS not in a.conditions:
        major_wound(enc, target)
    wound_penalties(enc, target)


def major_wound(enc: Encounter, target: str) -> None:
    """D100-HP-1: a single hit of half max HP or more: CON x 5 or unconscious (1D10 minutes)."""
    r = rules(enc)
    con = sheet(enc, target).characteristics.CON
    mult = r.major_wound_multiplier
    test, _ = d100_test(
        enc, target, skill=f"CON x {mult}", base=con * mult, modifiers=[], purpose="major wound", rule="D100-HP-1"
    )
    if test.success:
        return
    minutes = roll_expr(enc, r.knockout_minutes, actor=target, purpose="minutes knocked out", rule="D100-HP-1")
    set_timed(enc, target, UNCONSCIOUS, minutes, int(enc.env.now) + minutes * 60 * TICKS_PER_SECOND, "D100-HP-1")


def wound_penalties(enc: Encounter, target: str) -> None:
    """D100-HP-1: > 50 % none; 26-50 % -10 to all skills; 1-25 % with HP >= 3: -20 (and half movement)."""
    r = rules(enc)
    a = enc.state.actors[target]
    if "dead" in a.conditions:
        return
    hp, top = a.hp or 0, a.hp_max or 1
    badly = hp >= r.hp_badly_min and 100 * hp <= r.hp_badly_percent * top
    wounded = not badly and hp >= r.hp_badly_min and 100 * hp <= r.hp_wounded_percent * top
    for cond, on in ((WOUNDED, wounded), (BADLY_WOUNDED, badly)):
        if on and cond not in a.conditions:
            enc.emit(E.ConditionSet(actor=target, condition=cond, rule="D100-HP-1"))
        elif not on and cond in a.conditions:
            enc.emit(E.ConditionCleared(actor=target, condition=cond, rule="D100-HP-1"))


def wake_if_able(enc: Encounter, target: str, rule: str) -> None:
    """D100-HP-1: unconsciousness from HP 1-2 ends at HP 3; a knockout when its minutes are up."""
    a = enc.state.actors[target]
    if UNCONSCIOUS not in a.conditions or DYING in a.conditions or "dead" in a.conditions:
        return
    if (a.hp or 0) >= rules(enc).hp_badly_min and (target, UNCONSCIOUS) not in timers(enc):
        enc.emit(E.ConditionCleared(actor=target, condition=UNCONSCIOUS, rule=rule))


# ------------------------------------------------------ the end of a round


def end_of_round(enc: Encounter, rnd: int) -> None:
    """D100-STUN-1, D100-HP-1: at count 0, tetanus wears off by a round, the dying die, timers expire."""
    now = int(enc.env.now)
    for aid, a in list(enc.state.actors.items()):
        if "dead" in a.conditions:
            continue
        if DYING in a.conditions and a.conditions[DYING] <= rnd:
            timers(enc).pop((aid, DYING), None)
            enc.emit(E.ActorDied(actor=aid, cause="dying, not healed by the end of the next round", rule="D100-HP-1"))
            continue
        if TETANISED in a.conditions:
            until = timers(enc).get((aid, TETANISED), now)
            left = (until - now + enc.round_ticks - 1) // enc.round_ticks
            if left <= 0:
                timers(enc).pop((aid, TETANISED), None)
                enc.emit(E.ConditionCleared(actor=aid, condition=TETANISED, rule="D100-STUN-1"))
            elif left != a.conditions[TETANISED]:
                enc.emit(
                    E.ConditionSet(
                        actor=aid, condition=TETANISED, value=left, until=until / TICKS_PER_SECOND, rule="D100-STUN-1"
                    )
                )
        expire_timers(enc, aid, now)


def expire_timers(enc: Encounter, actor: str, now: int) -> None:
    """D100-STUN-1, D100-HP-1: paralysis and knockouts end when the clock says so."""
    deadlines = timers(enc)
    for cond, rule in ((PARALYSED, "D100-STUN-1"), (UNCONSCIOUS, "D100-HP-1")):
        until = deadlines.get((actor, cond))
        if until is not None and until <= now:
            del deadlines[(actor, cond)]
            if cond == UNCONSCIOUS:
                wake_if_able(enc, actor, rule)
            elif cond in enc.state.actors[actor].conditions:
                enc.emit(E.ConditionCleared(actor=actor, condition=cond, rule=rule))


# -------------------------------------------------- the clock after the fight


def care_skill(enc: Encounter, skill: str) -> tuple[str, int]:
    """The carer of the aftermath: an actor of the scenario, or the spec's skill value."""
    spec = enc.scenario.aftermath
    medic = spec.medic or "medic"
    if medic in enc.actor_specs and enc.state.actors.get(medic) is not None and enc.state.actors[medic].can_act():
        return medic, sheet(enc, medic).skills.get(skill, 0)
    return medic, spec.medicine


def first_aid(enc: Encounter, patient: str) -> bool:
    """D100-HP-1: First Aid on a dying actor brings HP back to 1 (stable) before the deadline."""
    medic, skill = care_skill(enc, "first_aid")
    test, _ = d100_test(
        enc,
        medic,
        skill="first aid",
        base=skill,
        modifiers=[],
        purpose=f"First Aid on {name(enc, patient)}",
        rule="D100-HP-1",
        target=patient,
    )
    if not test.success:
        return False
    a = enc.state.actors[patient]
    hp = a.hp or 0
    target_hp = max(hp, rules(enc).first_aid_hp)
    timers(enc).pop((patient, DYING), None)
    enc.emit(E.HitPointsChanged(actor=patient, delta=target_hp - hp, hp=target_hp, rule="D100-HP-1"))
    enc.emit(E.ConditionCleared(actor=patient, condition=DYING, rule="D100-HP-1"))
    wound_penalties(enc, patient)
    return True


def medicine(enc: Encounter, patient: str) -> bool:
    """D100-HEAL-1: a Medicine roll doubles the daily healing."""
    medic, skill = care_skill(enc, "medicine")
    test, _ = d100_test(
        enc,
        medic,
        skill="medicine",
        base=skill,
        modifiers=[],
        purpose=f"Medicine for {name(enc, patient)}",
        rule="D100-HEAL-1",
        target=patient,
    )
    return test.success


def heal_day(enc: Encounter, patient: str, per_day: int) -> bool:
    """D100-HEAL-1: 1 HP per day (doubled with Medicine), up to the maximum. False when healed."""
    a = enc.state.actors[patient]
    hp, top = a.hp or 0, a.hp_max or 0
    if "dead" in a.conditions or DYING in a.conditions or hp >= top:
        return False
    gain = min(per_day, top - hp)
    enc.emit(E.HitPointsChanged(actor=patient, delta=gain, hp=hp + gain, rule="D100-HEAL-1"))
    wound_penalties(enc, patient)
    wake_if_able(enc, patient, "D100-HEAL-1")
    return hp + gain < top
