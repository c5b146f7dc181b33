"""One policy against another in the two-player game: the exact chance (zilch game --policy
P --vs Q), whole games simulated with physical dice (zilch simulate --games N) and a verdict
on someone's game results (zilch verify --games FILE).

A policy is `optimal` (the game table's play: it needs the stored game table), `points` (the
expected-points card, the strategy a player learns) or a policy file (docs/policies.md; with
`bank_at_target = true` it also banks where the bank reaches the target).  P is the player
to move at --scores; Q, the opponent, plays --vs (default: optimal).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..limits import check_memory, check_time
from ..play.named_policies import Named, named
from ..progress import SILENT, Progress, started_by_first_step
from ..rules import RuleSet
from ..tables import Tables
from .answer import Answer, hidden
from .inputs import Rules, Tables_, int_list, rule_set, tables_of

if TYPE_CHECKING:
    from ..objectives.plain_game import GameTable
    from ..objectives.policy_game import PolicyGame, Side
    from ..play.games import Player

# the time of a solve against a fixed policy, as a share of the optimal game's estimate
# for each optimal side (one turn solve per state, with two extras, where the game takes
# about four: measured by bench/bench_versus.py)
OPTIMAL_SIDE_SHARE = 0.5


def _game_table(tab: Tables, solve: bool, progress: Progress) -> GameTable:
    """The stored game table (the optimal side's play): TableMissing where nobody solved
    it, unless solve (then it is solved first, estimated, with progress)."""
    from .game_tables import plain_game, solving

    return solving(solve, progress, lambda: plain_game(tab))


def _scores(rs: RuleSet, scores: str | Sequence[int] | None) -> tuple[int, int]:
    pair = int_list("0,0" if scores is None else scores, "--scores")
    if len(pair) != 2:
        raise InputError("--scores expects ME,OPP such as 0,0")
    for what, v in zip(("--scores (mine)", "--scores (the opponent's)"), pair):
        rs.check_score(what, v)
        if v >= rs.reach_units() * rs.unit:
            raise InputError(f"{what} {v}: a game to {rs.target} is over there")
    return pair[0], pair[1]


@dataclass(frozen=True)
class Matchup:
    """Two named policies in one game (P moves first at the scores)."""

    rules_arg: Rules
    target_arg: int | None  # the target as given (None: the rules')
    tab: Tables  # of the rules aimed at the game's target
    scores: tuple[int, int]  # points: P's, Q's
    P: Named
    Q: Named

    @property
    def target(self) -> int:
        target = self.tab.rules.target
        assert target is not None
        return target

    @property
    def R(self) -> int:
        return self.tab.rules.reach_units()

    def refuse(self, exact_only: bool = True) -> None:
        """One line for a variant a fixed policy is not evaluated in (optimal against
        optimal is the game's own table, every variant; the simulator plays none)."""
        from ..objectives.policy_game import check_supported

        if not exact_only:
            check_supported(self.tab.rules, simulated=True)
        elif not (self.P.optimal and self.Q.optimal):
            check_supported(self.tab.rules)

    def game_table(self, solve: bool, progress: Progress) -> GameTable:
        return _game_table(self.tab, solve, progress)

    def exact(self, solve: bool, progress: Progress) -> tuple[float, float, float]:
        """(P's chance moving first, P's chance when Q moves first from the same scores,
        seconds): both optimal, the game's own table; else the policy game's solve."""
        a, b = (x // self.tab.rules.unit for x in self.scores)
        if self.P.optimal and self.Q.optimal:
            from .game_tables import solving, stored_game
            from .position_options import position_of

            _, g = solving(solve, progress, lambda: stored_game(self.tab))  # (any variant)
            rs, (me, opp) = self.tab.rules, self.scores
            first = g.chance(position_of(rs, [me, opp]))["p_win"]
            second = g.chance(position_of(rs, [opp, me]))["p_win"]
            return float(first), 1.0 - float(second), 0.0
        g = self.game_table(solve, progress) if self.P.optimal or self.Q.optimal else None
        self.estimate(g)
        t0 = time.perf_counter()
        pg = self.solve(g, progress)
        return float(pg.X[a, b]), 1.0 - float(pg.Y[b, a]), time.perf_counter() - t0

    def estimate(self, g: GameTable | None) -> None:
        """Refuse a solve past this machine's memory or the time a query may take."""
        from ..objectives.game_run import GameRun
        from ..objectives.plain_game import estimate

        n_opt = int(self.P.optimal) + int(self.Q.optimal)
        if not n_opt:
            return
        nbytes, seconds = estimate(GameRun(self.tab.model, target=self.target))
        what = (
            f"the {self.tab.rules.name} game to {self.target}, {self.P.name} against {self.Q.name}"
        )
        check_memory(nbytes, what, "choose a lower --target")
        check_time(seconds * OPTIMAL_SIDE_SHARE * n_opt, what, "choose a lower --target")

    def side(self, who: Named, g: GameTable | None) -> Side:
        from ..objectives.policy_game import OptimalSide
        from ..play.fixed_side import FixedSide

        if who.optimal:
            assert g is not None  # (an optimal side: the game table is read first)
            return OptimalSide(g)
        rules = self.tab.rules
        D = 0 if rules.end == "instant" else (g.finals.D if g is not None else self.tab.reach_bound)
        return FixedSide(who.name, self.tab.model, self.R, D, who.policy, who.goal())

    def solve(self, g: GameTable | None, progress: Progress) -> PolicyGame:
        from ..objectives.game_run import GameRun
        from ..objectives.policy_game import solve_policy_game

        P, Q = self.side(self.P, g), self.side(self.Q, g)
        with started_by_first_step(progress, "solving score sums", lambda s: s + 1) as step:
            run = GameRun(self.tab.model, target=self.target, progress=step)
            return solve_policy_game(run, P, Q)

    def players(self, g: GameTable | None) -> tuple[Player, Player]:
        """The simulator's players (play/games.py)."""
        from ..play.games import FixedPlayer, OptimalPlayer

        def player(who: Named) -> Player:
            if who.optimal:
                assert g is not None  # (an optimal player: the game table is read first)
                return OptimalPlayer(g)
            return FixedPlayer(who.name, self.tab.model, self.R, who.policy, who.goal() is not None)

        return player(self.P), player(self.Q)


def matchup(
    rules: Rules,
    target: int | None,
    scores: str | Sequence[int] | None,
    policy: str | None,
    vs: str | None,
    tables: Tables_,
    exact_only: bool = True,
) -> Matchup:
    """The inputs of every question about two policies, checked before any solve
    (exact_only: the exact chance is all it needs, not simulated games)."""
    from .position_options import aimed

    rs = aimed(rule_set(rules), target)
    if rs.target is None:
        raise InputError(f"{rs.name} has no target: there is no game to play")
    tab = tables_of(rs, tables)
    P = named(tab, "optimal" if policy is None else policy, "--policy")
    Q = named(tab, "optimal" if vs is None else vs, "--vs")
    m = Matchup(rules, target, tab, _scores(rs, scores), P, Q)
    m.refuse(exact_only)
    return m


# --- zilch game --policy P --vs Q ----------------------------------------------------------
@dataclass(frozen=True)
class VersusChance(Answer):
    rules: str
    target: int
    scores: list[int]  # P's (the player to move), Q's
    policy: str  # P's
    vs: str  # Q's
    p_win: float  # P's chance, moving first with scores[0] against scores[1]
    p_win_moving_second: float  # P's chance when Q moves first (Q with scores[1])
    seconds: float = hidden()  # the solve's time (0: read from the game table)


# the game command's options that a policy's game does not take (their defaults)
NOT_WITH_POLICY = {
    "fairness": False,
    "zilches": 0,
    "opp_zilches": 0,
    "lowest": None,
    "beat": 0,
    "challenges": None,
    "on_board": None,
    "players": 2,
    "workers": None,
    "scheduler": None,
}


def game(
    rules: Rules = "farkle",
    target: int | None = None,
    scores: str | Sequence[int] | None = None,
    policy: str | None = None,
    vs: str | None = None,
    tables: Tables_ = None,
    progress: Progress = SILENT,
    solve: bool = False,
    **others: object,
) -> VersusChance:
    """The exact chance that the player to move, playing `policy`, wins against an opponent
    playing `vs` (default optimal); `others`: the game's other options, refused where given
    (a policy's game is the plain two-player game)."""
    for key, default in NOT_WITH_POLICY.items():
        if key in others and others[key] != default:
            flag = "--" + key.replace("_", "-")
            if key == "players":
                raise InputError(
                    "--policy/--vs: a policy's game is evaluated for two players (three or "
                    "more: not yet)"
                )
            raise InputError(f"{flag} is not an option of a policy's game (--policy, --vs)")
    unknown = set(others) - set(NOT_WITH_POLICY)
    if unknown:
        raise TypeError(f"game() got unexpected options {sorted(unknown)}")
    m = matchup(rules, target, scores, policy, vs, tables)
    first, second, seconds = m.exact(solve, progress)
    return VersusChance(
        m.tab.rules.name, m.target, list(m.scores), m.P.name, m.Q.name, first, second, seconds
    )


# --- zilch simulate --games N --------------------------------------------------------------
# games played at once (memory: a few arrays of this length); fewer where an optimal side
# solves its turns as it goes, so that the progress moves
GAMES_BATCH = {False: 20_000, True: 2_000}


@dataclass(frozen=True)
class GamesSimulation(Answer):
    rules: str
    target: int
    scores: list[int]
    policy: str
    vs: str
    games: int
    seed: int
    wins: int  # P's (the first player's)
    losses: int
    ties: int
    win_rate: float  # P's mean result (a tie: his part of it)
    stderr: float  # sqrt(p (1 - p) / n) at the exact p
    exact_p_win: float
    z: float


def simulate_games(
    rules: Rules = "farkle",
    games: int = 10_000,
    policy: str = "optimal",
    vs: str | None = None,
    seed: int = 0,
    scores: str | Sequence[int] | None = None,
    target: int | None = None,
    out: str | None = None,
    tables: Tables_ = None,
    progress: Progress = SILENT,
    solve: bool = False,
) -> GamesSimulation:
    """Whole games with physical dice (seeded), P (`policy`) moving first at `scores`
    against Q (`vs`), next to P's exact chance; out: also every game's winner, one line
    each (1 or 2; tie), which `zilch verify --games` reads."""
    from ..files import atomic_file
    from ..play.games import count_games
    from ..play.verify import GameResults

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InputError(f"--games must be a whole number of at least 1, got {games!r}")
    m = matchup(rules, target, scores, policy, vs, tables, exact_only=False)
    rs = m.tab.rules
    check_time(_games_seconds(m, games), f"simulating {games} games", "ask for fewer --games")
    p_win, _, _ = m.exact(solve, progress)
    g = m.game_table(solve, progress) if m.P.optimal or m.Q.optimal else None
    players = m.players(g)
    rng = np.random.default_rng(seed)
    start = (m.scores[0] // rs.unit, m.scores[1] // rs.unit)
    with atomic_file(out) if out else contextlib.nullcontext() as f:
        if f is not None:
            f.write(b"winner\n")
        batch = GAMES_BATCH[g is not None]
        counted = count_games(m.tab.model, players, games, rng, m.R, start, batch, progress, f)
    results = GameResults(*counted)
    rate = results.rate()
    se = float(np.sqrt(p_win * (1.0 - p_win) / games))
    z = (rate - p_win) / se if se else 0.0
    return GamesSimulation(
        rs.name, m.target, list(m.scores), m.P.name, m.Q.name, games, seed, results.wins,
        results.losses, results.ties, rate, se, p_win, z,
    )  # fmt: skip


# seconds per simulated turn (farkle to 10000, 2000 games: about 10 s with an optimal side,
# which solves each score pair's turn as it comes; a fixed policy's turns cost far less)
TURN_SECONDS = {True: 1.5e-4, False: 1e-5}


def _games_seconds(m: Matchup, games: int) -> float:
    """About how long simulated games take: turns by the card's points per turn."""
    per_turn = max(m.tab.score.expected_turn_score(True), m.tab.rules.unit)
    turns = games * 2.0 * m.target / per_turn
    return turns * TURN_SECONDS[m.P.optimal or m.Q.optimal]


# --- zilch verify --games FILE -------------------------------------------------------------
@dataclass(frozen=True)
class GamesVerdict(Answer):
    rules: str
    target: int
    scores: list[int]
    policy: str
    vs: str
    n: int
    wins: int
    losses: int
    ties: int
    win_rate: float
    exact_p_win: float
    stderr: float
    z: float
    p_value: float
    test: str  # "binomial" (exact, no ties) or "z"
    alpha: float
    consistent: bool


def verify_games(
    rules: Rules = "farkle",
    games: str = "",
    policy: str = "optimal",
    vs: str | None = None,
    scores: str | Sequence[int] | None = None,
    target: int | None = None,
    column: str | None = None,
    alpha: float = 0.001,
    tables: Tables_ = None,
    progress: Progress = SILENT,
    solve: bool = False,
) -> GamesVerdict:
    """Is your game simulator right?  Its games' results (a column of winners, 1 or 2, or
    of the first player's wins, 1 or 0; tie) against the first player's exact chance."""
    from ..play.verify import read_games
    from ..play.verify import verify_games as verdict

    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InputError(f"--alpha must be a number strictly between 0 and 1, got {alpha!r}")
    m = matchup(rules, target, scores, policy, vs, tables)
    results = read_games(games, column)
    p_win, _, _ = m.exact(solve, progress)
    rs = m.tab.rules
    v = verdict(results, p_win, alpha)
    return GamesVerdict(
        rs.name,
        m.target,
        list(m.scores),
        m.P.name,
        m.Q.name,
        v["n"],
        v["wins"],
        v["losses"],
        v["ties"],
        v["win_rate"],
        p_win,
        v["stderr"],
        v["z"],
        v["p_value"],
        v["test"],
        alpha,
        v["consistent"],
    )
