"""The library entry points behind the CLI: run a scenario, read and replay a log."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path

import msgspec
from fracas.core import events as E
from fracas.core.dice import DiceSource
from fracas.core.encounter import Encounter, Listener, RunResult
from fracas.core.errors import DamagedLog, FracasError
from fracas.core.files import safe_name
from fracas.core.log import LogError, TornLine, gc_paused, iter_log
from fracas.core.scenario import LoadedScenario, load_scenario
from fracas.core.state import PROJECTION_HANDLERS, ProjectionEntry, State
from fracas.core.system import get_system


def resolve_seed(cli_seed: str | None, scenario: LoadedScenario) -> str:
    """The seed text: the command line's, else the scenario's, else a fresh random one."""
    if cli_seed is not None:
        return cli_seed
    if scenario.spec.seed is not None:
        return str(scenario.spec.seed)
    return secrets.token_hex(16)


def default_log_path(scenario: LoadedScenario, seed: str) -> Path:
    """``logs/<scenario>-seed<seed>.jsonl``: both parts sanitized, so no seed can leave ``logs/``."""
    return Path("logs") / f"{safe_name(Path(scenario.path).stem)}-seed{safe_name(seed, 32)}.jsonl"


def run_scenario(
    scenario: LoadedScenario | str | Path,
    *,
    seed: str | None = None,
    log_path: Path | None = None,
    dice: DiceSource | None = None,
    binary: bool = False,
    player_seeds: Sequence[str] = (),
    listeners: Sequence[Listener] = (),
    parent: E.ForkOrigin | None = None,
    salt: str = "",
    secret: bool = False,
) -> RunResult:
    """Run one fight and write its log (``log_path=None``: keep no log)."""
    loaded = scenario if isinstance(scenario, LoadedScenario) else load_scenario(scenario)
    system = get_system(loaded.spec.system)
    enc = Encounter(
        system,
        loaded,
        seed=resolve_seed(seed, loaded),
        dice=dice,
        log_path=log_path,
        binary=binary,
        player_seeds=player_seeds,
        listeners=listeners,
        parent=parent,
        salt=salt,
        secret=secret,
    )
    # as verify's re-run and the replay: the collector paused for the fight (its long-lived actors and crowd
    # would be scanned again and again, more often the more actors: a cost per actor that grows)
    with gc_paused():
        return enc.run()


class Replayed(msgspec.Struct, kw_only=True):
    state: State
    entries: int
    torn: TornLine | None = None
    header: E.EncounterStarted | None = None


def replay_log(path: Path, *, at: int | None = None) -> Replayed:
    """Fold a log into its state, at the end or just after event ``at``."""
    state = State()
    n = 0
    torn: TornLine | None = None
    header: E.EncounterStarted | None = None
    handlers = PROJECTION_HANDLERS
    limit = at if at is not None else -1
    try:
        with gc_paused():
            for item in iter_log(path, entry_type=ProjectionEntry):
                if type(item) is TornLine:
                    torn = item
                    break
                seq = item.seq  # type: ignore[union-attr]
                if seq > limit >= 0:
                    break
                ev = item.ev  # type: ignore[union-attr]
                if n == 0:
                    if not isinstance(ev, E.EncounterStarted):  # never skimmed: keeps its fields
                        raise FracasError(f"{path}: line 1: the first entry is not an EncounterStarted header")
                    header = ev
                elif seq != state.seq + 1:
                    raise DamagedLog(f"{path}: line {n + 1}: expected seq {state.seq + 1}, found {seq}")
                state.seq = seq
                state.sec = item.sec  # type: ignore[union-attr]
                handlers[type(ev)](state, ev)
                n += 1
    except LogError as exc:  # a line that does not decode: damaged, or not a fracas log at all
        raise (DamagedLog if n else FracasError)(str(exc)) from None
    except (LookupError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        # the entry decodes but does not apply to the state so far (an actor never entered ...)
        raise DamagedLog(
            f"{path}: line {n + 1}: {type(ev).__name__} does not follow from the lines before it "
            f"({type(exc).__name__}: {exc})"
        ) from None
    if n == 0:
        why = f"a torn entry: {torn.error}" if torn is not None else "an empty file"
        raise FracasError(f"{path}: line 1: not a fracas log ({why})")
    if at is not None and state.seq < at:
        raise FracasError(f"{path}: no event with seq {at} (the log ends at seq {state.seq})")
    return Replayed(state=state, entries=n, torn=torn, header=header)
