"""Z-Corps competent AI: the decision's shortcuts answer as the plain computation (issue 17, logs unchanged).

The shortcuts (systems/zcorps/tactics.py): a shot's dice built from a target part and a mode part, each kept for
the decision; a shot's odds and worth kept for the decision; no called shot scored when a body shot's odds are
already under the style's least; the nearest foes asked of the crowd within a smaller radius first; no cover cell
looked for when the actor already has the map's best cover, and the cells looked at nearest first until the nearest
by walk are found; an extra action's shots at -1D scored only with the weapons that hold the rounds for them; an
active defence weighed with one context for the harm it prevents and the action it spends; a shot's parts and odds
kept for the fight by what they are made from (a later decision reads them again); what a foe's attacks owe to the
foe alone read once per decision; the dead of a horde not asked about an extra action; a walk within a foe's reach
asked by the straight line where no wall stands between, else by a search no farther than the reach; no path
searched toward a foe already within the stop; the cover cells looked at kept per cell for the fight; a move that
could not beat the option held even with the best later shot there is not scored.
Their state is the decision's (a Context lives for one decision, in which nothing moves), the fight's (keyed by all
that moves) or the map's (which never changes).

The odds read from cold (the first decisions of a process, a `fracas verify`): a roll's exact masses kept per code
and read without Fractions, the difficulty dice counted in whole numbers, the wound ladder summed from lists, the
totals below a need skipped, a shot's answers by need kept per attack pool and ladder. Each float must be the very
float of the plain computation (the same exact rational rounded once, the same sums in the same order): equal,
not close.

Each fight test plays real fights (the horde's first rounds, the barricade, the firefight, the duel) with every call of
the shortened functions checked against the plain computation written out here as it was before them, and counts
that the shortcuts were taken (a check that never meets them proves nothing); one test breaks a shortcut on
purpose and sees the check fail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path

import pytest
from fracas.core.battlefield import Battlefield
from fracas.core.scenario import CoverZone, MapSpec, WallSpec
from fracas.core.state import ActorState
from fracas.services.batch import build_scenario, read_scenario_text
from fracas.services.run import run_scenario
from fracas.systems import zcorps
from fracas.systems.zcorps import policies, tactics
from fracas.systems.zcorps import resolution as R
from fracas.systems.zcorps.odds import DCode, roll_distribution, success_probability
from fracas.systems.zcorps.rules import DEAD, INCAPACITATED, MORTALLY, STUNNED, WOUNDED
from fracas.systems.zcorps.sheet import Weapon, ranges_of
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios" / "zcorps"
#: (scenario, seeds, rounds or None for the scenario's own limit): the horde's first rounds keep the test lean
FIGHTS = [("horde", (1,), 5), ("barricade", (1, 2), None), ("firefight", (1, 2, 3), None), ("duel", (1, 2, 3), None)]
#: the 40-zombie horde (tests/data/zc_horde.toml, whose log tools/bench.py verifies): a few dozen foes in reach
FIGHTS += [("../../tests/data/zc_horde", (1,), None)]


# ----------------------------------------------------------------- the plain computation (as before the shortcuts)


def plain_attack_shot(
    ctx: tactics.Context,
    weapon: Weapon,
    target: ActorState,
    cell: tactics.Cell,
    mode: str,
    nth: int,
    called: str | None,
    pool: int,
) -> tactics.Shot | None:
    enc = ctx.enc
    r = R.rules(enc)
    tcell = (target.x, target.y)
    band = R.range_band(enc, weapon, R.distance(cell, tcell))
    if band is None:
        return None
    bonus = 0
    fixed = tactics._base_difficulty(enc, target)
    if weapon.type == "machine_gun":
        if r.machine_gun_reading == "attack_bonus":
            bonus = -r.machine_gun_modifiers[band]
        else:
            fixed += r.machine_gun_modifiers[band]
    else:
        fixed += r.range_modifiers[band]
    up = tactics._light_dice(enc, tcell) + tactics._cover_dice(enc, cell, tcell)
    down = 0
    diff_dice, dmg_dice = tactics._mode_dice(enc, mode, nth)
    if diff_dice > 0:
        up += diff_dice
    else:
        down -= diff_dice
    flat = 0
    if called:
        head_dice, head_damage = r.called_shots[called]
        up += head_dice
        flat = head_damage
    me = R.traits(enc, ctx.actor)
    code = R.with_dice(me.codes["heavy_weapons" if weapon.type == "machine_gun" else "firearms"], pool)
    damage, _, _ = R.damage_code(weapon.name, weapon.damage, me.codes["puissance"], dmg_dice, r.min_damage_dice)
    t = R.traits(enc, target.id)
    return tactics.Shot(code, fixed, up, down, bonus, damage, flat, t.resistance, R.worst_level(target), t.undead)


def plain_shot_options(
    ctx: tactics.Context,
    cell: tactics.Cell,
    here: bool,
    partial: bool,
    weapons: Sequence[Weapon],
    pool_offset: int,
    quick: bool,
) -> list[tactics.Option]:
    enc, actor = ctx.enc, ctx.actor
    out: list[tactics.Option] = []
    base_pool = tactics.pool_dice(enc, actor, partial=partial) + pool_offset
    in_sight = [f for f in ctx.foes if enc.battlefield.sees(cell, (f.x, f.y))]
    for weapon in weapons:
        targets = [f for f in in_sight if R.distance(cell, (f.x, f.y)) <= ranges_of(weapon)[2]]
        if not targets:
            continue
        if quick:
            targets = targets[: tactics.QUICK_TARGETS]
        worth = tactics._ammo_worth(enc, actor, weapon)
        for mode in tactics._modes(enc, actor, weapon):
            multi = mode in ("semi_multi", "burst_multi")
            if multi and quick:
                continue
            for first in targets:
                seconds: list[ActorState | None] = [None]
                if multi:
                    near: list[ActorState | None] = [
                        f for f in targets if f.id != first.id and R.distance((f.x, f.y), (first.x, first.y)) <= 3
                    ]
                    seconds = near[:2]
                    if not seconds:
                        continue
                for second in seconds:
                    group = [first] if second is None else [first, second]
                    if R.mode_legal(enc, actor, weapon, mode, len(group)) is not None:
                        continue
                    cost = R.rounds_needed(enc, actor, weapon, mode, len(group)) * worth
                    if mode == "long_burst":
                        cost += 0.05
                    for called in (None, "head"):
                        if called and called not in R.rules(enc).called_shots:
                            continue
                        total_harm = 0.0
                        first_odds = 0.0
                        ok = True
                        for nth, t in enumerate(group):
                            aim = tactics._aim_dice(enc, actor, t.id) if here and nth == 0 else 0
                            shot = plain_attack_shot(ctx, weapon, t, cell, mode, nth, called, base_pool + aim)
                            if shot is None:
                                ok = False
                                break
                            p, harm = tactics.shot_value(shot, ctx.per_die, ctx.floor, ctx.full_margin, ctx.bands)
                            if called and p < ctx.style.head_min_odds:
                                ok = False
                                break
                            if nth == 0:
                                first_odds = p
                            total_harm += harm
                        if not ok or first_odds <= 0.0:
                            continue
                        value = total_harm - cost
                        if mode == "suppressive":
                            value += 0.15 * sum(tactics._threat_of(ctx, t, (ctx.me.x, ctx.me.y)) for t in group)
                        ids = tuple(t.id for t in group)
                        out.append(
                            tactics.Option(
                                value, "shoot", ids, weapon.name, mode, called, odds=first_odds, harm=total_harm
                            )
                        )
    return out


def plain_foes(enc: object, actor: str) -> list[ActorState]:
    me = enc.state.actors[actor]  # type: ignore[attr-defined]
    crowd = enc.crowd  # type: ignore[attr-defined]
    others = crowd.other_sides(me.side)
    actors = enc.state.actors  # type: ignore[attr-defined]
    found = crowd.within(me.x, me.y, others, tactics.THREAT_RADIUS)
    if not found:
        near = crowd.nearest(me.x, me.y, others)
        found = [(near[0], fid) for fid in near[1]] if near is not None else []
    field_ = enc.battlefield  # type: ignore[attr-defined]
    here = (me.x, me.y)
    picked: list[ActorState] = []
    hurt: list[tuple[int, int, str]] = []
    for n, (d, fid) in enumerate(found):
        if n >= 4 * tactics.MAX_TARGETS:
            break
        f = actors[fid]
        if not field_.open and not field_.sees(here, (f.x, f.y)) and field_.walk_distance(here, (f.x, f.y)) is None:
            continue
        if len(picked) < tactics.MAX_TARGETS:
            picked.append(f)
        elif R.worst_level(f) >= 0:
            hurt.append((-R.worst_level(f), d, fid))
    return picked + [actors[fid] for _, _, fid in sorted(hurt)[:2]]


def plain_cover_cells(enc: object, actor: str, reach: int, foe: tactics.Cell) -> list[tuple[tactics.Cell, int]]:
    me = enc.state.actors[actor]  # type: ignore[attr-defined]
    here = (me.x, me.y)
    now = tactics._cover_dice(enc, foe, here)  # type: ignore[arg-type]
    field_ = enc.battlefield  # type: ignore[attr-defined]
    cells: list[tactics.Cell] = [
        (min(max(me.x, z.x), z.x + z.w - 1), min(max(me.y, z.y), z.y + z.h - 1))
        for z in enc.scenario.map.cover  # type: ignore[attr-defined]
    ]
    for w in field_.walls:
        if w.height == "low":
            cells += [
                (cx, cy)
                for cx in range(w.x - 1, w.x + w.w + 1)
                for cy in range(w.y - 1, w.y + w.h + 1)
                if R.distance(here, (cx, cy)) <= reach and field_.walkable((cx, cy))
            ]
    out: list[tuple[tactics.Cell, int]] = []
    seen: set[tactics.Cell] = set()
    for c in cells:
        if c in seen or c == here or R.distance(here, c) > reach or not field_.walkable(c):
            continue
        seen.add(c)
        if R.is_occupied(enc, actor, c) or tactics._cover_dice(enc, foe, c) <= now:  # type: ignore[arg-type]
            continue
        d = field_.walk_distance(here, c)
        if d is not None and d <= reach:
            out.append((c, d))
    out.sort(key=lambda cd: (cd[1], cd[0]))
    return out[: tactics.MAX_COVER_CELLS]


def plain_extra_action_worth(enc: object, actor: str) -> bool:
    a = enc.state.actors[actor]  # type: ignore[attr-defined]
    r = R.rules(enc)  # type: ignore[arg-type]
    style = tactics.STYLES.get(R.traits(enc, actor).policy, tactics.CAUTIOUS)  # type: ignore[arg-type]
    loaded = tactics._loaded(enc, actor)  # type: ignore[arg-type]
    if not loaded:
        return False
    ctx = tactics.context(enc, actor, style)  # type: ignore[arg-type]
    granted = max(1, a.initiative // r.points_per_action)
    here = (a.x, a.y)
    now = plain_shot_options(ctx, here, False, False, loaded, 0, True)
    if not now or max(o.value for o in now) <= 0.0:
        return False
    best_now = max(o.value for o in now)
    less = [
        o
        for o in plain_shot_options(ctx, here, False, False, loaded, -r.multi_action_dice, True)
        if all(a.ammo.get(w.name, 0) >= 2 * (granted + 1) for w in loaded if w.name == o.weapon)
    ]
    best_less = max((o.value for o in less), default=0.0)
    return (granted + 1) * best_less > granted * best_now * 1.05


def plain_foe_threat(
    ctx: tactics.Context, foe: ActorState, cell: tactics.Cell, guard: tactics.Guard | None = None
) -> float:
    enc = ctx.enc
    fcell = (foe.x, foe.y)
    metres = R.distance(fcell, cell)
    ft = R.traits(enc, foe.id)
    me = R.traits(enc, ctx.actor)
    pool = tactics.pool_dice(enc, foe.id)
    best = 0.0
    if ft.firearms and enc.battlefield.sees(fcell, cell):
        for w in ft.firearms:
            if foe.ammo.get(w.name, 0) <= 0 and foe.spare.get(w.name, 0) <= 0:
                continue
            band = R.range_band(enc, w, metres)
            if band is None:
                continue
            r = R.rules(enc)
            skill = "heavy_weapons" if w.type == "machine_gun" else "firearms"
            fixed = r.passive_defence + (
                r.machine_gun_modifiers[band] if w.type == "machine_gun" else r.range_modifiers[band]
            )
            up = tactics._light_dice(enc, cell) + tactics._cover_dice(enc, fcell, cell)
            damage, _, _ = R.damage_code(w.name, w.damage, ft.codes["puissance"], 0, r.min_damage_dice)
            code = R.with_dice(ft.codes[skill], pool)
            shot = tactics.Shot(code, fixed, up, 0, 0, damage, 0, me.resistance, R.worst_level(ctx.me), me.undead)
            worth = tactics.evaluate(ctx, shot)[1] if guard is None else tactics.guarded(ctx, shot, guard)[1]
            best = max(best, worth)
            break
    reach = R.sheet(enc, foe.id).move + 1
    walk = metres if metres > reach or enc.battlefield.open else enc.battlefield.walk_distance(fcell, cell)
    if walk is not None and walk <= reach:
        skill = "melee" if ft.melee else "brawl"
        code, vs = R.with_dice(ft.codes[skill], pool), R.rules(enc).passive_defence + (0 if ft.melee else 7)
        pmf = ((0, 1.0),) if guard is None else tactics.guard_pmf(guard)
        p = sum(pg * tactics.p_at_least(code, vs + g) for g, pg in pmf)
        best = max(best, p * (0.5 if ft.undead else 0.35))
    return best


def plain_best_shot_from(
    ctx: tactics.Context, cell: tactics.Cell, weapons: Sequence[Weapon], *, aim_at: str | None = None
) -> float:
    """tactics._best_shot_from as it was: an aimed shot's worth from its Shot (attack_shot, evaluate)."""
    options = tactics.shot_options(ctx, cell, here=False, partial=False, weapons=weapons, quick=True)
    best = max((o.value for o in options), default=0.0)
    if aim_at is not None:
        r = R.rules(ctx.enc)
        for o in options:
            if o.targets[0] == aim_at and len(o.targets) == 1:
                t = ctx.enc.state.actors[aim_at]
                w = R.traits(ctx.enc, ctx.actor).weapons[o.weapon or ""]
                aim = min(r.aim_max_dice, tactics._aim_dice(ctx.enc, ctx.actor, aim_at) + r.aim_dice)
                pool = tactics.pool_dice(ctx.enc, ctx.actor) + aim
                shot = plain_attack_shot(ctx, w, t, cell, o.mode, 0, o.called, pool)
                if shot is not None:
                    best = max(best, tactics.evaluate(ctx, shot)[1] - (o.harm - o.value))
    return best


def plain_choose(enc: object, actor: str, style: tactics.Style, ctx: tactics.Context) -> tuple[tactics.Option, float]:
    """tactics._choose as it was: every shot from here listed as an option of its own, then the scan."""
    T = tactics
    me = enc.state.actors[actor]  # type: ignore[attr-defined]
    here = (me.x, me.y)
    r = R.rules(enc)  # type: ignore[arg-type]
    if not ctx.foes:
        return T.Option(0.0, "hold"), 0.0
    crowd = enc.crowd  # type: ignore[attr-defined]
    adjacent = [enc.state.actors[fid] for _, fid in crowd.within(me.x, me.y, crowd.other_sides(me.side), 1)]  # type: ignore[attr-defined]
    stay = style.threat_weight * T.THREAT_ROUNDS * T.threat_at(ctx, here)
    loaded = T._loaded(enc, actor)  # type: ignore[arg-type]
    options: list[tactics.Option] = []
    if r.edition >= T.DEFENCE_EDITION:
        gain = style.own_weight * T.partial_prevents(ctx)
        for partial in (False, True) if gain > 0.0 else (False,):
            for o in T.shot_options(ctx, here, here=True, partial=partial, weapons=loaded):
                value = o.value - stay + (gain if partial else 0.0)
                options.append(
                    T.Option(
                        value, o.kind, o.targets, o.weapon, o.mode, o.called, odds=o.odds, harm=o.harm, partial=partial
                    )
                )
        for partial in (False, True) if gain > 0.0 else (False,):
            options += T._close_options(ctx, adjacent, stay - (gain if partial else 0.0), partial=partial)
    else:
        for o in T.shot_options(ctx, here, here=True, partial=bool(adjacent), weapons=loaded):
            options.append(
                T.Option(o.value - stay, o.kind, o.targets, o.weapon, o.mode, o.called, odds=o.odds, harm=o.harm)
            )
        options += T._close_options(ctx, adjacent, stay)
    nxt = T.NEXT_ACTION if T._more_to_come(enc, actor) else T.NEXT_ROUND  # type: ignore[arg-type]
    for w in R.traits(enc, actor).firearms:  # type: ignore[arg-type]
        if me.ammo.get(w.name, 0) <= 0 and me.spare.get(w.name, 0) > 0 and w.magazine:
            later = T._best_shot_from(ctx, here, [w])
            options.append(T.Option(nxt * later + 0.02 - stay, "reload", weapon=w.name))
            break
    if loaded:
        plain = T._best_shot_from(ctx, here, loaded)
        for f in ctx.foes[:3]:
            if (
                T._aim_dice(enc, actor, f.id) < r.aim_max_dice  # type: ignore[arg-type]
                and not adjacent
                and enc.battlefield.sees(here, (f.x, f.y))  # type: ignore[attr-defined]
            ):
                later = plain_best_shot_from(ctx, here, loaded, aim_at=f.id)
                if later > plain:
                    options.append(T.Option(nxt * (later - plain) - stay, "aim", (f.id,)))
    if not adjacent:
        options += T._move_options(ctx, loaded, nxt, T._best_value(options))
    options.append(T.Option(-stay, "hold"))
    best = options[0]
    for o in options[1:]:
        if o.value > best.value + 1e-12:
            best = o
    return best, stay


def plain_cover_dice(field_: Battlefield, dice: dict[str, int], shooter: tactics.Cell, target: tactics.Cell) -> int:
    """The cover dice a target gets against a shot (ZC-COVER-1), as tactics read them of Battlefield.cover_between."""
    found = field_.cover_between(shooter, target, lambda lvl: dice.get(lvl, 0))
    return dice.get(found.level, 0) if found is not None else 0


def plain_wants_extra_action(enc: object, actor: str) -> int:
    t = R.traits(enc, actor)  # type: ignore[arg-type]
    if t.undead or t.policy not in ("aggressive", "cautious"):
        return 0
    weapon, need = policies._firearm(enc, actor)  # type: ignore[arg-type]
    a = enc.state.actors[actor]  # type: ignore[attr-defined]
    if weapon is None or need is not None or a.ammo.get(weapon.name, 0) < 4 or R.worst_level(a) >= INCAPACITATED:
        return 0
    return 1 if tactics.extra_action_worth(enc, actor) else 0  # type: ignore[arg-type]


# ----------------------------------------------------------------- the fights, checked call by call


def _scenario(name: str, rounds: int | None) -> object:
    path = SCENARIOS / f"{name}.toml"
    text = read_scenario_text(path)
    if rounds is not None:
        lines = [f"round_limit = {rounds}" if line.startswith("round_limit") else line for line in text.splitlines()]
        text = "\n".join(lines) + "\n"
    return build_scenario(str(path), text)


def checked_fights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[str, Counter[str]]]:
    """Play the fights with each shortened function checked against its plain computation; yields per fight the
    calls checked and the shortcuts met (an AssertionError names the first difference)."""
    seen: Counter[str] = Counter()
    shot_options, foes, cover_cells = tactics._shot_options, tactics._foes, tactics._cover_cells
    extra_action_worth, wants_defence = tactics.extra_action_worth, tactics.wants_defence
    foe_threat, wants_extra_action, attack_value = tactics._foe_threat, zcorps.wants_extra_action, tactics._attack_value

    def checked_shot_options(ctx, cell, here, partial, weapons, pool_offset, quick):  # type: ignore[no-untyped-def]
        parts = tactics._parts(ctx.enc)
        before = len(parts.values)
        got = shot_options(ctx, cell, here, partial, weapons, pool_offset, quick)
        assert got == plain_shot_options(ctx, cell, here, partial, weapons, pool_offset, quick), (ctx.actor, cell)
        seen["shot lists"] += 1
        low = ctx.style.head_min_odds - tactics.HEAD_SKIP_MARGIN
        # a body shot listed under the style's odds: its called shot was left unscored
        seen["called shots left unscored"] += sum(1 for o in got if o.called is None and o.odds < low)
        # fewer odds worked out than shots listed: the others were read from the fight's
        seen["shots read from an earlier decision"] += len(got) > len(parts.values) - before
        # target parts of other targets or cells holding the same dice share one number (and their odds)
        numbers = [v[1] for v in parts.aimed.values() if v is not None]
        seen["target parts sharing odds"] += len(numbers) > len(set(numbers))
        return got

    def checked_foes(enc, actor):  # type: ignore[no-untyped-def]
        got = foes(enc, actor)
        assert [f.id for f in got] == [f.id for f in plain_foes(enc, actor)], actor
        seen["foe lists"] += 1
        me = enc.state.actors[actor]
        crowd, others = enc.crowd, enc.crowd.other_sides(me.side)
        enough = [len(crowd.within(me.x, me.y, others, r)) >= tactics.FOES_LOOKED_AT for r in tactics.NEAR_RADII]
        able = sum(crowd.able_count(side) for side in others)
        seen["near radius enough"] += any(enough) and able > tactics.SCAN_ABLE
        seen["each foe looked at"] += tactics.FOES_LOOKED_AT < able <= tactics.SCAN_ABLE
        return got

    def checked_cover_cells(enc, actor, reach, foe):  # type: ignore[no-untyped-def]
        got = cover_cells(enc, actor, reach, foe)
        assert got == plain_cover_cells(enc, actor, reach, foe), (actor, foe)
        seen["cover cell lists"] += 1
        seen["full cover cell lists"] += len(got) == tactics.MAX_COVER_CELLS  # where the nearest stop the search
        me = enc.state.actors[actor]
        seen["best cover already"] += tactics._cover_dice(enc, foe, (me.x, me.y)) >= tactics._most_cover_dice(enc)
        return got

    def checked_extra_action_worth(enc, actor):  # type: ignore[no-untyped-def]
        got = extra_action_worth(enc, actor)
        assert got == plain_extra_action_worth(enc, actor), actor
        seen["extra actions weighed"] += 1
        seen["extra actions taken"] += got
        return got

    def checked_wants_defence(enc, defender, attacker, incoming, style, *, melee):  # type: ignore[no-untyped-def]
        got = wants_defence(enc, defender, attacker, incoming, style, melee=melee)
        # each half with a context of its own
        prevented = tactics.harm_prevented(enc, defender, attacker, incoming, style, melee=melee)
        assert got == (prevented > 1e-9 and prevented > tactics.action_worth(enc, defender, style) + 1e-9), defender
        seen["defences weighed"] += 1
        seen["defences taken"] += got
        return got

    def checked_foe_threat(ctx, foe, cell, guard=None):  # type: ignore[no-untyped-def]
        got = foe_threat(ctx, foe, cell, guard)
        assert got == plain_foe_threat(ctx, foe, cell, guard), (ctx.actor, foe.id, cell, guard)
        seen["foe threats"] += 1
        seen["foe threats read again"] += foe.id in ctx.foe_odds
        return got

    def checked_wants_extra_action(enc, actor):  # type: ignore[no-untyped-def]
        got = wants_extra_action(enc, actor)
        assert got == plain_wants_extra_action(enc, actor), actor
        seen["extra actions asked"] += 1
        return got

    def checked_attack_value(ctx, weapon, target, cell, mode, nth, called, pool):  # type: ignore[no-untyped-def]
        kept = len(tactics._parts(ctx.enc).values)
        got = attack_value(ctx, weapon, target, cell, mode, nth, called, pool)
        shot = plain_attack_shot(ctx, weapon, target, cell, mode, nth, called, pool)
        assert got == (None if shot is None else tactics.evaluate(ctx, shot)), (ctx.actor, target.id, cell, mode)
        seen["shots read from an earlier decision"] += got is not None and kept == len(tactics._parts(ctx.enc).values)
        return got

    choose = tactics._choose

    def checked_choose(enc, actor, style, ctx=None):  # type: ignore[no-untyped-def]
        ctx = tactics.context(enc, actor, style) if ctx is None else ctx
        got = choose(enc, actor, style, ctx)
        with monkeypatch.context() as plainly:
            plainly.setattr(tactics, "LATER_MOST", float("inf"))  # every move scored
            whole = tactics.context(enc, actor, style)
            assert got == plain_choose(enc, actor, style, whole), actor  # every shot from here listed
        seen["decisions"] += 1
        # a move's end scored is a shot list from there (the actor's own cell and the moves' ends are the cells asked)
        seen["moves left unscored"] += len({k[0] for k in whole.lists}) > len({k[0] for k in ctx.lists})
        return got

    line_cover_dice = tactics._line_cover_dice

    def checked_line_cover_dice(field_, covering, dice, shooter, target, boxes=None):  # type: ignore[no-untyped-def]
        got = line_cover_dice(field_, covering, dice, shooter, target, boxes)
        assert got == plain_cover_dice(field_, dice, shooter, target), (shooter, target)
        seen["lines of fire"] += 1
        seen["lines of fire giving cover"] += got > 0
        seen["lines of fire missing every cover"] += boxes is not None and all(
            tactics._misses(shooter, target, box) for box in boxes
        )
        return got

    monkeypatch.setattr(tactics, "_line_cover_dice", checked_line_cover_dice)
    in_stop = tactics._in_stop

    def checked_in_stop(field_, here, goal, stop):  # type: ignore[no-untyped-def]
        got = in_stop(field_, here, goal, stop)
        if got:  # the walk would end before its first step, whoever stands in the way
            assert field_.path_toward(here, goal, 10, stop=stop) == [], (here, goal, stop)
            seen["paths not searched"] += 1
        return got

    monkeypatch.setattr(tactics, "_in_stop", checked_in_stop)
    monkeypatch.setattr(tactics, "_choose", checked_choose)
    monkeypatch.setattr(tactics, "_attack_value", checked_attack_value)
    monkeypatch.setattr(zcorps, "wants_extra_action", checked_wants_extra_action)
    monkeypatch.setattr(tactics, "_foe_threat", checked_foe_threat)
    monkeypatch.setattr(tactics, "wants_defence", checked_wants_defence)
    monkeypatch.setattr(tactics, "extra_action_worth", checked_extra_action_worth)
    monkeypatch.setattr(tactics, "_shot_options", checked_shot_options)
    monkeypatch.setattr(tactics, "_foes", checked_foes)
    monkeypatch.setattr(tactics, "_cover_cells", checked_cover_cells)
    for name, seeds, rounds in FIGHTS:
        scenario = _scenario(name, rounds)
        for seed in seeds:
            seen.clear()
            run_scenario(scenario, seed=str(seed), log_path=tmp_path / f"{name}-{seed}.jsonl")  # type: ignore[arg-type]
            yield f"{name} seed {seed}", Counter(seen)


def test_the_shortcuts_answer_as_the_plain_computation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    total: Counter[str] = Counter()
    for _, seen in checked_fights(monkeypatch, tmp_path):
        total += seen
    # every check met real decisions, and every shortcut was taken somewhere (the horde packs the dead close)
    met = ("shot lists", "foe lists", "cover cell lists", "full cover cell lists", "near radius enough")
    met += ("best cover already", "extra actions weighed", "extra actions taken", "defences weighed", "defences taken")
    met += ("foe threats", "foe threats read again", "extra actions asked", "shots read from an earlier decision")
    met += ("decisions", "moves left unscored", "paths not searched", "target parts sharing odds")
    met += ("each foe looked at", "lines of fire", "lines of fire giving cover", "lines of fire missing every cover")
    for what in (*met, "called shots left unscored"):
        assert total[what] > 0, (what, total)


BREAKS = {
    "a called shot left unscored whatever the body shot's odds": ("HEAD_SKIP_MARGIN", -1.0),
    "no cell looked for, as if the actor always had the best cover": ("_most_cover_dice", lambda enc: 0),
    "the nearest foes asked within the smallest radius only": (
        "_nearest_within",
        lambda crowd, x, y, sides, metres, count: crowd.within(x, y, sides, tactics.NEAR_RADII[0]),
    ),
    "a line of fire passed over when it meets a cover's cells near their edge": ("BOX_SLACK", -0.45),
    "the cells giving cover on a line of fire without the walls": (
        "_covering_of",
        lambda field_: {c: v for c, v in _real_covering_of(field_).items() if isinstance(v, tuple)},
    ),
    "the few foes looked at each, in the order the crowd lists them": (
        "actors_within",
        lambda members, x, y, metres: [
            (d, aid) for m in members for aid, (ax, ay) in m.items() if (d := max(abs(ax - x), abs(ay - y))) <= metres
        ],
    ),
    "a fight's shot parts kept without the target's cell": (
        "_aimed_key",
        lambda ctx, weapon, target, cell: (ctx.actor, weapon.name, target.id, cell),
    ),
    "a fight's shot parts numbered without the target's wound level": (
        "_number",
        lambda enc, part: tactics._parts(enc).number(part[:4] if isinstance(part, tactics._TargetPart) else part),
    ),
    "a blow's odds against a defence kept by the blow alone": (
        "_guarded_blow",
        lambda code, vs, weight, guard: tactics.p_at_least(code, vs) * weight,
    ),
    "a foe's odds kept for the fight, not the decision": ("_foe_odds", lambda ctx, foe: _kept_foe_odds(ctx, foe)),
    "no survivor asked about an extra action": ("_may_want_extra", lambda enc: frozenset()),
    "no move scored whatever it could be worth": ("LATER_MOST", -1e9),
    "the shot held from here the first, whatever the others are worth": ("TIE_MARGIN", 1e9),
    "a path toward a foe beyond the stop not searched": (
        "_in_stop",
        lambda field_, here, goal, stop: stop > 0 and R.distance(here, goal) <= stop + 15 and field_.sees(here, goal),
    ),
}


_real_covering_of = tactics._covering_of
_FIGHT_FOE_ODDS: dict[tuple[int, str], tactics._FoeOdds] = {}
_real_foe_odds = tactics._foe_odds


def _kept_foe_odds(ctx: tactics.Context, foe: ActorState) -> tactics._FoeOdds:
    """A foe's odds kept for the whole fight (broken: its pool changes with its wounds)."""
    key = (id(ctx.enc), foe.id)
    if key not in _FIGHT_FOE_ODDS:
        _FIGHT_FOE_ODDS[key] = _real_foe_odds(ctx, foe)
    return _FIGHT_FOE_ODDS[key]


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_the_check_finds_a_broken_shortcut(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, broken: str) -> None:
    """Each shortcut broken on purpose: the plain computation answers otherwise, and the check sees it."""
    _FIGHT_FOE_ODDS.clear()
    name, broken_with = BREAKS[broken]
    monkeypatch.setattr(policies if name == "_may_want_extra" else tactics, name, broken_with)
    with pytest.raises(AssertionError):
        for _ in checked_fights(monkeypatch, tmp_path):
            pass


# ----------------------------------------------------------------- the exact odds, read as before


def plain_roll_pmf(code: DCode) -> tuple[tuple[int, float], ...]:
    out: list[tuple[int, float]] = []
    left = 1.0
    for t, p in roll_distribution(code).items():
        out.append((t, float(p)))
        left -= float(p)
        if left < tactics.PMF_TAIL:
            break
    return tuple(out)


def plain_modifier_pmf(up: int, down: int) -> tuple[tuple[int, float], ...]:
    sums: dict[int, Fraction] = {0: Fraction(1)}
    for sign in [1] * up + [-1] * down:
        nxt: dict[int, Fraction] = {}
        for t, p in sums.items():
            for face in range(1, 7):
                nxt[t + sign * face] = nxt.get(t + sign * face, Fraction(0)) + p / 6
        sums = nxt
    return tuple((t, float(p)) for t, p in sorted(sums.items()))


def plain_cdf(table: tuple[int, tuple[float, ...]], v: int) -> float:
    low, cum = table
    return 0.0 if v < low else (cum[v - low] if v - low < len(cum) else 1.0)


def plain_excess_cdf(damage: DCode, resistance: DCode) -> tuple[int, tuple[float, ...]]:
    dmg = plain_roll_pmf(DCode(damage.dice, 0)) or ((0, 1.0),)
    res = plain_roll_pmf(resistance) or ((0, 1.0),)
    diff: dict[int, float] = {}
    for d, pd in dmg:
        for r, pr in res:
            diff[d - r] = diff.get(d - r, 0.0) + pd * pr
    out, acc = [], 0.0
    for v in range(min(diff), max(diff) + 1):
        acc += diff.get(v, 0.0)
        out.append(acc)
    return min(diff), tuple(out)


def plain_harm_table(damage: DCode, resistance: DCode, level: int, undead: bool, bands: tuple[int, ...]) -> list[float]:
    table = plain_excess_cdf(damage, resistance)
    worth = tactics.UNDEAD_WORTH if undead else tactics.HUMAN_WORTH
    top = MORTALLY if undead else DEAD
    now = worth[min(level, top)]

    def after(lv: int) -> float:
        return worth[min(lv if lv > level else level + 1, top)] - now

    edges = [0, *bands[:4]]
    gains = [after(lv) for lv in (STUNNED, WOUNDED, INCAPACITATED, MORTALLY)]
    out: list[float] = []
    added = 0
    while True:
        total = 0.0
        for i, gain in enumerate(gains):
            total += (plain_cdf(table, edges[i + 1] - added) - plain_cdf(table, edges[i] - added)) * gain
        total += (1.0 - plain_cdf(table, edges[4] - added)) * after(DEAD)
        out.append(total)
        if plain_cdf(table, -added) <= 0.0 and plain_cdf(table, edges[4] - added) <= 0.0:
            return out
        added += 1


def plain_from_need(code: DCode, need: int, head: int, full_margin: bool, harm: Sequence[float]) -> tuple[float, float]:
    last = len(harm) - 1
    hit = value = 0.0
    for t, pt in plain_roll_pmf(code):
        margin = t - need
        if margin < 0:
            continue
        hit += pt
        added = head + (margin if full_margin else margin // 5)
        value += pt * harm[added if added < last else last]
    return hit, value


CODES = [DCode(dice, pips) for dice in range(1, 7) for pips in (0, 1, 2)]


def test_the_roll_and_difficulty_dice_read_as_from_the_exact_listing() -> None:
    """The first totals' exact masses (no Fraction, the Joker followed as far as needed), each rounded once: the
    very floats read from roll_distribution's listing; the difficulty dice counted in whole numbers, the very
    floats of the Fraction sums."""
    for code in [*CODES, DCode(9, 1), DCode(12, 2)]:
        assert tactics._roll_pmf(code) == plain_roll_pmf(code), code
    for up in range(6):
        for down in range(3):
            assert tactics.modifier_pmf(up, down, 0) == plain_modifier_pmf(up, down), (up, down)


def test_the_wound_ladder_and_the_margin_read_as_the_plain_sums() -> None:
    """The damage less the resistance, the worth of a hit by points added and the worth given a need: each float
    summed in the same order as the plain loops (not merely close: equal)."""
    bands = (3, 8, 12, 15)
    for damage in (DCode(2), DCode(4, 1), DCode(6, 2)):
        for resistance in (DCode(1), DCode(3, 1), DCode(5)):
            assert tactics._excess_cdf(damage, resistance) == plain_excess_cdf(damage, resistance)
            for level, undead in ((-1, False), (1, False), (3, True), (-1, True)):
                harm = tactics.harm_table(damage, resistance, level, undead, bands)
                assert list(harm) == plain_harm_table(damage, resistance, level, undead, bands)
                for code in (DCode(1), DCode(4, 2)):
                    for need in range(-2, 30, 4):
                        for head, full in ((0, False), (2, True)):
                            want = plain_from_need(code, need, head, full, harm)
                            assert tactics._from_need(code, need, head, full, harm) == want


def test_the_odds_of_a_total_read_from_the_kept_masses_are_the_exact_odds_rounded_once() -> None:
    """P(total >= vs) from the roll's kept masses: the float of the oracle's exact Fraction, below the lowest total,
    through the Joker's sixes and beyond the masses kept (where the oracle answers)."""
    for code in CODES:
        top = tactics._masses(code).bound
        for vs in [*range(-1, 45), top, top + 1, top + 2, top + 40]:
            assert tactics.p_at_least(code, vs) == float(success_probability(code, vs)), (code, vs)


# ----------------------------------------------------------------- the cover a line of fire gives, on random maps

LEVELS = ("quarter", "half", "three_quarters", "none")


@st.composite
def cover_maps(draw: st.DrawFn) -> MapSpec:
    """A map with up to five rectangles of wall (full or low, of any cover level) and up to five cover zones, which
    may overlap each other and the walls (the same zone twice too)."""
    width, height = draw(st.integers(2, 16)), draw(st.integers(2, 16))

    def rect() -> tuple[int, int, int, int]:
        x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
        return x, y, draw(st.integers(1, width - x)), draw(st.integers(1, height - y))

    walls = []
    for i in range(draw(st.integers(0, 5))):
        x, y, w, h = rect()
        height_ = draw(st.sampled_from(["full", "low"]))
        walls.append(WallSpec(name=f"w{i}", x=x, y=y, w=w, h=h, height=height_, cover=draw(st.sampled_from(LEVELS))))
    zones = []
    for i in range(draw(st.integers(0, 5))):
        x, y, w, h = rect()
        zones.append(CoverZone(name=f"z{i}", x=x, y=y, w=w, h=h, level=draw(st.sampled_from(LEVELS))))
    if zones and draw(st.booleans()):
        zones.append(zones[0])
    return MapSpec(width=width, height=height, walls=walls, cover=zones)


@given(st.data())
@settings(max_examples=150, deadline=None)
def test_the_cover_of_a_line_of_fire_reads_as_cover_between(data: st.DataObject) -> None:
    """tactics._line_cover_dice looks only at the line's cells that may give cover: the same dice as the best cover
    Battlefield.cover_between finds, ranked by its dice (some levels worth none, or less than none)."""
    m = data.draw(cover_maps())
    field_ = Battlefield(m)
    covering = tactics._covering_of(field_)
    dice = {"quarter": 1, "half": data.draw(st.sampled_from([2, 0])), "three_quarters": 4, "none": -1}

    def cell() -> tactics.Cell:
        return data.draw(st.tuples(st.integers(0, m.width - 1), st.integers(0, m.height - 1)))

    boxes = tactics._cover_boxes_of(field_)
    for _ in range(20):
        shooter, target = cell(), cell()
        plain = plain_cover_dice(field_, dice, shooter, target)
        assert tactics._line_cover_dice(field_, covering, dice, shooter, target) == plain, (shooter, target)
        # and with the lines that miss every cover's rectangle not walked
        assert tactics._line_cover_dice(field_, covering, dice, shooter, target, boxes) == plain, (shooter, target)


def test_a_segment_said_to_miss_a_cover_misses_each_of_its_cells() -> None:
    """tactics._misses against the cells Battlefield.line lists, for every pair of cells of a small map and rectangles
    of one cell and of three: a segment said to miss a rectangle lists none of its cells (the shortcut's exactness);
    and the segments that cross it are not all said to miss it, nor all those that do not said to meet it."""
    field_ = Battlefield(MapSpec(width=9, height=9))
    every = [(x, y) for x in range(9) for y in range(9)]
    for box in [(4, 4, 4, 4, None), (3, 4, 5, 4, None), (2, 1, 2, 6, None)]:
        inside = {(x, y) for x in range(box[0], box[2] + 1) for y in range(box[1], box[3] + 1)}
        said: Counter[tuple[bool, bool]] = Counter()
        for a in every:
            for b in every:
                crossed = bool({c for pair in field_.line(a, b) for c in pair} & inside)
                missed = tactics._misses(a, b, box)
                assert not (missed and (crossed or a in inside or b in inside)), (box, a, b)
                said[(missed, crossed)] += 1
        assert said[(True, False)] and said[(False, True)], said
