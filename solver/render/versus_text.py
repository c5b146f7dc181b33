"""The text of one policy against another in the game: its exact chance, simulated games,
a verdict on someone's games (answers/versus.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..answers.versus import GamesSimulation, GamesVerdict, VersusChance


def _head(a: VersusChance | GamesSimulation) -> str:
    me, opp = a.scores
    return (
        f"{a.rules} to {a.target}: the player to move ({me}) playing {a.policy} against "
        f"{opp} playing {a.vs}"
    )


def versus(a: VersusChance) -> str:
    return (
        f"{_head(a)} wins with probability {a.p_win:.6f}\n"
        f"(with the opponent to move instead: {a.p_win_moving_second:.6f})"
    )


def games_simulation(a: GamesSimulation) -> str:
    tied = f", {a.ties} tied" if a.ties else ""
    return (
        f"{_head(a)}: {a.games} games (seed {a.seed}), {a.wins} won{tied}\n"
        f"  win rate {a.win_rate:.6f} +- {a.stderr:.6f}   exact P(win) {a.exact_p_win:.6f}"
        f"   z = {a.z:+.2f}"
    )


def games_verdict(a: GamesVerdict) -> str:
    verdict = "CONSISTENT" if a.consistent else "NOT CONSISTENT"
    tied = f", {a.ties} tied" if a.ties else ""
    return (
        f"{verdict} with {a.policy} moving first against {a.vs} ({a.rules} to {a.target}, "
        f"scores {a.scores[0]},{a.scores[1]}): {a.n} games, {a.wins} won by the first "
        f"player{tied}\n  win rate {a.win_rate:.6f}, exact P(win) {a.exact_p_win:.6f}, "
        f"z = {a.z:+.2f}, {a.test} p-value {a.p_value:.3g} (alpha {a.alpha:g})"
    )


TEXT: dict[str, Callable[[Any], str]] = {
    "VersusChance": versus,
    "GamesSimulation": games_simulation,
    "GamesVerdict": games_verdict,
}
