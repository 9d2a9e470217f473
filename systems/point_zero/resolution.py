"""Point Zéro resolution, in the order of the rulebook (seed 003).

Each function names its rule ID in the first line of its docstring. The
functions read the live state through the encounter and change it only by
emitting events. ``enc.rules`` is the effective :class:`PointZeroRules`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import msgspec
from fracas.core import events as E
from fracas.core.battlefield import STANDS_IN, Cover
from fracas.core.encounter import PRIORITY_ROUND, TICKS_PER_SECOND, At, Encounter, tie_broken_order
from fracas.core.scenario import CoverZone
from fracas.core.state import ActorState
from fracas.systems.point_zero.rules import PHYSICAL, SHOCK, PointZeroRules
from fracas.systems.point_zero.sheet import MELEE_SKILLS, Actor, Bands, Weapon, parse_pu

# ------------------------------------------------------------------ helpers

Cell = tuple[int, int]

FISTS = Weapon(name="fists", skill="brawl", pu="1d6", damage="shock", type="blunt")


def rules(enc: Encounter) -> PointZeroRules:
    r: PointZeroRules = enc.rules
    return r


def as_written(enc: Encounter) -> bool:
    """Rules edition 3 or later: the rules-as-written readings of issue 13 for Point Zéro (docs/rules-notes.md)."""
    return rules(enc).edition >= 3


#: PZ-MON-5: what stops an actor from acting at all; a Critique/Sonné (incapacitated) actor may still decide to act.
CANNOT_ACT = frozenset({"dead", "fled", "surrendered", "unconscious", "paralysed", "absent"})


def may_act(enc: Encounter, a: ActorState) -> bool:
    """PZ-MON-5: whether an actor may act this round (edition 1: not when incapacitated)."""
    return CANNOT_ACT.isdisjoint(a.conditions) if as_written(enc) else a.can_act()


def sheet(enc: Encounter, actor: str) -> Actor:
    a: Actor = enc.actor_specs[actor]
    return a


def weapon_of(enc: Encounter, actor: str, name: str | None) -> Weapon:
    for w in sheet(enc, actor).weapons:
        if w.name == name:
            return w
    r = rules(enc)
    return Weapon(name="fists", skill="brawl", pu=r.fists_pu, damage=r.fists_damage, type="blunt")


def distance(a: Cell, b: Cell) -> int:
    """Metres between two cells: diagonal steps count one metre (docs/rules-notes.md)."""
    dx, dy = a[0] - b[0], a[1] - b[1]
    return max(dx, -dx, dy, -dy)  # max(|dx|, |dy|) in one call


def pos(a: ActorState) -> Cell:
    return (a.x, a.y)


def actor_distance(a: ActorState, b: ActorState) -> int:
    """``distance(pos(a), pos(b))`` without building the two cells (policies measure every foe)."""
    dx, dy = a.x - b.x, a.y - b.y
    return max(dx, -dx, dy, -dy)


def path_toward(start: Cell, goal: Cell, metres: int) -> list[Cell]:
    """Up to ``metres`` one-metre steps from ``start`` straight toward ``goal``."""
    x, y = start
    out: list[Cell] = []
    for _ in range(metres):
        if (x, y) == goal:
            break
        x += (goal[0] > x) - (goal[0] < x)
        y += (goal[1] > y) - (goal[1] < y)
        out.append((x, y))
    return out


def walk(enc: Encounter, start: Cell, goal: Cell, metres: int) -> list[Cell]:
    """Up to ``metres`` one-metre steps from ``start`` toward ``goal`` by the shortest walk around the walls.

    On a map without walls this is :func:`path_toward` (fracas.core.battlefield, docs/rules-notes.md).
    """
    return enc.battlefield.path_toward(start, goal, metres)


def sees(enc: Encounter, a: ActorState, b: ActorState) -> bool:
    """Line of sight between two actors (symmetric; always on a map without full walls)."""
    return enc.battlefield.sees((a.x, a.y), (b.x, b.y))


def cover_against(enc: Encounter, attacker: ActorState, target: ActorState) -> Cover | None:
    """PZ-DIFF-3: the best cover ``target`` gets against ``attacker``'s shot: the zones it stands in, and the
    low walls and zones the line of fire crosses (fracas.core.battlefield.Battlefield.cover_between)."""
    mods = rules(enc).cover_modifiers
    return enc.battlefield.cover_between((attacker.x, attacker.y), (target.x, target.y), lambda level: mods[level])


def cover_name(cover: Cover) -> str:
    """How a cover modifier is named: the zone the target stands in by its name; other cover with why it counts."""
    if cover.kind == "zone" and cover.why == STANDS_IN:
        return f"{cover.level.replace('_', ' ')} cover ({cover.name})"
    what = "low wall" if cover.kind == "wall" else "cover zone"
    return f"{cover.level.replace('_', ' ')} cover ({cover.name}, a {what}: {cover.why})"


def worst_level(a: ActorState) -> int:
    """PZ-MON-5: the worst level marked over both monitors (-1: unhurt)."""
    worst = -1
    for m in a.monitors.values():
        marked = m.marked
        if any(marked):  # most monitors are clean: one C call says so
            level = len(marked) - 1
            while level > worst and not marked[level]:
                level -= 1
            worst = level
    return worst


def cover_at(enc: Encounter, cell: Cell) -> CoverZone | None:
    best: CoverZone | None = None
    zones = enc.scenario.map.cover
    if not zones:  # open ground: most maps
        return None
    mods = rules(enc).cover_modifiers
    x, y = cell
    for z in zones:
        if z.contains(x, y) and (best is None or mods[z.level] > mods[best.level]):
            best = z
    return best


# ------------------------------------------------------- round, initiative


def roll_initiative(enc: Encounter, actor: str, acts: bool) -> int:
    """PZ-INIT-1 / PZ-INIT-2: INIT d6 to act; DEP with no roll to only move."""
    s = sheet(enc, actor)
    if not acts:
        enc.emit(E.InitiativeSet(actor=actor, value=s.attributes.DEP, rule="PZ-INIT-2"))
        return s.attributes.DEP
    faces = enc.roll(s.attributes.INIT, 6, actor=actor, purpose="initiative", rule="PZ-INIT-1")
    value = min(sum(faces), enc.round_ticks - 1)
    enc.emit(E.InitiativeSet(actor=actor, value=value, rule="PZ-INIT-1"))
    return value


def resolution_order(enc: Encounter, inits: dict[str, int]) -> list[str]:
    """PZ-TIE-1 / C-TIE-1: descending initiative; ties by ADR, DEP, then 1d6 roll-offs."""

    keys: dict[str, tuple[int, int, int]] = {}
    for aid, init in inits.items():
        at = sheet(enc, aid).attributes
        keys[aid] = (-init, -at.ADR, -at.DEP)
    return tie_broken_order(enc, inits, keys.__getitem__, rule="PZ-TIE-1")


# ------------------------------------------------------------------ movement


def free_move(enc: Encounter, actor: str) -> int:
    """PZ-MOVE-1 / PZ-MOVE-4: DEP/3 metres, 1 m when Critique or Sonné."""
    if worst_level(enc.state.actors[actor]) >= 2:
        return 1
    return sheet(enc, actor).attributes.DEP // 3


def sprint_distance(enc: Encounter, actor: str) -> int:
    """PZ-MOVE-3 / PZ-MOVE-4: up to DEP metres with no action."""
    if worst_level(enc.state.actors[actor]) >= 2:
        return 1
    return sheet(enc, actor).attributes.DEP


def step(enc: Encounter, actor: str, cell: Cell, initiative: int, rule: str) -> None:
    """PZ-MOVE-2: one metre, at one initiative count."""
    a = enc.state.actors[actor]
    enc.emit(E.Moved(actor=actor, x=cell[0], y=cell[1], metres=a.moved + 1, initiative=initiative, rule=rule))


# ---------------------------------------------------------------- the test


def effective_attribute(enc: Encounter, actor: str, name: str) -> tuple[int, list[E.Modifier]]:
    """PZ-MON-5: Grave/Étourdi -1 (min 1); Critique/Sonné every attribute is 1."""
    base: int = getattr(sheet(enc, actor).attributes, name)
    worst = worst_level(enc.state.actors[actor])
    if worst >= 2:
        return 1, [E.Modifier(name=f"{name} counts as 1 (Critique/Sonné)", value=1 - base, rule="PZ-MON-5")]
    if worst == 1 and base > 1:
        return base - 1, [E.Modifier(name=f"{name} -1 (Grave/Étourdi)", value=-1, rule="PZ-MON-5")]
    return base, []


def skill_test(
    enc: Encounter,
    actor: str,
    *,
    skill: str,
    attribute: str,
    base: int,
    modifiers: Sequence[E.Modifier],
    purpose: str,
    surpass: int = 0,
    target: str | None = None,
    dice: int | None = None,
) -> E.SkillTested:
    """PZ-TEST-1..3, PZ-CRIT-1/2: roll skill d6, keep the best N, compare.

    N is the (effective) attribute, or all dice when fewer. A critical success
    is a success where a strict majority of the dice show 6; a critical
    failure a failure where a strict majority show 1.
    """
    level = sheet(enc, actor).skills.get(skill, 0) if dice is None else dice
    n = level + surpass
    keep, attr_mods = effective_attribute(enc, actor, attribute)
    faces = enc.roll(n, 6, actor=actor, purpose=purpose, rule="PZ-TEST-1", keep_best=keep) if n else []
    dice_total = sum(sorted(faces, reverse=True)[:keep]) if keep < n else sum(faces)
    mods = list(modifiers)
    difficulty = base
    for m in mods:
        difficulty += m.value
    success = dice_total >= difficulty
    critical = ""
    if success and faces and 2 * faces.count(6) > n:
        critical = "success"
    elif not success and faces and 2 * faces.count(1) > n:
        critical = "failure"
    ev = E.SkillTested(
        actor=actor,
        rule="PZ-TEST-3",
        skill=f"{skill}/{attribute}" + (f" +{surpass} surpass" if surpass else ""),
        kept=keep,
        dice_total=dice_total,
        modifiers=mods,
        pool_modifiers=attr_mods,
        difficulty=difficulty,
        difficulty_base=base,
        total=dice_total,
        success=success,
        margin=dice_total - difficulty,
        critical=critical,
        target=target,
    )
    enc.emit(ev)
    return ev


def ranged_difficulty(
    enc: Encounter, attacker: str, target: str, weapon: Weapon
) -> tuple[int, list[E.Modifier]] | None:
    """PZ-DIFF-1 / PZ-DIFF-3: base from the range band, then named modifiers.

    None when the target is beyond the weapon's extreme range.
    """
    st = enc.state.actors
    d = actor_distance(st[attacker], st[target])
    band = range_band(weapon.bands, d)
    if band is None:
        return None
    base = rules(enc).range_difficulty[band]
    mods = [E.Modifier(name=f"range {d} m: {BAND_WORDS[band]}", value=0, rule="PZ-DIFF-1")]
    mods.extend(_situation_modifiers(enc, attacker, target, ranged=True))
    return base, mods


#: Each range band as a modifier names it.
BAND_WORDS = {"point_blank": "point blank", "short": "short", "medium": "medium", "long": "long", "extreme": "extreme"}


def range_band(bands: Bands, d: int) -> str | None:
    """PZ-DIFF-1: the first band whose upper limit reaches ``d`` metres; None beyond extreme range."""
    if d <= bands.point_blank:
        return "point_blank"
    if d <= bands.short:
        return "short"
    if d <= bands.medium:
        return "medium"
    if d <= bands.long:
        return "long"
    if d <= bands.extreme:
        return "extreme"
    return None


def melee_difficulty(enc: Encounter, attacker: str, target: str, weapon: Weapon) -> tuple[int, list[E.Modifier]]:
    """PZ-DIFF-2: 10 + the defender's Brawl or Melee level."""
    r = rules(enc)
    level = sheet(enc, target).skills.get(weapon.skill, 0)
    mods = [E.Modifier(name=f"defender's {weapon.skill} {level}", value=level, rule="PZ-DIFF-2")]
    mods.extend(_situation_modifiers(enc, attacker, target, ranged=False))
    return r.melee_base, mods


def _situation_modifiers(enc: Encounter, attacker: str, target: str, *, ranged: bool) -> list[E.Modifier]:
    """PZ-DIFF-3: light, target movement, cover, aiming."""
    r = rules(enc)
    t = enc.state.actors[target]
    mods: list[E.Modifier] = []
    zone = cover_at(enc, (t.x, t.y))
    light = zone.light if zone is not None and zone.light else enc.scenario.map.light
    light_modifier = r.light_modifiers.get(light, 0)
    if light_modifier:
        mods.append(E.Modifier(name=light, value=light_modifier, rule="PZ-DIFF-3"))
    free_metres = sheet(enc, target).attributes.DEP // 3
    if "sprinting" in t.conditions and t.moved >= free_metres * 2:
        mods.append(E.Modifier(name="target sprinting", value=r.sprinting_target, rule="PZ-DIFF-3"))
    elif t.moved > free_metres:
        mods.append(E.Modifier(name="target moving fast", value=r.moving_target, rule="PZ-DIFF-3"))
    if ranged:
        cover = cover_against(enc, enc.state.actors[attacker], t)
        if cover is not None:
            mods.append(E.Modifier(name=cover_name(cover), value=r.cover_modifiers[cover.level], rule="PZ-DIFF-3"))
    aimed_at = enc.state.actors[attacker].conditions.get("aiming")
    if aimed_at is not None and aimed_at == _actor_index(enc, target):
        mods.append(E.Modifier(name="aimed a full round", value=r.aim_bonus, rule="PZ-DIFF-3"))
    return mods


def _actor_index(enc: Encounter, actor: str) -> int:
    return list(enc.actor_specs).index(actor)


# ------------------------------------------------------------ the attack


def attack(enc: Encounter, attacker: str, target: str, weapon_name: str | None, surpass: int) -> None:
    """An attack, from declaration check to the last box marked (PZ-TEST..PZ-MON)."""
    st = enc.state.actors
    a = st[attacker]
    weapon = weapon_of(enc, attacker, weapon_name)
    t = st.get(target)
    # PZ-INIT-4: a target gone is no target; the dead keep their ``incapacitated`` (edition 1 shot at them)
    if (
        t is None
        or (not t.can_act() and "incapacitated" not in t.conditions)
        or ("dead" in t.conditions and as_written(enc))
    ):
        enc.emit(E.ActionLost(actor=attacker, reason=f"{target} is no longer a target", rule="PZ-INIT-4"))
        return
    if weapon.name != "fists" and a.weapons.get(weapon.name, "ready") != "ready":
        enc.emit(E.ActionLost(actor=attacker, reason=f"{weapon.name} is {a.weapons[weapon.name]}", rule="PZ-INIT-4"))
        return
    ranged = weapon.skill not in MELEE_SKILLS
    if ranged:
        if a.ammo.get(weapon.name, 0) <= 0:
            enc.emit(E.ActionLost(actor=attacker, reason=f"{weapon.name} is empty", rule="C-ILLEGAL-1"))
            return
        diff = ranged_difficulty(enc, attacker, target, weapon)
        if diff is None:
            d = actor_distance(a, t)
            enc.emit(
                E.ActionLost(
                    actor=attacker,
                    reason=f"{target} is {d} m away, beyond {weapon.name}'s extreme range",
                    rule="PZ-DIFF-1",
                )
            )
            return
        if lost_for_sight(enc, attacker, a, t):
            return
        base, mods = diff
        enc.emit(
            E.AmmoSpent(actor=attacker, weapon=weapon.name, rounds=1, left=a.ammo[weapon.name] - 1, rule="PZ-TEST-2")
        )
        attribute = "PER"
    else:
        if actor_distance(a, t) > 1:
            enc.emit(E.ActionLost(actor=attacker, reason=f"{target} is out of reach", rule="PZ-INIT-4"))
            return
        if lost_for_sight(enc, attacker, a, t):
            return
        base, mods = melee_difficulty(enc, attacker, target, weapon)
        attribute = "ADR"
    if "aiming" in a.conditions:
        enc.emit(E.ConditionCleared(actor=attacker, condition="aiming", rule="PZ-DIFF-3"))
    if surpass and worst_level(a) >= 2:  # Critique/Sonné: no surpassing oneself
        surpass = 0
    test = skill_test(
        enc,
        attacker,
        skill=weapon.skill,
        attribute=attribute,
        base=base,
        modifiers=mods,
        purpose=f"{weapon.name} attack on {target}",
        surpass=surpass,
        target=target,
    )
    if surpass:
        surpass_strain(enc, attacker, surpass)
    if not test.success:
        if test.critical == "failure":
            critical_failure(enc, attacker, weapon, ranged)
        enc.check_end()
        return
    margin = test.margin * 2 if test.critical == "success" else test.margin
    total = roll_damage(enc, attacker, target, weapon, test.margin, test.critical == "success")
    take_hit(enc, target, total, weapon, margin_note=margin)
    enc.check_end()


def lost_for_sight(enc: Encounter, attacker: str, a: ActorState, t: ActorState) -> bool:
    """C-ILLEGAL-1: an attack needs a line of sight; without one the action is lost (and logged as such)."""
    wall = enc.battlefield.sight_blocker((a.x, a.y), (t.x, t.y))
    if wall is None:
        return False
    reason = f"no line of sight to {t.id}: the wall {wall.name!r} is in the way"
    enc.emit(E.ActionLost(actor=attacker, reason=reason, rule="C-ILLEGAL-1"))
    return True


def critical_failure(enc: Encounter, actor: str, weapon: Weapon, ranged: bool) -> None:
    """PZ-CRIT-2: a ranged weapon jams, a melee weapon drops (clearing takes an action)."""
    if weapon.name == "fists":
        enc.emit(E.Noted(actor=actor, text="stumbles (critical failure)", rule="PZ-CRIT-2"))
        return
    r = rules(enc)
    state = r.fumble_ranged if ranged else r.fumble_melee
    enc.emit(E.WeaponStateChanged(actor=actor, weapon=weapon.name, state=state, rule="PZ-CRIT-2"))


def surpass_strain(enc: Encounter, actor: str, extra: int) -> None:
    """PZ-SURP-1: each extra die marks one Shock box after the test."""
    for _ in range(extra):
        mark_level(enc, actor, SHOCK, 0, damage=0, threshold=0, rule="PZ-SURP-1")
    update_conditions(enc, actor)


def roll_damage(enc: Encounter, attacker: str, target: str, weapon: Weapon, margin: int, critical: bool) -> int:
    """PZ-DMG-1 / PZ-CRIT-1: damage = PU + MR, the MR doubled on a critical success."""
    vig = sheet(enc, attacker).attributes.VIG if attacker in enc.actor_specs else 0
    n, flat = dice_of_pu(weapon.pu, vig)
    faces = enc.roll(n, 6, actor=attacker, purpose=f"{weapon.name} damage (PU {weapon.pu})", rule="PZ-DMG-1")
    mods = [E.Modifier(name="margin of success", value=margin, rule="PZ-DMG-1")]
    bonus = margin
    if critical:
        mods.append(E.Modifier(name="critical success doubles the MR", value=margin, rule="PZ-CRIT-1"))
        bonus += margin
    if flat:
        mods.append(E.Modifier(name="PU bonus", value=flat, rule="PZ-DMG-1"))
        bonus += flat
    dice_total = sum(faces)
    total = dice_total + bonus
    enc.emit(
        E.DamageRolled(
            actor=attacker,
            target=target,
            dice_total=dice_total,
            bonus=bonus,
            total=total,
            kind=weapon.damage,
            rule="PZ-DMG-1",
            modifiers=mods,
        )
    )
    return total


@lru_cache(maxsize=64)
def dice_of_pu(pu: str, vig: int) -> tuple[int, int]:
    """:func:`parse_pu`, parsed once per weapon and wielder's VIG rather than once per hit."""
    return parse_pu(pu, vig)


# ------------------------------------------------------- damage and wounds


def natural_sb(enc: Encounter, actor: str) -> int:
    """PZ-SB-1: natural SB = VIG + 3 (option ``2vig``), or the sheet's value."""
    s = sheet(enc, actor)
    if s.sb is not None:
        return s.sb
    vig = s.attributes.VIG
    return 2 * vig if rules(enc).natural_sb == "2vig" else vig + 3


def armour_bonus(enc: Encounter, actor: str, weapon: Weapon) -> int:
    """PZ-ARMOR-1: armour adds to SB; vests give half against blades and blunt weapons."""
    r = rules(enc)
    armour = sheet(enc, actor).armour
    bonus = r.armour_sb.get(armour, 0)
    if armour in r.vests and weapon.type in ("blade", "blunt"):
        bonus //= 2
    return bonus


def save_test(enc: Encounter, actor: str) -> E.SkillTested | None:
    """PZ-SAVE-1: Resistance (or VIG dice) keep VIG vs 10; none while unconscious."""
    a = enc.state.actors[actor]
    if "unconscious" in a.conditions or "dead" in a.conditions:
        return None
    s = sheet(enc, actor)
    dice = s.skills.get("resistance", s.attributes.VIG)
    return skill_test(
        enc,
        actor,
        skill="resistance",
        attribute="VIG",
        base=rules(enc).save_difficulty,
        modifiers=[],
        purpose="save test",
        dice=dice,
    )


def take_hit(enc: Encounter, target: str, damage: int, weapon: Weapon, margin_note: int = 0) -> None:
    """PZ-SB-1, PZ-SAVE-1, PZ-DMG-2, PZ-MON-2..4: compare the damage with SB and mark."""
    save = save_test(enc, target)
    parts = [E.Modifier(name="natural SB", value=natural_sb(enc, target), rule="PZ-SB-1")]
    armour = armour_bonus(enc, target, weapon)
    if armour:
        parts.append(E.Modifier(name=sheet(enc, target).armour.replace("_", " "), value=armour, rule="PZ-ARMOR-1"))
    if save is not None and save.success:
        parts.append(E.Modifier(name="save MR", value=save.margin, rule="PZ-SAVE-1"))
    sb = 0
    for p in parts:
        sb += p.value
    enc.emit(E.ThresholdComputed(actor=target, value=sb, parts=parts, rule="PZ-SB-1"))
    for monitor in MONITORS_HIT[weapon.damage]:
        wound(enc, target, monitor, damage, sb)
    update_conditions(enc, target)


#: PZ-DMG-2: the monitors each kind of damage marks, in the order they are marked.
MONITORS_HIT = {"physical": (PHYSICAL,), "shock": (SHOCK,), "both": (PHYSICAL, SHOCK)}


def wound(enc: Encounter, actor: str, monitor: str, damage: int, sb: int) -> None:
    """PZ-MON-2 / PZ-MON-3: below SB, or the level floor(damage / SB)."""
    if damage < sb:
        if monitor == PHYSICAL:
            mark_level(enc, actor, SHOCK, 0, damage=damage, threshold=sb, rule="PZ-MON-2")
        return
    multiple = damage // sb
    if multiple >= rules(enc).lethal_multiple:
        if monitor == PHYSICAL:
            enc.emit(
                E.ActorDied(
                    actor=actor, cause=f"{damage} damage >= {rules(enc).lethal_multiple} x SB {sb}", rule="PZ-MON-3"
                )
            )
            return
        multiple = 4
    mark_level(enc, actor, monitor, min(multiple, 4) - 1, damage=damage, threshold=sb, rule="PZ-MON-3")


def mark_level(enc: Encounter, actor: str, monitor: str, level: int, *, damage: int, threshold: int, rule: str) -> None:
    """PZ-MON-4: a full level marks the next one up; past Fatale is death."""
    a = enc.state.actors[actor]
    if "dead" in a.conditions:
        return
    m = a.monitors[monitor]
    own_rule = rule == "PZ-SURP-1" and as_written(enc)  # a strain box stays strain when it overflows
    while level < len(m.levels) and m.marked[level] >= m.boxes[level]:
        level += 1
        rule = rule if own_rule else "PZ-MON-4"
    if level >= len(m.levels):
        if monitor == PHYSICAL:
            enc.emit(E.ActorDied(actor=actor, cause="wounds past Fatale", rule="PZ-MON-4"))
        return  # past Inconscient: stays Inconscient
    enc.emit(
        E.WoundMarked(
            actor=actor,
            monitor=monitor,
            level=level,
            level_name=m.levels[level],
            damage=damage,
            threshold=threshold,
            rule=rule,
        )
    )
    if monitor == PHYSICAL and level >= 2:
        timers: dict[tuple[str, int], float] = enc.scratch.setdefault("pz_marked_at", {})
        timers.setdefault((actor, level), enc.now_seconds)
    if monitor == SHOCK and as_written(enc) and not enc.in_aftermath:
        start_shock_clock(enc, actor)


#: PZ-HEAL-1: per actor, the tick at which its next Shock box clears (a clock runs while it has any).
SHOCK_CLOCK = "pz_shock_clock"


def start_shock_clock(enc: Encounter, actor: str) -> None:
    """PZ-HEAL-1: one Shock box clears a minute after the first was marked, then each minute, fight or not."""
    clocks: dict[str, int] = enc.scratch.setdefault(SHOCK_CLOCK, {})
    if actor in clocks:
        return
    clocks[actor] = int(enc.env.now) + rules(enc).shock_heal_seconds * TICKS_PER_SECOND
    enc.env.process(_shock_clock(enc, actor, clocks))


def _shock_clock(enc: Encounter, actor: str, clocks: dict[str, int]) -> Any:
    """PZ-HEAL-1 during the fight; the aftermath's own process takes over from the tick this one would have woken."""
    while True:
        yield At(enc.env, clocks[actor], PRIORITY_ROUND)
        a = enc.state.actors[actor]
        if enc.over or enc.in_aftermath:
            return
        level = a.monitors[SHOCK].worst()
        if level < 0 or "dead" in a.conditions:
            del clocks[actor]
            return
        enc.emit(E.WoundHealed(actor=actor, monitor=SHOCK, level=level, to_level=-1, boxes=1, rule="PZ-HEAL-1"))
        update_conditions(enc, actor)
        if a.monitors[SHOCK].worst() < 0:
            del clocks[actor]
            return
        clocks[actor] += rules(enc).shock_heal_seconds * TICKS_PER_SECOND


def update_conditions(enc: Encounter, actor: str) -> None:
    """PZ-MON-5: effects of the worst level over both monitors, not cumulative."""
    a = enc.state.actors[actor]
    if "dead" in a.conditions:
        return
    worst = worst_level(a)
    conditions = a.conditions
    for cond, from_level in LEVEL_CONDITIONS:
        on = worst >= from_level
        if on and cond not in conditions:
            enc.emit(E.ConditionSet(actor=actor, condition=cond, rule="PZ-MON-5"))
        elif not on and cond in conditions:
            enc.emit(E.ConditionCleared(actor=actor, condition=cond, rule="PZ-MON-5"))


#: PZ-MON-5: each condition and the worst level from which it holds, in the order they are set.
LEVEL_CONDITIONS = (("impaired", 1), ("incapacitated", 2), ("unconscious", 3))


# ------------------------------------------------------ actions over several Tours

#: PZ-ROUND-1: the condition of an actor whose action spans Tours; its value is the Tours still to come
BUSY = "busy"
#: the encounter scratch key of the actions under way: actor -> (the plan, its Tours in all)
UNDER_WAY = "pz_under_way"


def action_rounds(enc: Encounter, actor: str, kind: str, weapon: str | None) -> int:
    """PZ-ROUND-1: how many Tours an action takes: a reload its weapon's ``reload_rounds``; anything else one."""
    if kind == "reload" and as_written(enc):  # editions 1 and 2: every action fits in one Tour
        return weapon_of(enc, actor, weapon).reload_rounds
    return 1


def under_way(enc: Encounter) -> dict[str, tuple[Any, int]]:
    """PZ-ROUND-1: the actions that span Tours, still under way (actor -> (plan, Tours in all))."""
    table: dict[str, tuple[Any, int]] = enc.scratch.setdefault(UNDER_WAY, {})
    return table


def start_long_action(enc: Encounter, actor: str, plan: Any, rounds: int) -> None:
    """PZ-ROUND-1: the first Tour of an action of ``rounds`` Tours: the actor is busy for the others (no move
    after it either)."""
    task = msgspec.structs.replace(plan, before=[], after=[])
    under_way(enc)[actor] = (task, rounds)
    what = task.text(enc)
    enc.emit(
        E.Noted(
            actor=actor,
            text=f"starts to {what}: {rounds} rounds, done in round {enc.round + rounds - 1}; nothing else until then",
            rule="PZ-ROUND-1",
        )
    )
    enc.emit(E.ConditionSet(actor=actor, condition=BUSY, value=rounds - 1, rule="PZ-ROUND-1"))


def go_on_with(enc: Encounter, actor: str) -> bool:
    """PZ-ROUND-1: one more Tour of the action under way; True when this Tour completes it."""
    left = enc.state.actors[actor].conditions.get(BUSY, 0)
    if left > 1:
        enc.emit(E.ConditionSet(actor=actor, condition=BUSY, value=left - 1, rule="PZ-ROUND-1"))
        return False
    enc.emit(E.ConditionCleared(actor=actor, condition=BUSY, rule="PZ-ROUND-1"))
    under_way(enc).pop(actor, None)
    return True


def interrupt(enc: Encounter, actor: str, why: str) -> None:
    """PZ-ROUND-1: the action under way is lost (its actor collapsed, passed out, left)."""
    plan, rounds = under_way(enc).pop(actor)
    left = enc.state.actors[actor].conditions.get(BUSY, 0)
    enc.emit(E.ConditionCleared(actor=actor, condition=BUSY, rule="PZ-ROUND-1"))
    done = rounds - left
    enc.emit(
        E.ActionLost(actor=actor, reason=f"{plan.text(enc)} {why} after {done} of {rounds} rounds", rule="PZ-ROUND-1")
    )


#: PZ-ROUND-1 / PZ-MON-5: what breaks the concentration a longer action needs
BREAKS_A_TASK = frozenset({"incapacitated", *CANNOT_ACT})


# ------------------------------------------------------------- other actions


def reload(enc: Encounter, actor: str, weapon_name: str | None) -> None:
    """C-ILLEGAL-1: a reload needs a spare magazine; it takes the action."""
    w = weapon_of(enc, actor, weapon_name)
    a = enc.state.actors[actor]
    spare = a.spare.get(w.name, 0)
    if spare <= 0 or w.ammo is None:
        enc.emit(E.ActionLost(actor=actor, reason=f"no spare magazine for {w.name}", rule="C-ILLEGAL-1"))
        return
    enc.emit(E.Reloaded(actor=actor, weapon=w.name, rounds=w.ammo, spare_left=spare - 1, rule="PZ-ROUND-1"))


def ready_weapon(enc: Encounter, actor: str, weapon_name: str | None) -> None:
    """PZ-CRIT-2: clearing a jam or picking a weapon up takes an action."""
    w = weapon_of(enc, actor, weapon_name)
    enc.emit(E.WeaponStateChanged(actor=actor, weapon=w.name, state="ready", rule="PZ-CRIT-2"))


def aim(enc: Encounter, actor: str, target: str) -> None:
    """PZ-DIFF-3: a full round aiming gives -2 to the next shot at that target."""
    enc.emit(E.ConditionSet(actor=actor, condition="aiming", value=_actor_index(enc, target), rule="PZ-DIFF-3"))


# -------------------------------------------------- the clock after the fight


def medicine_test(enc: Encounter, patient: str, spec: Any) -> bool:
    """PZ-HEAL-3: Medicine with COG; difficulty by the worst physical level; self +2."""
    r = rules(enc)
    a = enc.state.actors[patient]
    worst = a.monitors[PHYSICAL].worst()
    if worst < 0:
        return False
    if worst == 3 and not spec.intensive_care:
        enc.emit(
            E.Noted(
                actor=patient, text="Fatale needs intensive-care equipment: no treatment possible", rule="PZ-HEAL-3"
            )
        )
        return False
    medic = spec.medic or "medic"
    mods = []
    if medic == patient:
        mods.append(E.Modifier(name="treating oneself", value=r.self_treatment, rule="PZ-HEAL-3"))
    cog_mods: list[E.Modifier] = []
    if medic in enc.actor_specs:
        level = sheet(enc, medic).skills.get("medicine", 0)
        cog = sheet(enc, medic).attributes.COG
        carer = enc.state.actors.get(medic)
        if as_written(enc):  # « Un personnage conscient peut tenter de se soigner »: care needs a conscious carer
            out = None if carer is None else next((c for c in MEDIC_OUT if c in carer.conditions), None)
            if carer is None or out is not None:
                why = "not here" if carer is None else out
                enc.emit(E.Noted(actor=patient, text=f"{medic} is {why}: no care for {patient}", rule="PZ-HEAL-3"))
                return False
            cog, cog_mods = effective_attribute(enc, medic, "COG")  # PZ-MON-5: a wounded medic's COG
    else:
        level, cog = spec.medicine, spec.cog
    faces = (
        enc.roll(level, 6, actor=medic, purpose=f"Medicine test for {patient}", rule="PZ-HEAL-3", keep_best=cog)
        if level
        else []
    )
    total = sum(sorted(faces, reverse=True)[:cog])
    base = r.medicine_difficulty[worst]
    difficulty = base + sum(m.value for m in mods)
    ok = total >= difficulty
    enc.emit(
        E.SkillTested(
            actor=medic,
            rule="PZ-HEAL-3",
            skill="medicine/COG",
            kept=cog,
            dice_total=total,
            modifiers=mods,
            pool_modifiers=cog_mods,
            difficulty=difficulty,
            difficulty_base=base,
            total=total,
            success=ok,
            margin=total - difficulty,
            target=patient,
        )
    )
    return ok


#: PZ-HEAL-3: a medic in any of these states treats nobody (the first found is named).
MEDIC_OUT = ("dead", "unconscious", "paralysed", "fled", "absent")
