"""Provably fair dice at a table: ``fracas commit``, ``fracas run --seed-file --player-seed`` (docs/verify.md).

1. ``fracas commit SCENARIO --seed-out FILE`` draws a fresh 256-bit secret
   and a 128-bit salt, writes them to FILE (never over an existing file) and
   prints the commitment, which binds the secret, the salt, the scenario,
   its effective rules and the dice method and source. The game master
   publishes the commitment and keeps FILE hidden.
2. Knowing only the commitment, each player says a seed of their own:
   ``fracas run SCENARIO --seed-file FILE --player-seed alice --player-seed bob``
   mixes them into the dice key after the commitment is fixed.
3. The log reveals the secret at the end; ``fracas verify LOG --commitment HEX``
   proves the fight was played from the published commitment.

A seed typed with ``--seed`` stays fine for tests and batches, but its
header marks it "reproducible, not secret" and verify says so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fracas.core.errors import EXIT_OK, FracasError
from fracas.core.files import check_input, file_name

if TYPE_CHECKING:  # the rest is imported when a command runs: `fracas --help` stays fast
    from fracas.core import events as E
    from fracas.core.scenario import LoadedScenario

#: The first key of a seed file, and its version.
SEED_FILE_KIND = "fracas-seed-file"


def add_run_flags(run: Any) -> None:
    """The fair-dice flags of ``fracas run``."""
    run.add_argument(
        "--seed-file",
        metavar="FILE",
        help="play from a secret drawn by `fracas commit SCENARIO --seed-out FILE` (instead of --seed)",
    )
    run.add_argument(
        "--commit", action="store_true", help="print the header's dice commitment before the first die is drawn"
    )
    run.add_argument(
        "--player-seed",
        action="append",
        default=[],
        metavar="TEXT",
        help="a player's seed mixed into the dice key (repeatable; docs/dice.md)",
    )


def register(sub: Any) -> None:
    p = sub.add_parser("commit", help="draw a secret dice seed for a scenario and print its commitment")
    p.add_argument("scenario", help="scenario TOML file, or the name of a bundled one (fracas scenarios lists them)")
    p.add_argument("--seed-out", required=True, metavar="FILE", help="where to write the secret (never overwritten)")
    p.add_argument("--json", action="store_true", help='print {"commitment": ..., ...} as one JSON object')
    p.set_defaults(handler=cmd_commit)


def commitment_for(loaded: LoadedScenario, seed: str, salt: str, *, secret: bool) -> E.EncounterStarted:
    """The header a run of ``loaded`` from this seed and salt writes (derived dice): its commitment is the one."""
    from fracas.core.encounter import Encounter
    from fracas.core.system import get_system

    system = get_system(loaded.spec.system)
    return Encounter(system, loaded, seed=seed, salt=salt, secret=secret).header()


def cmd_commit(args: argparse.Namespace) -> int:
    from fracas.core.bundled import resolve_scenario
    from fracas.core.dice import new_salt, new_secret
    from fracas.core.scenario import load_scenario

    loaded = load_scenario(resolve_scenario(args.scenario))
    secret, salt = new_secret(), new_salt()
    head = commitment_for(loaded, secret, salt, secret=True)
    record = {
        "kind": SEED_FILE_KIND,
        "secret": secret,
        "salt": salt,
        "scenario": head.scenario_name,
        "scenario_sha256": head.scenario_sha256,
        "commitment": head.dice.commitment,
    }
    out = file_name(args.seed_out)
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise FracasError(f"{out}: already exists: a seed file is never overwritten (choose another name)") from None
    except OSError as exc:
        raise FracasError(f"{out}: cannot write the seed file: {exc.strerror or exc}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(record, indent=2) + "\n")
    if args.json:
        public = {k: record[k] for k in ("commitment", "scenario", "scenario_sha256")}
        sys.stdout.write(json.dumps({**public, "seed_file": str(out)}) + "\n")
        return EXIT_OK
    sys.stdout.write(
        f"commitment: {head.dice.commitment}\n"
        f"publish it now; the secret is in {out}: keep it hidden until the fight is over\n"
    )
    return EXIT_OK


def read_seed_file(path: Path, loaded: LoadedScenario) -> tuple[str, str]:
    """(secret, salt) of a seed file written by ``fracas commit`` for this very scenario."""
    from fracas.core.dice import is_secret_seed

    try:
        record = json.loads(check_input(path, "the seed file").read_text(encoding="utf-8"))
    except OSError as exc:
        raise FracasError(f"{path}: cannot read the seed file: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise FracasError(f"{path}: not a seed file written by fracas commit: {exc}") from None
    if not isinstance(record, dict) or record.get("kind") != SEED_FILE_KIND:
        raise FracasError(f"{path}: $.kind: not a seed file written by fracas commit")
    secret, salt = record.get("secret"), record.get("salt")
    if not isinstance(secret, str) or not isinstance(salt, str) or not is_secret_seed(secret, salt):
        raise FracasError(f"{path}: $.secret, $.salt: expected 64 and 32 hex digits")
    head = commitment_for(loaded, secret, salt, secret=True)
    if head.dice.commitment != record.get("commitment"):
        raise FracasError(
            f"{path}: $.commitment: this secret was committed for another scenario or other rules "
            f"({record.get('scenario')!r}); {loaded.path} gives another commitment"
        )
    return secret, salt


def seed_of(args: argparse.Namespace, loaded: LoadedScenario, seed: str) -> tuple[str, str, bool]:
    """(seed, salt, secret) of a run: the seed file's secret, or the seed given (reproducible, not secret)."""
    if getattr(args, "seed_file", None) is None:
        return seed, "", False
    if args.seed is not None:
        raise FracasError("--seed-file and --seed: give one of them")
    secret, salt = read_seed_file(Path(args.seed_file), loaded)
    return secret, salt, True


def announcer(args: argparse.Namespace) -> Any:
    """A listener printing the header's commitment before the first die (stderr under --json), or None."""
    if not getattr(args, "commit", False):
        return None
    stream = sys.stderr if getattr(args, "json", False) else sys.stdout
    seeds = getattr(args, "player_seed", [])

    from fracas.core.events import EncounterStarted

    def announce(seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        if seq != 0 or not isinstance(ev, EncounterStarted):
            return
        extra = f"; player seeds mixed in after it: {len(seeds)}" if seeds else ""
        stream.write(f"dice commitment: {ev.dice.commitment} (the seed is revealed at the end{extra})\n")
        stream.flush()

    return announce
