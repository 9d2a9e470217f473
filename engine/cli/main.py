"""The ``fracas`` command line.

Exit codes: 0 ok, 1 a check failed or a damaged log, 2 bad input or an OS
error (one line on stderr, never a traceback), 70 a bug in fracas (a short
traceback and a request to report it). Human text by default, ``--json`` for machines.

Start-up: building the parser imports no service, no SimPy, no structlog and
no event types; each command imports what it needs when it runs, so
``fracas --help`` stays fast (tests/cli/test_startup.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from fracas.cli import audit as cmd_audit
from fracas.cli import batch as cmd_batch
from fracas.cli import fair as cmd_fair
from fracas.cli import fork as cmd_fork
from fracas.cli import narration
from fracas.cli import odds as cmd_odds
from fracas.cli import play as cmd_play
from fracas.cli import render as cmd_render
from fracas.cli import scenarios as cmd_scenarios
from fracas.cli import verify as cmd_verify
from fracas.cli.terminal import json_text, shown, shown_output, tolerate_unencodable
from fracas.core.errors import EXIT_BAD_INPUT, EXIT_BUG, EXIT_OK, FracasError
from fracas.core.version import __version__

if TYPE_CHECKING:
    from fracas.core import events as E
    from fracas.core.state import ActorState, State

Handler = Callable[[argparse.Namespace], int]

#: The scenario argument of run, batch and play.
SCENARIO_HELP = "scenario TOML file, or the name of a bundled one (fracas scenarios lists them)"


def _out(text: str = "", stream: TextIO | None = None) -> None:
    """Print; a reader that went away (``| head``) silences output but the work goes on."""
    try:
        print(text, file=stream or sys.stdout)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


#: A side of more actors than this shows, in the sheets, the actors the fight touched and counts the others.
SIDE_SHEETS = 20


def folded_sides(actors: Sequence[ActorState]) -> set[str]:
    """The sides of more than :data:`SIDE_SHEETS` actors: their untouched actors are counted, not shown."""
    counts = Counter(a.side for a in actors)
    return {side for side, n in counts.items() if n > SIDE_SHEETS}


def untouched(a: ActorState) -> bool:
    """Nothing on the sheet but a place and an initiative: no box marked, no condition, no damage taken."""
    return (
        not a.conditions
        and a.damage_taken == 0
        and a.hp == a.hp_max
        and all(m.worst() < 0 for m in a.monitors.values())
    )


def print_state(state: State, stream: TextIO | None = None, *, every: bool = False) -> None:
    """Each actor's sheet; a big side's untouched actors are counted in one line unless ``every``."""
    actors = list(state.actors.values())
    fold = set() if every else folded_sides(actors)
    counted: dict[str, int] = {}
    for a in actors:
        if a.side in fold and untouched(a):
            counted[a.side] = counted.get(a.side, 0) + 1
        else:
            print_sheet(a, stream)
    for side, n in counted.items():
        _out(
            f"... and {n} more of side {side} with nothing on their sheets but a place and an initiative"
            " (--all-sheets prints every sheet)",
            stream,
        )


def print_sheet(a: ActorState, stream: TextIO | None = None) -> None:
    """One actor: position, initiative, both monitors box by box, conditions, ammunition."""
    _out(f"{a.name} [{a.id}, side {a.side}] {a.status()} at ({a.x},{a.y}), initiative {a.initiative}", stream)
    width = max((len(m) for m in a.monitors), default=0)
    for m in a.monitors.values():
        _out(f"  {m.name:<{width}}  {m.render()}", stream)
    if a.hp is not None:
        _out(f"  HP {a.hp}/{a.hp_max}", stream)
    conds = ", ".join(k.replace("_", " ") + (f" {v}" if v else "") for k, v in sorted(a.conditions.items())) or "none"
    _out(f"  conditions: {conds}", stream)
    if a.weapons:
        gear = []
        for w, st in a.weapons.items():
            spare = a.spare.get(w, 0)
            ammo = f" {a.ammo[w]} rounds (+{spare} magazine{'s' if spare != 1 else ''})" if w in a.ammo else ""
            gear.append(f"{w} {st}{ammo}")
        _out(f"  weapons: {'; '.join(gear)}", stream)
    if a.resources:
        _out(f"  resources: {', '.join(f'{k} {v}' for k, v in a.resources.items())}", stream)


def add_sheet_flags(p: argparse.ArgumentParser) -> None:
    """``--all-sheets``: what a fight of many actors shortens in the sheets, in full."""
    p.add_argument(
        "--all-sheets",
        action="store_true",
        help=f"print every actor's sheet (a side of more than {SIDE_SHEETS} shows those the fight touched)",
    )


# ---------------------------------------------------------------------- run


def cmd_run(args: argparse.Namespace) -> int:
    from fracas.core import files
    from fracas.core.bundled import resolve_scenario
    from fracas.core.diagnostics import get_logger
    from fracas.core.scenario import load_scenario
    from fracas.core.state import state_to_builtins
    from fracas.services.run import default_log_path, resolve_seed, run_scenario

    loaded = load_scenario(resolve_scenario(args.scenario))
    seed = resolve_seed(None if args.seed is None else str(args.seed), loaded)
    seed, salt, secret = cmd_fair.seed_of(args, loaded, seed)
    # a secret seed stays out of the log's name (the log reveals it at the end)
    log_path = Path(args.log) if args.log else default_log_path(loaded, "-committed" if secret else seed)
    if args.binary and not args.log:
        log_path = log_path.with_suffix(".msgpack")
    files.check_output(log_path, force=args.force, inputs=[loaded.path])
    printer = narration.Printer(args, _out)
    listeners: list[Callable[[int, int, int, float, E.Event], None]] = []
    if not args.json and not args.quiet:
        listeners.append(printer)
    else:
        listeners.append(printer.note_aftermath)
    announce = cmd_fair.announcer(args)
    if announce is not None:
        listeners.insert(0, announce)
    started = time.perf_counter()
    result = run_scenario(
        loaded,
        seed=seed,
        log_path=log_path,
        binary=args.binary,
        listeners=listeners,
        player_seeds=args.player_seed,
        salt=salt,
        secret=secret,
    )
    get_logger().debug("run finished", seconds=round(time.perf_counter() - started, 3), events=result.events)
    if args.json:
        payload = {
            "winner": result.winner,
            "rounds": result.rounds,
            "events": result.events,
            "log": result.log,
            "state": state_to_builtins(result.state),
        }
        _out(json_text(payload, sort_keys=False))
        return EXIT_OK
    printer.finish()
    print_sheets(Path(result.log) if result.log else None, result.state, printer.aftermath_seq, every=args.all_sheets)
    _out()
    nar = printer.narrator
    who = nar.outcome(result.winner, result.reason)
    _out(f"{who[0].upper()}{who[1:]}, after {result.rounds} rounds; {result.events} events logged to {result.log}")
    return EXIT_OK


def print_sheets(log: Path | None, final: State, aftermath: int | None, *, every: bool = False) -> None:
    """The sheets at the end of the fight, then (when the aftermath changed anything) after it."""
    from fracas.services.run import replay_log

    if log is not None and aftermath is not None and final.seq > aftermath + 1:
        _out()
        _out(f"At the end of the fight (round {final.round}, seq {aftermath}):")
        print_state(replay_log(log, at=aftermath).state, every=every)
        _out()
        _out(f"After the aftermath ({narration.duration(final.sec)} simulated):")
    else:
        _out()
    print_state(final, every=every)


# ------------------------------------------------------------------- replay


def cmd_replay(args: argparse.Namespace) -> int:
    if args.fork_at is not None:
        return cmd_fork.cmd_fork(args)
    from fracas.core import files
    from fracas.core.diagnostics import get_logger
    from fracas.core.state import state_to_builtins
    from fracas.services.run import replay_log

    path = files.check_input(args.log, "log")
    if args.at is not None and args.at < 0:
        raise FracasError(f"--at {args.at}: expected the seq of an event (0 or more)")
    printer = narration.Printer(args, _out)
    if args.narrate and not args.json:
        narration.narrate_log(path, args.at, printer)
    replayed = replay_log(path, at=args.at)
    if replayed.torn is not None:
        t = replayed.torn
        get_logger().warning(
            f"{path}: line {t.line} is torn ({t.length} bytes: {t.error}); "
            f"replayed the {replayed.entries} entries before it"
        )
    if args.json:
        _out(json_text({"state": state_to_builtins(replayed.state)}))
        return EXIT_OK
    s = replayed.state
    head = replayed.header
    title = f"{head.scenario_name} ({head.system})" if head else str(path)
    where = f"just after seq {s.seq}" if args.at is not None else f"at the end (seq {s.seq})"
    _out(f"{title}: state {where}, round {s.round}, {s.sec:g} s simulated")
    aftermath = narration.aftermath_seq(path) if args.at is None else None
    if aftermath is not None and s.seq > aftermath + 1:
        _out(f"At the end of the fight (seq {aftermath}):")
        print_state(replay_log(path, at=aftermath).state, every=args.all_sheets)
        _out(f"After the aftermath ({narration.duration(s.sec)} simulated):")
    print_state(s, every=args.all_sheets)
    if s.ended:
        if head is not None and not args.narrate:
            printer.narrator.text(head)  # the sides' names
        who = printer.narrator.outcome(s.winner, s.reason)
        _out(f"{who[0].upper()}{who[1:]}")
    return EXIT_OK


# ----------------------------------------------------------------- validate


def cmd_validate(args: argparse.Namespace) -> int:
    from fracas.core.bundled import resolve_scenario
    from fracas.core.scenario import load_scenario

    failed = 0
    for path in args.scenarios:
        try:
            loaded = load_scenario(resolve_scenario(path))
        except FracasError as exc:
            _out(f"fracas: error: {exc}", sys.stderr)
            failed += 1
            continue
        spec = loaded.spec
        _out(f"{path}: ok ({spec.system}, {len(spec.actors)} actors, {len(spec.sides)} sides)")
    return EXIT_BAD_INPUT if failed else EXIT_OK


# ------------------------------------------------------------------ systems


def cmd_systems(args: argparse.Namespace) -> int:
    from fracas.core.catalogue import COMMON_RULE_IDS, describe_system
    from fracas.core.system import get_system, system_names

    systems = {name: describe_system(get_system(name)) for name in system_names()}
    if args.json:
        _out(json_text(systems, indent=2))
        return EXIT_OK
    _out("common rule IDs (every system):")
    for rid, summary in COMMON_RULE_IDS.items():
        _out(f"    {rid:<14} {summary}")
    _out()
    for name, s in systems.items():
        policies = ", ".join(s["policies"])
        _out(f"{name}: {s['title']} (seed text {s['seed']}; round {s['round_seconds']} s; policies: {policies})")
        _out("  rule IDs:")
        for rid, summary in s["rules"].items():
            _out(f"    {rid:<14} {summary}")
        _out("  default values ([rules] overrides any of them):")
        for key, value in s["defaults"].items():
            _out(f"    {key} = {json.dumps(value, ensure_ascii=False)}")
        _out()
    return EXIT_OK


# --------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fracas",
        description="Simulate, replay and audit tabletop role-playing fights.",
    )
    p.add_argument("--version", action="version", version=f"fracas {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="debug diagnostics (timings) on stderr")
    p.add_argument("--log-json", action="store_true", help="diagnostics on stderr as JSON lines")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run one fight and write its log")
    run.add_argument("scenario", help=SCENARIO_HELP)
    run.add_argument("--seed", help="dice seed (text or number); default: the scenario's, else random")
    run.add_argument("--log", help="where to write the log (default: logs/<scenario>-seed<seed>.jsonl)")
    run.add_argument("--binary", action="store_true", help="write the compact msgpack log form")
    run.add_argument("--json", action="store_true", help="print one JSON object instead of the play-by-play")
    run.add_argument("--quiet", action="store_true", help="no play-by-play, only the final state")
    narration.add_flags(run)
    add_sheet_flags(run)
    run.add_argument("--force", action="store_true", help="replace the log if it exists (never an input)")
    cmd_fair.add_run_flags(run)
    run.set_defaults(handler=cmd_run)

    rep = sub.add_parser("replay", help="rebuild the state from a log")
    rep.add_argument("log", help="log file (JSONL or binary)")
    rep.add_argument("--at", type=int, metavar="SEQ", help="the state just after event SEQ")
    rep.add_argument("--json", action="store_true", help='print {"state": ...} as run --json does')
    rep.add_argument("--narrate", action="store_true", help="print the play-by-play up to that point first")
    narration.add_flags(rep)
    add_sheet_flags(rep)
    cmd_fork.add_replay_flags(rep)
    rep.set_defaults(handler=cmd_replay)

    val = sub.add_parser("validate", help="check scenario files")
    val.add_argument("scenarios", nargs="+", help="scenario TOML files or bundled scenario names")
    val.set_defaults(handler=cmd_validate)

    sy = sub.add_parser("systems", help="list rule systems, their rule IDs and default values")
    sy.add_argument("--json", action="store_true")
    sy.set_defaults(handler=cmd_systems)

    for extend in EXTENSIONS:
        extend(sub)
    return p


#: Modules adding subcommands: each is a callable taking the subparsers object.
EXTENSIONS: list[Callable[[Any], None]] = [
    cmd_batch.register,
    cmd_verify.register,
    cmd_render.register,
    cmd_audit.register,
    cmd_odds.register,
    cmd_play.register,
    cmd_fair.register,
    cmd_scenarios.register,
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from fracas.core.diagnostics import configure  # after parsing: `--help` never loads structlog

    configure(json=args.log_json, verbose=args.verbose)
    tolerate_unencodable()
    handler: Handler = args.handler
    try:
        with shown_output():  # a log's names and texts never drive the terminal (fracas.cli.terminal)
            return handler(args)
    except FracasError as exc:
        print(f"fracas: error: {shown(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("fracas: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # the system refused (a full disk, a permission): the input, not fracas
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"fracas: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # anything else is a bug in fracas, never the user's input
        return report_bug(exc)


def report_bug(exc: BaseException) -> int:
    """A short traceback (the innermost frames), a request to report it, and the bug exit code."""
    print("Traceback (most recent call last, innermost frames):", file=sys.stderr)
    print("".join(traceback.format_tb(exc.__traceback__, limit=-6)).rstrip(), file=sys.stderr)
    print("".join(traceback.format_exception_only(exc)).rstrip()[:500], file=sys.stderr)
    print(
        f"fracas: internal error (exit {EXIT_BUG}): this is a bug in fracas, not in your input; "
        "please report it with the command line and the files it read",
        file=sys.stderr,
    )
    return EXIT_BUG


if __name__ == "__main__":
    sys.exit(main())
