"""Benchmark: speed and memory figures, as ratios measured in one run.

    python tools/bench.py                       # full figures (about 30 s on 2 cores)
    python tools/bench.py --quick               # smaller counts, no Dask (about 10 s), a smoke check
    python tools/bench.py --json                # the figures as one JSON object on stdout
                                                #   (the readable report goes to stderr)
    python tools/bench.py --json bench.json     # ... or into a file (the report stays on stdout)
    python tools/bench.py --workers-list 1,2,4,8,16   # batch fights/s per worker count

For each system's duel (scenarios/point_zero/duel.toml, scenarios/zcorps/duel.toml,
scenarios/d100/duel.toml): fights/s and events/s running with a JSONL log,
bytes/event, events/s replaying those logs (``fracas.services.run.replay_log``),
recorded rolls/s, verify events/s (``fracas.services.verify.verify_throughput`` on
>= 10,000 events of duel logs, then on one log of >= 10,000 events of the
system's long scenario: tests/data/pz_endless.toml, zc_horde.toml,
d100_siege.toml; verify figures are CPU time, the work done) and
``overhead_vs_bare``: the engine's time
per duel (no log) over the time of the same duel's rules written as a plain
Python loop (no events, no SimPy, no log), both drawing derived dice. Each
bare loop is checked against the engine: over the same seeds the win rates
and the mean number of rounds must agree within sampling error; the
``sanity`` line says so, and counts the seeds whose fight ends the same way
(the bare loops draw their dice in the engine's order, so they all should).
Then the scale figures (``--scale`` runs only them): on a Point Zéro open map (no
wall, two battle lines 16 m apart, three rounds, JSONL log, CPU time, rules edition 2's policies), the cost
of one actor-round at 200 and 3,200 actors and their ratio (the crowd index keeps it flat: target <= 1.5),
the same for the competent AI (the default rules edition) and for d100, a 10,000-actor fight of three rounds (not
with ``--quick``), and the Z-Corps horde (scenarios/zcorps/horde.toml: run time, verify ms per 10,000
events).
Then the 3-versus-3 warehouse, a long log (replay speed and memory), batch fights/s per worker count with the scaling
efficiency (``fracas.services.batch.bench_batch``), and Dask-local
versus the process pool (``fracas.services.batch.bench_dask_vs_pool``, not with
``--quick``).

The last line is ``overhead_vs_bare: X`` for the Point Zéro duel. Nothing
here is asserted: the figures are for people (docs/performance.md).
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from fracas.core.dice import DerivedDice
from fracas.core.encounter import Encounter
from fracas.core.errors import FracasError
from fracas.core.quality import PolicyQuality, merge_quality, summary
from fracas.core.scenario import MAX_MAP, LoadedScenario, _load_scenario, load_scenario
from fracas.core.system import get_system
from fracas.services.batch import bench_batch, bench_dask_vs_pool, build_scenario
from fracas.services.quality import scenario_quality, shipped_scenarios
from fracas.services.run import replay_log, run_scenario
from fracas.services.verify import bench_verify, verify_throughput

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "scenarios" / "point_zero" / "duel.toml"
ZC_DUEL = ROOT / "scenarios" / "zcorps" / "duel.toml"
D100_DUEL = ROOT / "scenarios" / "d100" / "duel.toml"
TEAMS = ROOT / "scenarios" / "point_zero" / "warehouse.toml"
ENDLESS = ROOT / "tests" / "data" / "pz_endless.toml"
ZC_HORDE = ROOT / "tests" / "data" / "zc_horde.toml"
D100_SIEGE = ROOT / "tests" / "data" / "d100_siege.toml"

Outcome = tuple[str | None, int]  # (winning side or None for a draw, rounds)


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# ------------------------------------------------------- the bare loops
#
# Each bare loop is one duel's rules as a plain Python loop: the same
# derived dice (fracas.core.dice.DerivedDice), no events, no SimPy, no log, no
# policy objects. It mirrors what the engine does in that duel under the
# duel's policies, and nothing the duel cannot reach. It returns the winning
# side (None: a draw) and the rounds played.


def bare_duel(seed: str) -> Outcome:
    """The Point Zéro duel as a plain loop (same dice stream, no events, no SimPy).

    Mirrors scenarios/point_zero/duel.toml under rules edition 1's aggressive
    policy (``Duel.bare_edition``): both shoot at 2 m (short range 10, gloom +2)
    every round until one is down (Critique/Sonné included).
    """
    dice = DerivedDice(seed)

    def d6(n: int) -> list[int]:
        return dice.draw(n, 6, actor="", purpose="")

    people = {
        "red": {"PER": 3, "ADR": 3, "VIG": 3, "INIT": 3, "DEP": 18, "skill": 4, "res": 3, "ammo": 12, "spare": 2},
        "blue": {"PER": 3, "ADR": 2, "VIG": 3, "INIT": 3, "DEP": 15, "skill": 4, "res": 3, "ammo": 12, "spare": 2},
    }
    marks = {k: {"physical": [0, 0, 0, 0], "shock": [0, 0, 0, 0]} for k in people}
    jammed = dict.fromkeys(people, False)
    dead = dict.fromkeys(people, False)
    boxes = [3, 2, 1, 1]

    def worst(k: str) -> int:
        w = -1
        for m in marks[k].values():
            for i in range(3, -1, -1):
                if m[i]:
                    w = max(w, i)
                    break
        return w

    def able(k: str) -> bool:
        return not dead[k] and worst(k) < 2

    def attr(k: str, name: str) -> int:
        w, base = worst(k), people[k][name]
        return 1 if w >= 2 else (max(1, base - 1) if w == 1 else base)

    def mark(k: str, monitor: str, level: int) -> None:
        m = marks[k][monitor]
        while level < 4 and m[level] >= boxes[level]:
            level += 1
        if level >= 4:
            if monitor == "physical":
                dead[k] = True
            return
        m[level] += 1

    rounds = 0
    for rnd in range(1, 21):
        acting = [k for k in people if able(k)]
        if len(acting) < 2:
            break
        rounds = rnd
        init = {k: sum(d6(people[k]["INIT"])) for k in acting}
        order = sorted(acting, key=lambda k: (-init[k], -people[k]["ADR"], -people[k]["DEP"]))
        for k in order:
            foe = "blue" if k == "red" else "red"
            if not able(k) or not able(foe):
                continue
            p = people[k]
            if jammed[k]:
                jammed[k] = False
                continue
            if p["ammo"] == 0:
                if p["spare"]:
                    p["spare"] -= 1
                    p["ammo"] = 12
                continue
            p["ammo"] -= 1
            n, keep = p["skill"], attr(k, "PER")
            faces = d6(n)
            total = sum(sorted(faces, reverse=True)[:keep])
            margin = total - 12
            if margin < 0:
                if 2 * faces.count(1) > n:
                    jammed[k] = True
                continue
            if 2 * faces.count(6) > n:
                margin *= 2
            damage = sum(d6(4)) + margin
            sb = people[foe]["VIG"] + 3
            save = sorted(d6(people[foe]["res"]), reverse=True)[: attr(foe, "VIG")]
            if sum(save) >= 10:
                sb += sum(save) - 10
            if damage < sb:
                mark(foe, "shock", 0)
            elif damage // sb >= 5:
                dead[foe] = True
            else:
                mark(foe, "physical", min(damage // sb, 4) - 1)
    standing = [k for k in people if able(k)]
    return (standing[0] if len(standing) == 1 else None), rounds


#: scenarios/zcorps/duel.toml, as the bare loop needs it: D codes as (dice, pips).
ZC_PEOPLE: dict[str, dict[str, Any]] = {
    "dutch": {
        "side": "red",
        "agilite": (3, 1),
        "perception": (3, 0),
        "firearms": (4, 1),
        "stamina": (3, 1),
        "resistance": (3, 0),  # Puissance 3D, no armour
        "damage": 3,  # 3D
        "magazine": 17,
        "spare": 2,
        "cp": 2,
    },
    "reyes": {
        "side": "blue",
        "agilite": (3, 0),
        "perception": (3, 0),
        "firearms": (4, 0),
        "stamina": (3, 1),  # no Stamina skill: Puissance 3D+1
        "resistance": (4, 1),  # Puissance 3D+1 + armour 1D
        "damage": 3,
        "magazine": 15,
        "spare": 2,
        "cp": 2,
    },
}
ZC_PENALTY = (1, 1, 2, 3)  # dice lost with Stunned, Wounded, Severely Wounded, Incapacitated marked


def bare_zcorps_duel(seed: str) -> Outcome:
    """The Z-Corps duel's rules as a plain loop (same derived dice, no events, no SimPy).

    Mirrors scenarios/zcorps/duel.toml under the aggressive policy: Agilité
    initiative (an action per full 10, at total, total-10...), two rounds
    semi-automatic at 6 m (difficulty 10 - 1D rolled, damage +1D), a single
    shot when the ammunition runs low, reloads; the wild die exploding on 6
    and its first 1 removing the highest plain die; CP dice bought when hurt
    and short by at most 3 a die (and on resistance when the hit would
    otherwise incapacitate); damage + the whole margin against Puissance +
    armour, the wound ladder with its dice penalties, escalation, Stunned
    fading at the end of the next round, the stamina roll when
    Incapacitated. Out of every round it would close in and brawl; the
    duel never gets there (it holds instead).
    """
    draw = DerivedDice(seed).draw

    def d6(n: int) -> list[int]:
        return draw(n, 6, actor="", purpose="")

    def joker() -> int:
        face = d6(1)[0]
        total = face
        while face == 6:
            face = d6(1)[0]
            total += face
        return total

    def roll(dice: int, pips: int) -> int:
        """ZC-DICE-1, ZC-WILD-1/2: the total of a D code (0 for a pool of no dice)."""
        if dice <= 0:
            return 0
        plain = d6(dice - 1) if dice > 1 else []
        first = d6(1)[0]
        wild = first
        face = first
        while face == 6:
            face = d6(1)[0]
            wild += face
        kept = sum(plain)
        if first == 1 and plain:
            kept -= max(plain)
        return kept + wild + pips

    ammo = {k: p["magazine"] for k, p in ZC_PEOPLE.items()}
    spare = {k: p["spare"] for k, p in ZC_PEOPLE.items()}
    cp = {k: p["cp"] for k, p in ZC_PEOPLE.items()}
    marked = {k: [False] * 6 for k in ZC_PEOPLE}
    out = dict.fromkeys(ZC_PEOPLE, False)
    stunned_until: dict[str, int] = {}
    ids = list(ZC_PEOPLE)

    def worst(k: str) -> int:
        m = marked[k]
        for i in range(5, -1, -1):
            if m[i]:
                return i
        return -1

    def penalty(k: str) -> int:
        m = marked[k]
        return max((ZC_PENALTY[lv] for lv in range(4) if m[lv]), default=0)

    def cp_wanted(k: str, shortfall: int, stakes: int) -> int:
        left = cp[k]
        if stakes < 1 or left <= 0 or shortfall <= 0:
            return 0
        need = (shortfall + 2) // 3
        return need if need <= min(3, left) else 0

    def cp_dice(k: str, n: int) -> int:
        """ZC-CP-1: n CP dice, one of them a Joker whose 1 is plain."""
        cp[k] -= n
        return (sum(d6(n - 1)) if n > 1 else 0) + joker()

    def key(k: str) -> tuple[int, int, int, int]:
        p = ZC_PEOPLE[k]
        return (-p["agilite"][0], -p["agilite"][1], -p["perception"][0], -p["perception"][1])

    rounds = 0
    for rnd in range(1, 21):
        rounds = rnd
        inits = {}
        for k in ids:
            dice, pips = ZC_PEOPLE[k]["agilite"]
            inits[k] = max(1, min(roll(dice - penalty(k), pips), 499))
        order = sorted(ids, key=lambda k: (-inits[k], *key(k)))
        slots = sorted(
            (max(1, inits[k] - 10 * i), rank, k) for rank, k in enumerate(order) for i in range(max(1, inits[k] // 10))
        )
        slots.sort(key=lambda s: (-s[0], s[1]))
        over = False
        for _, _, k in slots:
            foe = ids[1] if k == ids[0] else ids[0]
            p = ZC_PEOPLE[k]
            left = ammo[k]
            if left == 0:
                if spare[k]:
                    spare[k] -= 1
                    ammo[k] = p["magazine"]
                continue
            semi = left >= 2 and left + spare[k] * p["magazine"] >= 8
            difficulty, damage_dice = 10, p["damage"]
            ammo[k] -= 2 if semi else 1
            if semi:
                difficulty -= d6(1)[0]
                damage_dice += 1
            stakes = 1 if worst(k) >= 1 else 0
            dice, pips = p["firearms"]
            dice -= penalty(k)
            if dice <= 0:
                continue  # automatic failure
            total = roll(dice, pips)
            n = cp_wanted(k, difficulty - total, stakes)
            if n:
                total += cp_dice(k, n)
            if total < difficulty:
                continue
            damage = roll(damage_dice, 0) + total - difficulty
            resistance = roll(*ZC_PEOPLE[foe]["resistance"])
            if damage - resistance > 8:
                n = cp_wanted(foe, damage - resistance - 8, max(stakes, 1))
                if n:
                    resistance += cp_dice(foe, n)
            excess = damage - resistance
            if excess <= 0:
                continue
            level = 0 if excess <= 3 else 1 if excess <= 8 else 3 if excess <= 12 else 4 if excess <= 15 else 5
            current = worst(foe)
            if level <= current:
                level = min(current + 1, 5)
            marked[foe][level] = True
            if level == 0:
                stunned_until[foe] = rnd + 1
            elif level >= 4:
                out[foe] = True
            elif level == 3 and roll(*ZC_PEOPLE[foe]["stamina"]) < 15:
                d6(10)  # minutes unconscious
                out[foe] = True
            if out[foe]:
                over = True
                break
        if over:
            break
        for k in ids:
            if stunned_until.get(k, 10**9) <= rnd:
                del stunned_until[k]
                marked[k][0] = False
    standing = [k for k in ids if not out[k]]
    return (ZC_PEOPLE[standing[0]]["side"] if len(standing) == 1 else None), rounds


#: scenarios/d100/duel.toml, as the bare loop needs it.
D100_PEOPLE: dict[str, dict[str, Any]] = {
    "vance": {
        "side": "security",
        "dex": 13,
        "con": 14,
        "hp": 14,
        "luck": 60,  # POU 12 x 5
        "skill": 60,  # stunner
        "parry": 55,
        "dodge": 30,
        "mechanics": 35,
        "armour": 1,  # heavy clothing
        "shield": 8,  # small shield: parries reduce gunfire damage by 8
        "reactions": ("parry", "dodge"),
        "stun": True,  # the security policy shoots in stun mode
        "damage": (1, 8, 0),
        "panne": 93,
        "energy": True,
        "magazine": 6,
        "reloads": 2,
    },
    "kestrel": {
        "side": "raider",
        "dex": 15,
        "con": 17,
        "hp": 13,
        "luck": 55,  # POU 11 x 5
        "skill": 60,  # handgun
        "parry": 0,
        "dodge": 60,
        "mechanics": 40,
        "armour": 8,  # kevlar
        "shield": None,  # nothing to parry with
        "reactions": ("dodge", "parry"),
        "stun": False,
        "damage": (1, 10, 2),
        "panne": 95,
        "energy": False,
        "magazine": 8,
        "reloads": 2,
    },
}
D100_DOUBLES = frozenset({11, 22, 33, 44, 55, 66, 77, 88, 99, 100})
D100_DODGE = {"critical_success": -50, "success": -30, "failure": 0, "critical_failure": 10}


def d100_band(roll: int, target: int, attack: bool) -> str:
    """D100-ROLL-1, D100-CRIT-1, D100-ATK-2: the band of a roll against a modified skill."""
    double = roll in D100_DOUBLES
    if roll == 1 or (roll != 100 and roll <= target):
        return "critical_success" if double or target - roll >= 41 else "success"
    if double and attack:
        return "fumble"
    return "critical_failure" if double or roll - target >= 41 else "failure"


def d100_dex_bonus(dex: int) -> int:
    for top, bonus in ((5, -2), (8, -1), (12, 0), (15, 1), (18, 2), (21, 3)):
        if dex <= top:
            return bonus
    return 3 + (dex - 21 + 2) // 3


def bare_d100_duel(seed: str) -> Outcome:
    """The d100 duel's rules as a plain loop (same derived dice, no events, no SimPy).

    Mirrors scenarios/d100/duel.toml under its policies: Vance (security)
    parries with a small shield and shoots to stun, Kestrel (raider) dodges
    and shoots to kill. Initiative 1D12 + DEX + bonus (ties: DEX, then
    1D12), a reload taking the whole round (no reaction meanwhile), the
    reaction and its band, the Panne roll, Luck and the malfunction table
    (misfire, jam, serious jam, broken; a broken stunner burns its wielder),
    the attack bands with every standing modifier, the fumble table (off
    balance, dropped, jam, prone, a stray shot with nobody near, hitting
    oneself), stun (CON x (4 - 1D4), tetanised 1D3+1 rounds or paralysed),
    lethal damage (critical maximum, armour, the parry's reduction), the HP
    effects (death, unconscious, dying, the major-wound CON x 5 roll,
    -10/-20 penalties), clearing jams, picking up, standing up.
    """
    draw = DerivedDice(seed).draw

    def d(sides: int) -> int:
        return draw(1, sides, actor="", purpose="")[0]

    P = D100_PEOPLE
    ids = list(P)
    hp = {k: P[k]["hp"] for k in ids}
    ammo = {k: P[k]["magazine"] for k in ids}
    spare = {k: P[k]["reloads"] for k in ids}
    weapon = dict.fromkeys(ids, "ready")  # ready | jammed | serious | broken | dropped
    unjam: dict[str, int | None] = dict.fromkeys(ids)
    tetanised = dict.fromkeys(ids, 0)  # the last round it lasts (0: not tetanised)
    prone = dict.fromkeys(ids, False)
    off_balance = dict.fromkeys(ids, False)
    reloading = dict.fromkeys(ids, False)
    wound_mod = dict.fromkeys(ids, 0)
    out = dict.fromkeys(ids, False)
    reacted: dict[str, int] = {}
    rnd = 0

    def standing(k: str, kind: str) -> int:
        mod = wound_mod[k]
        if tetanised[k] and kind != "skill":
            mod -= 10
        if prone[k] and kind == "dodge":
            mod -= 20
        if off_balance[k] and kind in ("attack", "skill"):
            mod -= 20
        return mod

    def lose_hp(k: str, amount: int) -> None:
        hp[k] -= amount
        top, con = P[k]["hp"], P[k]["con"]
        if amount >= top or hp[k] <= -con or hp[k] <= 2:
            out[k] = True  # dead, dying or unconscious
            return
        if 2 * amount >= top and d100_band(d(100), con * 5, False) not in ("success", "critical_success"):
            d(10)  # minutes knocked out
            out[k] = True
            return
        h = hp[k]
        wound_mod[k] = -20 if 100 * h <= 25 * top else -10 if 100 * h <= 50 * top else 0

    def malfunction(k: str) -> None:
        face = d(10)
        if face <= 4:
            return  # misfire
        if face <= 7:
            weapon[k] = "jammed"
        elif face <= 9:
            weapon[k] = "serious"
            unjam[k] = d(6)
        else:
            weapon[k] = "broken"
            if P[k]["energy"]:
                lose_hp(k, d(3))  # overheat

    def hit(k: str, target: str, critical: bool, reduction: int) -> None:
        if P[k]["stun"]:
            mult = 4 - d(4)
            con = P[target]["con"]
            if mult > 0 and d100_band(d(100), con * mult, False) in ("success", "critical_success"):
                tetanised[target] = rnd + d(3) + 1
            else:
                for _ in range(10):
                    d(6)  # minutes paralysed
                out[target] = True
            return
        n, sides, flat = P[k]["damage"]
        rolled = n * sides if critical else sum(d(sides) for _ in range(n))
        total = rolled + flat - P[target]["armour"] - reduction
        if total > 0:
            lose_hp(target, total)

    def decide(k: str) -> str:
        if prone[k]:
            return "stand"
        state = weapon[k]
        if state in ("dropped", "jammed", "serious", "broken"):
            return state
        if ammo[k] > 0:
            return "shoot"
        return "reload" if spare[k] > 0 else "nothing"

    def shoot(k: str, foe: str) -> None:
        p, f = P[k], P[foe]
        choice = "none"
        if not out[foe] and not reloading[foe]:
            for c in f["reactions"]:
                if c == "dodge" or f["shield"] is not None:
                    choice = c
                    break
        modifier, reduction = 0, 0
        if choice != "none":
            before = reacted.get(foe, 0)
            reacted[foe] = before + 1
            band = d100_band(d(100), f[choice] + standing(foe, choice) - 20 * before, False)
            if choice == "dodge":
                modifier = D100_DODGE[band]
            elif band == "critical_failure":
                modifier = 10
            elif band == "critical_success":
                reduction = f["shield"] * 3 // 2
            elif band == "success":
                reduction = f["shield"]
        if d(100) >= p["panne"] and d100_band(d(100), p["luck"], False) not in ("success", "critical_success"):
            malfunction(k)
            return
        ammo[k] -= 1
        band = d100_band(d(100), p["skill"] + modifier + standing(k, "attack"), True)
        if band in ("success", "critical_success"):
            hit(k, foe, band == "critical_success", reduction)
        elif band == "fumble":
            face = d(10)
            if face <= 3:
                off_balance[k] = True
            elif face <= 5:
                weapon[k] = "dropped"
            elif face <= 7:
                malfunction(k)
            elif face == 8:
                prone[k] = True
            elif face == 10:
                hit(k, k, False, 0)  # the shot hits the shooter; a stray shot (9) finds nobody

    def turn(k: str) -> None:
        foe = ids[1] if k == ids[0] else ids[0]
        was_off = off_balance[k]
        plan = decide(k)
        if plan == "shoot":
            shoot(k, foe)
        elif plan == "stand":
            prone[k] = False
        elif plan == "dropped":
            weapon[k] = "ready"
        elif plan == "jammed":
            base = max(P[k]["skill"], P[k]["mechanics"])
            if d100_band(d(100), base + standing(k, "skill"), False) in ("success", "critical_success"):
                weapon[k] = "ready"
        elif plan == "serious":
            left = unjam[k]
            if left is not None and left > 1:
                unjam[k] = left - 1
            else:
                unjam[k] = None
                target = P[k]["mechanics"] - 20 + standing(k, "skill")
                if d100_band(d(100), target, False) in ("success", "critical_success"):
                    weapon[k] = "ready"
        if was_off and off_balance[k]:
            off_balance[k] = False

    def rolloff(group: list[str]) -> list[str]:
        faces = {k: d(12) for k in group}
        order: list[str] = []
        for face in sorted(set(faces.values()), reverse=True):
            same = [k for k in group if faces[k] == face]
            order.extend(rolloff(same) if len(same) > 1 else same)
        return order

    for rnd in range(1, 16):
        dex = {k: P[k]["dex"] - (5 if tetanised[k] else 0) for k in ids}
        inits = {k: d(12) + dex[k] + d100_dex_bonus(dex[k]) for k in ids}
        a, b = sorted(ids, key=lambda k: (-inits[k], -dex[k]))
        order = rolloff([a, b]) if (inits[a], dex[a]) == (inits[b], dex[b]) else [a, b]
        for k in order:
            if decide(k) == "reload":
                reloading[k] = True
        for k in order:
            if not reloading[k]:
                turn(k)
                if out[ids[0]] or out[ids[1]]:
                    break
        if out[ids[0]] or out[ids[1]]:
            break
        for k in ids:
            if reloading[k]:
                reloading[k] = False
                ammo[k] = P[k]["magazine"]
                spare[k] -= 1
            if tetanised[k] and tetanised[k] <= rnd:
                tetanised[k] = 0
        reacted.clear()
    standing_ids = [k for k in ids if not out[k]]
    return (P[standing_ids[0]]["side"] if len(standing_ids) == 1 else None), rnd


# ------------------------------------------------------------- the duels


def roll_point_zero(enc: Encounter) -> None:
    enc.roll(3, 6, actor="rook", purpose="bench", rule="PZ-TEST-1", keep_best=2)


def roll_zcorps(enc: Encounter) -> None:
    from fracas.systems.zcorps.odds import DCode
    from fracas.systems.zcorps.resolution import roll_code

    roll_code(enc, "dutch", DCode(4, 1), purpose="bench", rule="ZC-DICE-1")


def roll_d100(enc: Encounter) -> None:
    enc.roll(1, 100, actor="vance", purpose="bench", rule="D100-ROLL-1")


@dataclass(frozen=True)
class Duel:
    system: str
    path: Path
    bare: Callable[[str], Outcome]
    roll: Callable[[Encounter], None]
    roll_text: str
    long: Path  # a scenario whose fights log 10,000 events or more: verify of one long log
    #: the rules edition the engine plays against the bare loop (the AI the loop mirrors); None: the default
    bare_edition: int | None = None


DUELS = (
    # the bare loop mirrors fracas 0.1.0's aggressive policy and round (rules edition 1: plans before
    # initiative, the incapacitated out); edition 3 on plays the competent AI (issue 16)
    Duel("point_zero", DUEL, bare_duel, roll_point_zero, "3d6 keep 2, logged", ENDLESS, 1),
    # the bare loop mirrors the edition-4 aggressive policy (edition 5 plays the competent AI, issue 16)
    Duel("zcorps", ZC_DUEL, bare_zcorps_duel, roll_zcorps, "4D+1 with its Joker: 2 dice events, logged", ZC_HORDE, 4),
    Duel("d100", D100_DUEL, bare_d100_duel, roll_d100, "1d100, logged", D100_SIEGE),
)


# ------------------------------------------------------------------ figures


def bench_run(path: Path, fights: int, keep: Path | None = None) -> tuple[dict[str, float], list[Path]]:
    """Fights with a JSONL log each; ``keep``: a folder where every log stays (for the replay figure)."""
    loaded = load_scenario(path)
    events = 0
    nbytes = 0
    logs: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = keep or Path(tmp)
        start = time.perf_counter()
        for i in range(fights):
            log = folder / f"{path.stem}-{i}.jsonl"
            result = run_scenario(loaded, seed=str(i), log_path=log)
            events += result.events
            nbytes += result.log_bytes
            if keep is not None:
                logs.append(log)
        elapsed = time.perf_counter() - start
    figures = {"fights_per_s": fights / elapsed, "events_per_s": events / elapsed, "bytes_per_event": nbytes / events}
    return figures, logs


def bench_replay_logs(paths: Sequence[Path], repeat: int = 3) -> tuple[float, int]:
    """Events/s of ``replay_log`` over the logs, one after the other (best of ``repeat``)."""
    events = sum(replay_log(p).entries for p in paths)
    best = min(timed(lambda: [replay_log(p) for p in paths]) for _ in range(repeat))
    return events / best, events


def bench_rolls(duel: Duel, n: int) -> float:
    """Recorded rolls/s: the system's roll through a live encounter writing its JSONL log."""
    loaded = load_scenario(duel.path)
    with tempfile.TemporaryDirectory() as tmp:
        enc = Encounter(get_system(duel.system), loaded, seed="1", log_path=Path(tmp) / "r.jsonl")
        enc.emit(enc.header())
        start = time.perf_counter()
        for _ in range(n):
            duel.roll(enc)
        elapsed = time.perf_counter() - start
        enc.writer.close()
    return n / elapsed


def engine_outcomes(loaded: LoadedScenario, seeds: int) -> list[Outcome]:
    out: list[Outcome] = []
    for i in range(seeds):
        r = run_scenario(loaded, seed=str(i), log_path=None)
        out.append((r.winner, r.rounds))
    return out


def bench_engine_vs_bare(duel: Duel, seeds: int, repeat: int = 2) -> tuple[float, float, list[Outcome], list[Outcome]]:
    """Seconds per duel, engine (no log) and bare loop, best of ``repeat``; and both outcomes per seed."""
    loaded = load_scenario(duel.path)
    if duel.bare_edition is not None:
        text = duel.path.read_text(encoding="utf-8") + f"\n[rules]\nedition = {duel.bare_edition}\n"
        loaded = build_scenario(str(duel.path), text)
    engine_out: list[Outcome] = []
    bare_out: list[Outcome] = []
    engine_s = bare_s = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        engine_out = engine_outcomes(loaded, seeds)
        engine_s = min(engine_s, time.perf_counter() - t0)
        t0 = time.perf_counter()
        bare_out = [duel.bare(str(i)) for i in range(seeds)]
        bare_s = min(bare_s, time.perf_counter() - t0)
    return engine_s / seeds, bare_s / seeds, engine_out, bare_out


def sanity(engine: Sequence[Outcome], bare: Sequence[Outcome]) -> dict[str, Any]:
    """Do the bare loop and the engine agree, within sampling error, on who wins and how long it takes?

    Per outcome (each side, a draw): |p_engine - p_bare| <= 3 standard errors
    of the difference (pooled p, two independent samples of n); mean rounds
    likewise. ``identical`` counts the seeds where both give the same winner
    and rounds: a bare loop that draws its dice in the engine's order (the
    three here do) agrees fight by fight, but only the statistical agreement
    is required.
    """
    n = len(engine)
    sides = sorted({w or "draw" for w, _ in engine} | {w or "draw" for w, _ in bare})
    rates: dict[str, dict[str, float]] = {"engine": {}, "bare": {}}
    worst_z = 0.0
    for side in sides:
        pe = sum(1 for w, _ in engine if (w or "draw") == side) / n
        pb = sum(1 for w, _ in bare if (w or "draw") == side) / n
        rates["engine"][side], rates["bare"][side] = pe, pb
        pooled = (pe + pb) / 2
        se = math.sqrt(max(pooled * (1 - pooled), 0.25 / n) * 2 / n)
        worst_z = max(worst_z, abs(pe - pb) / se)
    re = [r for _, r in engine]
    rb = [r for _, r in bare]
    mean_e, mean_b = sum(re) / n, sum(rb) / n
    var = sum((x - mean_e) ** 2 for x in re) / max(1, n - 1) + sum((x - mean_b) ** 2 for x in rb) / max(1, n - 1)
    se_rounds = math.sqrt(max(var, 1e-9) / n)
    z_rounds = abs(mean_e - mean_b) / se_rounds
    return {
        "seeds": n,
        "identical": sum(1 for e, b in zip(engine, bare, strict=True) if e == b),
        "win_rates": rates,
        "mean_rounds": {"engine": mean_e, "bare": mean_b},
        "worst_z_win_rate": worst_z,
        "z_rounds": z_rounds,
        "ok": worst_z <= 3 and z_rounds <= 3,
    }


def make_long_log(path: Path, events: int) -> int:
    """A log of at least ``events`` events (the endless brawl, cut by its round limit)."""
    # about 12.5 events a round; at most MAX_ROUNDS rounds (docs/scenario-limits.md)
    text = ENDLESS.read_text(encoding="utf-8").replace("round_limit = 10000", f"round_limit = {events // 12 + 1}")
    scenario = path.with_suffix(".toml")
    scenario.write_text(text, encoding="utf-8")
    return run_scenario(scenario, seed="1", log_path=path).events


def make_verify_log(duel: Duel, path: Path, events: int = 10_000) -> int:
    """A log of at least ``events`` events of the system's long scenario (the first of seeds 1, 2, ... to make one)."""
    if duel.long == ENDLESS:
        return make_long_log(path, events)
    loaded = load_scenario(duel.long)
    for seed in range(1, 21):
        n = run_scenario(loaded, seed=str(seed), log_path=path).events
        if n >= events:
            return n
    raise FracasError(f"{duel.long}: no fight of seeds 1..20 logs {events} events")


def bench_replay(path: Path, repeat: int = 3) -> float:
    n = replay_log(path).entries
    best = min(timed(lambda: replay_log(path)) for _ in range(repeat))
    return n / best


def peak_rss_kib() -> int:
    """This process's peak RSS in KiB.

    VmHWM where /proc has it: ``ru_maxrss`` survives exec on Linux, so a
    child process would report its parent's peak whenever that is higher.
    Elsewhere ``ru_maxrss`` (KiB on Linux).
    """
    import resource

    try:
        with open("/proc/self/status", encoding="ascii") as f:
            return int(next(x for x in f if x.startswith("VmHWM:")).split()[1])
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def replay_peak_rss_mb(path: Path) -> float:
    """Peak RSS of a fresh process that replays the log (includes the interpreter)."""
    code = (
        "import sys\nfrom pathlib import Path\nfrom fracas.services.run import replay_log\n"
        + inspect.getsource(peak_rss_kib)
        + "replay_log(Path(sys.argv[1]))\nprint(peak_rss_kib())\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024


def ms_per_10k(events_per_s: float) -> float:
    return 10_000 / events_per_s * 1000


def parse_workers(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected worker counts like 1,2,4, got {text!r}") from None
    if not out or any(k < 1 for k in out) or len(set(out)) != len(out):
        raise argparse.ArgumentTypeError(f"expected distinct worker counts >= 1 like 1,2,4, got {text!r}")
    return out


# ------------------------------------------------------------------- main


def bench_duel(
    duel: Duel, fights: int, seeds: int, rolls: int, tmp: Path, say: Callable[[str], None]
) -> dict[str, Any]:
    logs_dir = tmp / f"{duel.system}-logs"
    logs_dir.mkdir()
    run, logs = bench_run(duel.path, fights, keep=logs_dir)
    replay_eps, replay_events = bench_replay_logs(logs)
    rolls_per_s = bench_rolls(duel, rolls)
    verify = verify_throughput([duel.path], tmp / f"{duel.system}-verify", min_events=10_000)
    long_log = tmp / f"{duel.system}-long.jsonl"
    long_events = make_verify_log(duel, long_log)
    verify_long = bench_verify([long_log])
    engine_s, bare_s, engine_out, bare_out = bench_engine_vs_bare(duel, seeds)
    check = sanity(engine_out, bare_out)
    fig: dict[str, Any] = {
        "scenario": str(duel.path.relative_to(ROOT)),
        **run,
        "replay_events_per_s": replay_eps,
        "rolls_per_s": rolls_per_s,
        "verify_events_per_s": verify["events_per_s"],
        "verify_ms_per_10k_events": ms_per_10k(verify["events_per_s"]),
        "verify_long_log": {
            "scenario": str(duel.long.relative_to(ROOT)),
            "events": long_events,
            "events_per_s": verify_long["events_per_s"],
            "ms_per_10k_events": ms_per_10k(verify_long["events_per_s"]),
        },
        "engine_fights_per_s": 1 / engine_s,
        "bare_fights_per_s": 1 / bare_s,
        "overhead_vs_bare": engine_s / bare_s,
        "sanity": check,
    }
    say(f"== {duel.system} duel ({fig['scenario']})")
    say(
        f"run (JSONL log)         {run['fights_per_s']:11.1f} fights/s {run['events_per_s']:11.0f} events/s "
        f"{run['bytes_per_event']:7.1f} bytes/event"
    )
    say(f"replay JSONL            {replay_eps:11.0f} events/s ({replay_events} events in {len(logs)} duel logs)")
    say(f"recorded rolls          {rolls_per_s:11.0f} rolls/s ({duel.roll_text})")
    say(
        f"verify                  {verify['events_per_s']:11.0f} events/s "
        f"({fig['verify_ms_per_10k_events']:.0f} ms per 10,000 events; {verify['events']:.0f} events of duel logs)"
    )
    say(
        f"verify one long log     {verify_long['events_per_s']:11.0f} events/s "
        f"({ms_per_10k(verify_long['events_per_s']):.0f} ms per 10,000 events; "
        f"one log of {long_events} events, {duel.long.relative_to(ROOT)})"
    )
    say(f"duel engine (no log)    {1 / engine_s:11.1f} fights/s")
    say(f"duel bare loop          {1 / bare_s:11.1f} fights/s")
    rates = check["win_rates"]
    shown = " ".join(f"{s} {rates['engine'][s]:.3f}/{rates['bare'][s]:.3f}" for s in rates["engine"])
    say(
        f"sanity ({check['seeds']} seeds, engine/bare): {shown}; mean rounds "
        f"{check['mean_rounds']['engine']:.2f}/{check['mean_rounds']['bare']:.2f}; "
        f"same outcome on {check['identical']}/{check['seeds']} seeds; "
        f"worst z {max(check['worst_z_win_rate'], check['z_rounds']):.1f}: "
        + ("ok" if check["ok"] else "MISMATCH (the bare loop does not mirror the engine)")
    )
    say(f"{duel.system} overhead_vs_bare {engine_s / bare_s:.2f}")
    return fig


def bench_quality(seeds: int, say: Callable[[str], None]) -> dict[str, Any]:
    """Per system, every policy together: attack tests at 0 % odds, beyond reach, mean odds, weak extra efforts."""
    per_system: dict[str, dict[str, PolicyQuality]] = {}
    for path in shipped_scenarios(ROOT / "scenarios"):
        loaded = load_scenario(path)
        merge_quality(
            per_system.setdefault(loaded.spec.system, {}), scenario_quality(loaded, map(str, range(1, seeds + 1)))
        )
    out: dict[str, Any] = {}
    for system, by_policy in sorted(per_system.items()):
        total = PolicyQuality()
        for q in by_policy.values():
            total.merge(q)
        n = max(1, total.attacks)
        weak = sum(x.under_worth for x in total.extras.values())
        efforts = sum(x.times for x in total.extras.values())
        out[system] = {
            "attack_tests": total.attacks,
            "zero_odds": total.zero / n,
            "beyond_reach": total.beyond / n,
            "mean_odds": total.odds_ppm / 1e6 / n,
            "extra_efforts": efforts,
            "extra_efforts_under_10_points": weak,
            "policies": summary(by_policy),
        }
        say(
            f"{system:<11} {total.attacks:6d} attack tests  0 % odds {total.zero / n:6.1%}  beyond reach "
            f"{total.beyond / n:6.1%}  mean odds {total.odds_ppm / 1e6 / n:6.1%}  "
            f"efforts {efforts} ({weak} < 10 points)"
        )
    return out


# ------------------------------------------------------- scale: a cost per actor that stays flat

HORDE = ROOT / "scenarios" / "zcorps" / "horde.toml"
#: Verify of the horde's log should cost at most this many ms of CPU per 10,000 events (issue 17): printed, not
#: asserted.
HORDE_VERIFY_TARGET_MS = 100


#: The rules edition of the open map's scale figures: 2 plays fracas 0.1.0's policies (nearest foe,
#: asked of the crowd index), so the figure is the engine's cost per actor. The competent AI
#: (the default edition, 5: it weighs the nearest ``tactics.NEAREST_FOES`` foes at each firing cell,
#: systems/point_zero/tactics.py) costs more an actor-round but as flat: measured apart, at the same counts.
SCALE_EDITION = 2


def open_map(actors: int, edition: int | None = SCALE_EDITION) -> str:
    """A Point Zéro open map (no wall, no cover) with ``actors`` gunmen, half a side each, three rounds.

    Two battle lines face each other across 16 m of open ground, four ranks deep, one
    gunman a cell; more actors make the lines longer, not deeper, so every actor meets
    the same fight whatever the count, and the cost of an actor-round measures how the
    engine scales (not how far the lines must walk). ``edition``: the rules edition
    (None: the default, whose policies are the competent AI).
    """
    gap = 16
    per_side = actors - actors // 2
    ranks = max(4, -(-per_side // MAX_MAP))  # 10,000 actors: five ranks, for the map's 1,000 m limit
    height = max(1, -(-per_side // ranks))
    width = 2 * ranks + gap
    lines = [
        'system = "point_zero"',
        f'name = "Open map, {actors} actors"',
        "round_limit = 3",
        *([] if edition is None else ["[rules]", f"edition = {edition}"]),
        "[map]",
        f"width = {width}",
        f"height = {height}",
        '[[sides]]\nid = "a"\n[[sides]]\nid = "b"',
    ]
    half = actors // 2
    for i in range(actors):
        team, j = ("a", i) if i < half else ("b", i - half)
        rank, y = j % ranks, j // ranks
        x = ranks - 1 - rank if team == "a" else ranks + gap + rank
        lines.append(
            f'[[actors]]\nid = "{team}{j}"\nside = "{team}"\nposition = [{x}, {y}]\n'
            "attributes = { PER = 3, ADR = 3, VIG = 3, COG = 3, INIT = 3, DEP = 18 }\n"
            "skills = { handguns = 4, brawl = 2, resistance = 3 }\n"
            'weapons = [{ name = "revolver", skill = "handguns", pu = "4d6", ammo = 6, reloads = 3 }]'
        )
    return "\n".join(lines) + "\n"


def d100_open_map(actors: int) -> str:
    """:func:`open_map` for d100: the same two battle lines, security officers against raiders with pistols
    (the default rules edition: d100's competent AI)."""
    text = open_map(actors, edition=None).replace('system = "point_zero"', 'system = "d100"')
    head, *actors_text = text.split("[[actors]]")
    gunman = (
        "characteristics = { DEX = 12, CON = 13, POU = 11 }\nhp = 12\n"
        "skills = { handgun = 50, dodge = 40, mechanics = 30 }\n"
        'weapons = [{ name = "pistol", skill = "handgun", damage = "1d10+2", panne = 95, ammo = 8, reloads = 2 }]\n'
    )
    out = [head]
    for block in actors_text:
        keep = block.split("attributes = ")[0]
        policy = 'policy = "security"\n' if 'side = "a"' in keep else 'policy = "raider"\n'
        out.append(keep + policy + gunman)
    return "[[actors]]".join(out)


def actor_round_us(
    actors: int, tmp: Path, system: str = "point_zero", edition: int | None = SCALE_EDITION
) -> dict[str, float]:
    """CPU µs of one actor-round on :func:`open_map` (JSONL log, seed 1; one run: :func:`actor_round_pair` takes
    the best of several, in turn with another count).

    ``edition``: Point Zéro's rules edition (d100 plays its default). The scenario work bound
    (``check_work``, docs/scenario-limits.md) is left aside: it refuses 3,200 and 10,000 actors for
    what an AI that weighs every pair would cost, not for what this map costs.
    """
    path = tmp / f"open-{system}-{actors}.toml"
    text = open_map(actors, edition) if system == "point_zero" else d100_open_map(actors)
    path.write_text(text, encoding="utf-8")
    loaded = _load_scenario(path, work_bound=False)
    start = time.process_time()
    result = run_scenario(loaded, seed="1", log_path=tmp / f"open-{actors}.jsonl")
    cpu_s = time.process_time() - start
    return {
        "actors": actors,
        "rounds": result.rounds,
        "events": result.events,
        "cpu_s": cpu_s,
        "us_per_actor_round": 1e6 * cpu_s / (actors * max(result.rounds, 1)),
    }


def actor_round_pair(
    small: int, large: int, tmp: Path, rounds: int, **kw: Any
) -> tuple[dict[str, float], dict[str, float]]:
    """:func:`actor_round_us` at ``small`` and ``large`` actors, measured in turn ``rounds`` times: the best of each.

    The machine's speed moves by the minute (by half on a shared machine): measured in turn, both counts
    see the same minutes, and their ratio is the engine's, not the machine's.
    """
    best: dict[int, dict[str, float]] = {}
    for _ in range(rounds):
        for n in (small, large):
            r = actor_round_us(n, tmp, **kw)
            if n not in best or r["cpu_s"] < best[n]["cpu_s"]:
                best[n] = r
    return best[small], best[large]


def bench_scale(tmp: Path, quick: bool, say: Callable[[str], None]) -> dict[str, Any]:
    """The cost of an actor-round at 200 and 3,200 actors (800 with --quick), a 10,000-actor fight, the horde."""
    small, large = 200, 800 if quick else 3200
    say(
        f"== scale (point_zero open map, 3 rounds, JSONL log, CPU time; {small} vs {large} actors, measured in turn; "
        f"edition {SCALE_EDITION}'s policies)"
    )
    low, high = actor_round_pair(small, large, tmp, rounds=2 if quick else 3)
    ratio = high["us_per_actor_round"] / low["us_per_actor_round"]
    say(f"actor-round at {small:>5}     {low['us_per_actor_round']:11.0f} µs ({low['events']} events)")
    say(f"actor-round at {large:>5}     {high['us_per_actor_round']:11.0f} µs ({high['events']} events)")
    say(f"ratio {large}/{small}          {ratio:11.2f} (target <= 1.5)")
    out: dict[str, Any] = {"small": low, "large": high, "ratio": ratio, "ten_thousand": None, "horde": None}
    d_low, d_high = actor_round_pair(small, large, tmp, rounds=2 if quick else 3, system="d100")
    d_ratio = d_high["us_per_actor_round"] / d_low["us_per_actor_round"]
    say(
        f"d100 actor-round at {small} / {large}: {d_low['us_per_actor_round']:.0f} / "
        f"{d_high['us_per_actor_round']:.0f} µs, ratio {d_ratio:.2f} (the same open map, security against raiders)"
    )
    out["d100"] = {"small": d_low, "large": d_high, "ratio": d_ratio}
    ai_small, ai_large = (50, 200) if quick else (small, large)  # about 5 ms an actor-round
    ai_low, ai_high = actor_round_pair(ai_small, ai_large, tmp, rounds=1, edition=None)
    ai_ratio = ai_high["us_per_actor_round"] / ai_low["us_per_actor_round"]
    say(
        f"competent AI actor-round at {ai_small} / {ai_large}: {ai_low['us_per_actor_round']:.0f} / "
        f"{ai_high['us_per_actor_round']:.0f} µs, ratio {ai_ratio:.2f} (the default rules edition)"
    )
    out["competent_ai"] = {"small": ai_low, "large": ai_high, "ratio": ai_ratio}
    if not quick:
        big = actor_round_us(10_000, tmp)
        say(
            f"10,000 actors, 3 rounds {big['cpu_s']:11.1f} s CPU ({big['events']} events, "
            f"{big['us_per_actor_round']:.0f} µs an actor-round)"
        )
        out["ten_thousand"] = big
    if HORDE.exists():
        loaded = load_scenario(HORDE)
        log = tmp / "horde.jsonl"
        start = time.process_time()
        result = run_scenario(loaded, seed=str(loaded.spec.seed), log_path=log)
        run_s = time.process_time() - start
        verify = bench_verify([log], repeat=3 if quick else 5)  # the best of a few: the machine's speed moves
        ms = 1e3 * 10_000 / verify["events_per_s"]
        say(
            f"zcorps horde ({len(loaded.spec.actors)} actors) {run_s:7.1f} s CPU, {result.rounds} rounds, "
            f"{result.events} events; verify {ms:.0f} ms per 10,000 events, "
            f"{ms / HORDE_VERIFY_TARGET_MS:.2f} times the target of {HORDE_VERIFY_TARGET_MS} (issue 17)"
        )
        out["horde"] = {
            "actors": len(loaded.spec.actors),
            "rounds": result.rounds,
            "events": result.events,
            "run_cpu_s": run_s,
            "verify_ms_per_10k_events": ms,
            "verify_target_ratio": ms / HORDE_VERIFY_TARGET_MS,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller counts and no Dask (well under 30 s on 2 cores)")
    p.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="PATH",
        help="write every figure as one JSON object: to PATH, or to stdout (the report then goes to stderr)",
    )
    p.add_argument(
        "--workers-list",
        type=parse_workers,
        default=[1, 2],
        metavar="K1,K2,...",
        help="worker counts for the batch figures (default 1,2; the first is the efficiency baseline)",
    )
    p.add_argument("--scale", action="store_true", help="only the scale figures (cost per actor-round, the horde)")
    args = p.parse_args(argv)
    stream: TextIO = sys.stderr if args.json == "-" else sys.stdout

    def say(line: str) -> None:
        print(line, file=stream, flush=True)

    quick = args.quick
    scale = 0.2 if quick else 1.0
    fights = max(20, int(400 * scale))
    seeds = 300 if quick else 600
    rolls = max(2000, int(50_000 * scale))
    report: dict[str, Any] = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "quick": quick,
        "systems": {},
    }
    say(f"fracas bench (python {report['python']}, {report['cpus']} cpus{', quick' if quick else ''})")
    if args.scale:
        with tempfile.TemporaryDirectory() as tmpdir:
            report["scale"] = bench_scale(Path(tmpdir), quick, say)
        if args.json is not None:
            text = json.dumps(report, indent=2, sort_keys=True)
            if args.json == "-":
                print(text, flush=True)
            else:
                Path(args.json).write_text(text + "\n", encoding="utf-8")
        return 0
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        report["scale"] = bench_scale(tmp, quick, say)
        for duel in DUELS:
            report["systems"][duel.system] = bench_duel(duel, fights, seeds, rolls, tmp, say)

        say("== point_zero warehouse 3v3")
        teams, _ = bench_run(TEAMS, max(10, fights // 4))
        report["warehouse"] = {"scenario": str(TEAMS.relative_to(ROOT)), **teams}
        say(
            f"run (JSONL log)         {teams['fights_per_s']:11.1f} fights/s {teams['events_per_s']:11.0f} events/s "
            f"{teams['bytes_per_event']:7.1f} bytes/event"
        )

        say("== long logs (point_zero endless brawl)")
        log = tmp / "long.jsonl"
        events = make_long_log(log, 20_000 if quick else 100_000)
        size = log.stat().st_size
        replay_eps = bench_replay(log)
        rss = replay_peak_rss_mb(log)
        say(f"replay JSONL            {replay_eps:11.0f} events/s ({events} events, {size / events:.0f} bytes/event)")
        say(f"replay peak memory      {rss:11.1f} MB for {events} events (whole process)")
        report["long_log"] = {
            "events": events,
            "bytes_per_event": size / events,
            "replay_events_per_s": replay_eps,
            "replay_peak_rss_mb": rss,
        }

    workers: list[int] = args.workers_list
    # enough fights that process start-up (inside the timing) stays small: ~5 s at 1 worker
    n = max(1000 if quick else 10_000, 500 * max(workers))  # at least 500 fights a worker
    say(f"== batch ({DUEL.relative_to(ROOT)}, {n} fights, process pool)")
    batch = bench_batch(DUEL, n=n, workers=workers)
    base = workers[0]
    for k in workers:
        eff = "" if k == base else f"  efficiency {100 * batch['efficiency'][k]:5.1f} % vs {base}"
        say(f"batch {k:>2} worker{'s' if k > 1 else ' '}       {batch['fights_per_s'][k]:11.1f} fights/s{eff}")
    report["batch"] = {
        "scenario": str(DUEL.relative_to(ROOT)),
        "n": n,
        "fights_per_s": {str(k): v for k, v in batch["fights_per_s"].items()},
        "efficiency": {str(k): v for k, v in batch["efficiency"].items()},
    }
    report["dask_vs_pool"] = None
    if not quick:
        try:
            dvp = bench_dask_vs_pool(DUEL, n=n, workers=2)
        except FracasError as exc:  # the dask extra is not installed
            say(f"dask-local vs pool      skipped: {exc}")
        else:
            report["dask_vs_pool"] = dvp
            say(
                f"dask-local 2 vs pool 2  {dvp['dask_fights_per_s']:11.1f} vs {dvp['pool_fights_per_s']:.1f} fights/s "
                f"(ratio {dvp['ratio']:.2f})"
            )
    quality_seeds = 20 if quick else 100
    say(f"== decision quality (every shipped scenario, seeds 1-{quality_seeds}; tools/quality.py for details)")
    report["decision_quality"] = bench_quality(quality_seeds, say)
    report["own_peak_rss_mb"] = peak_rss_kib() / 1024
    say(f"own peak memory         {report['own_peak_rss_mb']:11.1f} MB")
    overhead = report["systems"]["point_zero"]["overhead_vs_bare"]
    report["overhead_vs_bare"] = overhead
    if args.json is not None:
        text = json.dumps(report, indent=2, sort_keys=True)
        if args.json == "-":
            print(text, flush=True)
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    say(f"overhead_vs_bare: {overhead:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
