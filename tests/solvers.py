"""The package's solvers as the tests call them, on the session's table folder (conftest)."""

from importlib import resources

from dicesolver.objectives import final_round, last_turn
from dicesolver.objectives import plain_game as game
from dicesolver.objectives.game_run import GameRun
from dicesolver.progress import Progress
from dicesolver.store import Store
from dicesolver.tables import Tables
from dicesolver.turn import TurnState


def tables(rs, folder=None) -> Tables:
    return Tables(rs, Store.resolve(folder))


def model(rs):
    return tables(rs).model


def score_policy(rs, folder=None):
    return tables(rs, folder).score


def last_turn_table(rs):
    return tables(rs).last_turn


def solve_last_turn(rs, deficits, on_board=True):
    return last_turn.solve_last_turn(model(rs), deficits, on_board)


def solve_final_round(rs, leader, tied, scores, turn=0):
    return final_round.solve_final_round(
        model(rs), leader, tied, scores, tables(rs).reach_bound, turn
    )


def game_table(
    tab, players=2, target=None, lowest=None, solve=True, progress=None, variant=None, **run
):
    """The stored table of a game (Tables.game_table, its variant looked up; the solution's
    own table: GameTable, PenaltyGame, ... NPlayerGame): solved first where missing unless
    solve is False; target: another than the rules'; variant: this variant's table instead
    of the registry's (the N-player path at N = 2); run: variants.Where's fields."""
    from dicesolver import variants
    from dicesolver.progress import SILENT

    if target is not None:
        tab = Tables(tab.rules.aimed(target), tab.store)
    where = variants.Where(**run)
    if variant is not None:
        v = variant(tab.rules)
        key = v.key(players, lowest)
        got = v.solve(tab, key, progress or SILENT, where) if solve else v.open(tab, key)
    else:
        key = variants.of(tab.rules, players).key(players, lowest)
        got = tab.game_table(key, progress or SILENT, solve, where)
    return None if got is None else got.game


class Steps:
    """A Progress that records the bars a solve draws, [label, total, steps] each; stop:
    (label, n) raises KeyboardInterrupt at that bar's n-th step, as Ctrl-C would."""

    def __init__(self, stop=None):
        self.bars, self.notes, self.stop = [], [], stop

    def note(self, text):
        self.notes.append(text)

    def start(self, label, total):
        self.bars.append([label, total, 0])

    def advance(self, n=1):
        bar = self.bars[-1]
        bar[2] += n
        if self.stop and (bar[0], bar[2]) == self.stop:
            raise KeyboardInterrupt

    def finish(self):
        pass

    def of(self, label):
        return [b for b in self.bars if b[0] == label]


def solve_game(rs, target=None, levels=None, **run):
    """The plain game's table (run: GameRun's progress, checkpoint, checkpoint_every)."""
    return game.solve_game(GameRun(model(rs), tables(rs).reach_bound, target, **run), levels)


def values(table, deficit, dice, turn, permanent=0, on_board=True):
    """A last turn's (roll, bank) at a state, as numbers (bank None where not allowed)."""
    v = table.value_at(deficit, TurnState(dice, turn, permanent), on_board)
    return v.roll, v.bank


def policy(rs, name="optimal", on_board=True):
    """'optimal' or a policy file, as `zilch simulate --policy` reads it."""
    from dicesolver.answers.checks import resolve_policy

    return resolve_policy(name, tables(rs), on_board)


def evaluate(rs, strategy, on_board=True, dice=None, turn=0, permanent=0):
    """The exact distribution of a turn's points under `strategy`."""
    from dicesolver.play.evaluate import evaluate as run

    return run(model(rs), strategy, on_board, TurnState(dice or rs.dice, turn, permanent))


def play(rs, strategy, n, rng, on_board=True):
    """The points (not units) recorded by n simulated turns."""
    from dicesolver.play.simulate import play_turns

    return play_turns(model(rs), strategy, n, rng, on_board).points * rs.unit


def interrupted_at(n: int, seen: list):
    """A game solve's progress callback that notes each score sum in `seen` and stops the
    solve at the n-th, as Ctrl-C would."""

    def progress(sigma):
        seen.append(sigma)
        if len(seen) == n:
            raise KeyboardInterrupt

    return progress


def small_rules(dice, set_aside, hot, entry=0, bank=0, straight=None, game=None):
    """A reduced rule set for the exact checks: singles 1 and 5, triples, an optional
    straight of 300, and a [game] table if given."""
    from dicesolver.rules import from_dict

    faces = {
        str(f): (
            [100 if f == 1 else 50 if f == 5 else 0, 0, 1000 if f == 1 else 100 * f]
            + [0] * (dice - 3)
        )[:dice]
        for f in range(1, 7)
    }
    d = {
        "dice": dice,
        "set_aside": set_aside,
        "hot_dice": hot,
        "entry_minimum": entry,
        "bank_minimum": bank,
        "faces": faces,
    }
    if straight:
        d["patterns"] = [{"kind": "straight", "faces": straight, "points": 300}]
    if game:
        d["game"] = game
    return from_dict(d, "small.toml")


def preset_file(folder, preset, target, extra=""):
    """A preset's rule file with its own target (then the lines `extra`, in its [game]
    table), written into folder: its path (a small game table, solved in seconds)."""
    text = resources.files("dicesolver").joinpath("rulesets", f"{preset}.toml").read_text()
    old = next(ln for ln in text.splitlines() if ln.startswith("target = "))
    p = folder / f"{preset}-{target}.toml"
    p.write_text(text.replace(old, f"target = {target}" + (f"\n{extra}" if extra else "")))
    return str(p)


class Recorder(Progress):
    """A Progress that notes what it is told, in order (then_advance(calls so far): after
    each advance, as a test needs)."""

    def __init__(self, then_advance=None):
        self.calls = []
        self.then_advance = then_advance

    def start(self, label, total):
        self.calls.append(("start", label, total))

    def advance(self, n=1):
        self.calls.append(("advance", n))
        if self.then_advance is not None:
            self.then_advance(self.calls)

    def finish(self):
        self.calls.append(("finish",))


def three_player_advice(path, tables, *advise):
    """`zilch game --players 3` on the rule file `path` into `tables` (one worker), its
    chances from 0-0-0 summing to 1, then `zilch advise ADVISE` from that table: its JSON."""
    import json

    from .clirun import zilch

    args = ["--rules", str(path), "--tables", str(tables)]
    got = json.loads(zilch("game", *args, "--players", "3", "--workers", "1", "--json").stdout)
    assert got["players"] == 3 and abs(sum(got["p_win"]) - 1) < 1e-12
    return json.loads(zilch("advise", *args, *advise, "--json").stdout)
