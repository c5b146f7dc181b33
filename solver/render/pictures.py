"""Pictures (matplotlib, written to files; no display needed) of what answers/figures.py
computes: the last turn, a turn's score distribution, the two-player game, a slice of the
N-player game, and Yahtzee's final-score distribution.  The `plot_*` functions are the
Python API's (`ds.plot_endgame`, ...): the picture's file is checked before any work."""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from ..answers.answer import Answer
from ..answers.figures import (
    DistributionFigure,
    EndgameFigure,
    GameFigure,
    NPlayerFigure,
    distribution_figure,
    endgame_figure,
    game_figure,
)
from ..answers.inputs import Rules, Tables_
from ..errors import InputError
from ..files import atomic_file, out_path
from ..progress import SILENT, Progress

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..answers.yahtzee_answers import YahtzeeEvaluation
    from ..yahtzee.yahtzee_rules import YahtzeeRules


@dataclass(frozen=True)
class Picture(Answer):
    wrote: str


def picture_file(out: str) -> str:
    """The picture's file, checked before any work: a folder that exists, a format
    matplotlib writes (by the name's extension; none: PNG)."""
    path = out_path(out, ".png")
    pyplot()
    from matplotlib.backend_bases import FigureCanvasBase

    kinds = FigureCanvasBase.get_supported_filetypes()
    ext = os.path.splitext(path)[1][1:].lower()
    if ext not in kinds:
        raise InputError(
            f"--out {out}: pictures are written as {', '.join(sorted(kinds))} "
            f"(by the file's extension), not {ext!r}"
        )
    return path


def pyplot() -> ModuleType:
    """matplotlib's pyplot on a backend without a display (InputError where it is missing)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'dicesolver[plot]'") from None
    return plt


def save(fig: Figure, out: str, dpi: int) -> None:
    """The figure to its file, never half-written, in the format its extension names."""
    with atomic_file(out) as f:
        fig.savefig(f, dpi=dpi, format=os.path.splitext(out)[1][1:].lower())
    pyplot().close(fig)


class _File:
    """The picture's file name, checked when the figure says its inputs are sound."""

    def __init__(self, out: str) -> None:
        self.given = self.path = out

    def __call__(self) -> None:
        self.path = picture_file(self.given)


# --- the Python API's pictures ----------------------------------------------------------
def plot_endgame(
    rules: Rules = "farkle",
    out: str = "endgame.png",
    not_on_board: bool = False,
    beat: int = 0,
    tables: Tables_ = None,
    target: int | None = None,
) -> Picture:
    """Left: P(win) of a last turn against the deficit, one line per dice count at turn
    total 0 (log scale: it falls geometrically).  Right: P(win) with N-1 dice over (deficit,
    turn total), and the roll/bank boundary (the smallest total at which banking is optimal;
    in a last turn it sits one unit above the deficit wherever banking is allowed; with
    overtaking, banks must beat `beat`; target: the game's, whose deficits it covers)."""
    file = _File(out)
    draw_endgame(endgame_figure(rules, not_on_board, beat, tables, target, file), file.path)
    return Picture(file.path)


def plot_distribution(
    rules: Rules = "farkle",
    out: str = "distribution.png",
    policy: str = "optimal",
    results: str | None = None,
    column: str | None = None,
    not_on_board: bool = False,
    beat: int = 0,
    tables: Tables_ = None,
) -> Picture:
    """The exact probability of each recorded turn score (bars), a simulator's frequencies
    (dots) over it (with overtaking: turns whose banks must beat `beat`)."""
    file = _File(out)
    fig = distribution_figure(rules, policy, results, column, not_on_board, beat, tables, file)
    draw_distribution(fig, file.path)
    return Picture(file.path)


def plot_game(
    rules: Rules = "farkle",
    out: str = "game.png",
    target: int | None = None,
    step: int | None = None,
    tables: Tables_ = None,
    players: int = 2,
    others: int = 0,
) -> Picture:
    """Top left: P(win) of the player to move over (my score, opponent score).  Then, for
    each dice count, the smallest turn total at which optimal play banks (no permanent points
    held yet), on a coarser grid of score pairs: each pair's turn solved on demand by the
    game's own turn (piggyback offers and permanent points included).  players: more than
    two, every seat's chance over (the mover's score, the next player's) with the others'
    scores fixed at `others` points."""
    file = _File(out)
    fig = game_figure(rules, target, step, tables, players, others, file)
    if isinstance(fig, NPlayerFigure):
        draw_nplayer(fig, file.path)
    else:
        draw_game(fig, file.path)
    return Picture(file.path)


def yahtzee_evaluate(
    rules: str | YahtzeeRules = "yahtzee",
    out: str | None = None,
    fmt: str = "csv",
    plot: str | None = None,
    tables: Tables_ = None,
    progress: Progress = SILENT,
) -> YahtzeeEvaluation:
    """answers/yahtzee_answers.yahtzee_evaluate, and with plot its picture (the API's
    `ds.yahtzee_evaluate`: the picture's file checked before the work)."""
    from ..answers.yahtzee_answers import yahtzee_evaluate as evaluate

    file = _File(plot) if plot is not None else None
    a = evaluate(rules, out, fmt, tables, progress, ready=file)
    if file is not None:
        draw_yahtzee_distribution(a, file.path)
    return a


# --- drawing ---------------------------------------------------------------------------
def draw_endgame(f: EndgameFigure, out: str) -> None:
    rs, sol, top = f.rules, f.solution, f.max_deficit
    plt = pyplot()
    u = rs.unit
    d = np.arange(top + 1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    for n in range(rs.dice, 0, -1):
        s = 0 if n == rs.dice else n
        ax1.plot(d * u, np.maximum(sol.roll[d, s, 0], sol.bank[d, s, 0]), label=f"{n} dice")
    ax1.set_yscale("log")
    ax1.set(
        xlabel="deficit (points behind the leader)",
        ylabel="P(win) from turn total 0",
        title=f"{rs.name}: last turn",
    )
    ax1.legend()
    ax1.grid(alpha=0.3, which="both")
    n = max(rs.dice - 1, 1)
    T = min(sol.roll.shape[2], top + 2)
    grid = np.maximum(sol.roll[:, n, :T], sol.bank[:, n, :T])
    im = ax2.imshow(
        grid.T, origin="lower", aspect="auto", cmap="viridis", extent=(0, top * u, 0, (T - 1) * u)
    )
    act = sol.bank[:, n, :T] >= sol.roll[:, n, :T]
    first = np.where(act.any(axis=1), act.argmax(axis=1), np.nan)
    ax2.plot(d * u, first * u, "w-", lw=1.2, label="bank from here up")
    fig.colorbar(im, ax=ax2, label="P(win)")
    ax2.set(xlabel="deficit", ylabel="turn total", title=f"P(win) with {n} dice to roll")
    ax2.legend(loc="upper left")
    fig.tight_layout()
    save(fig, out, 110)


def draw_distribution(f: DistributionFigure, out: str) -> None:
    rs, dist, samples = f.rules, f.distribution, f.samples
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(11, 4.8))
    keep = dist.probs > 1e-7
    ax.bar(
        dist.totals[keep],
        dist.probs[keep],
        width=rs.unit * 0.8,
        color="#4477aa",
        label=f"exact (mean {dist.mean:.1f}, P(zilch) {dist.p_zilch:.4f})",
    )
    if samples is not None:
        ax.plot(
            samples.totals,
            samples.counts / samples.n,
            "o",
            ms=3.5,
            color="#ee6677",
            label=f"simulated (n = {samples.n}, mean {samples.mean:.1f})",
        )
    ax.set_yscale("log")
    ax.set(
        xlabel="points recorded by the turn",
        ylabel="probability",
        title=f"{rs.name}: turn score under the {f.policy} policy",
    )
    ax.set_xlim(-rs.unit, dist.quantile(0.9999) + rs.unit)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    save(fig, out, 110)


def draw_game(f: GameFigure, out: str) -> None:
    rs, pts = f.rules, f.grid
    R, u = rs.reach_units(), rs.unit
    plt = pyplot()
    n_plots = rs.dice + 1
    cols = 4
    rows = (n_plots + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.6 * rows))
    axes = axes.ravel()
    ext = (0, (R - 1) * u, 0, (R - 1) * u)
    im = axes[0].imshow(f.W.T, origin="lower", extent=ext, cmap="viridis", vmin=0, vmax=1)
    axes[0].set(
        title=f"{rs.name} to {f.target}: P(win)", xlabel="my score", ylabel="opponent's score"
    )
    fig.colorbar(im, ax=axes[0])
    for i, n in enumerate(range(rs.dice, 0, -1), start=1):
        if n == rs.dice and rs.hot_dice == "mandatory":
            axes[i].set_axis_off()
            continue
        im = axes[i].imshow(
            f.first[:, n].reshape(len(pts), len(pts)).T, origin="lower", extent=ext, cmap="magma"
        )
        axes[i].set(
            title=f"bank from (turn total), {n} dice", xlabel="my score", ylabel="opponent's score"
        )
        fig.colorbar(im, ax=axes[i])
    for ax in axes[n_plots:]:
        ax.set_axis_off()
    fig.tight_layout()
    save(fig, out, 100)


def draw_nplayer(f: NPlayerFigure, out: str) -> None:
    rs, R, players = f.rules, f.R, f.players
    u = rs.unit
    plt = pyplot()
    fig, axes = plt.subplots(1, players, figsize=(4.4 * players, 4.4))
    ext = (0, (R - 1) * u, 0, (R - 1) * u)
    for k, ax in enumerate(axes):
        im = ax.imshow(
            f.chances[..., k].T, origin="lower", extent=ext, cmap="viridis", vmin=0, vmax=1
        )
        who = "the player to move" if k == 0 else f"seat {k + 1}"
        ax.set(
            title=f"P(win) of {who}",
            xlabel="score of the player to move",
            ylabel="score of the next player",
        )
        fig.colorbar(im, ax=ax)
    fig.suptitle(
        f"{rs.name} to {f.target}, {players} players; the other players at {f.others}"
        if players > 2
        else f"{rs.name} to {f.target}"
    )
    fig.tight_layout()
    save(fig, out, 100)


def draw_yahtzee_distribution(a: YahtzeeEvaluation, out: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(11, 4.8))
    ax.bar(range(len(a.p)), a.p, width=1.0, color="#4477aa")
    ax.set_xlim(max(a.lowest - 5, 0), a.quantiles[99] + 60)
    ax.set_xlabel("final score")
    ax.set_ylabel("probability")
    ax.set_title(
        f"{a.rules}: the exact distribution of the final score under optimal play "
        f"(mean {a.mean:.2f}, std {a.std:.2f})"
    )
    save(fig, out, 120)
