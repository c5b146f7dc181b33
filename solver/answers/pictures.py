"""Pictures (matplotlib, written to PNG files; no display needed): the last turn, a turn's
score distribution, and the two-player game."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..play.evaluate import Distribution
from ..play.evaluate import evaluate as exact_distribution
from ..play.verify import read_scores
from ..rules import RuleSet
from .base import (
    Answer,
    Rules,
    Tables_,
    out_path,
    refuse_challenge,
    refuse_pyramiding,
    rule_set,
    tables_of,
)
from .checks import resolve_policy
from .export import atomic_file
from .position import aimed


@dataclass(frozen=True)
class Picture(Answer):
    wrote: str


def _picture(out: str) -> str:
    """The picture's file, checked before any work: a folder that exists, a format
    matplotlib writes (by the name's extension; none: PNG)."""
    path = out_path(out, ".png")
    _pyplot()
    from matplotlib.backend_bases import FigureCanvasBase

    kinds = FigureCanvasBase.get_supported_filetypes()
    ext = os.path.splitext(path)[1][1:].lower()
    if ext not in kinds:
        raise InputError(
            f"--out {out}: pictures are written as {', '.join(sorted(kinds))} "
            f"(by the file's extension), not {ext!r}"
        )
    return path


def _save(plt, fig, out: str, dpi: int) -> None:
    """The figure to its file, never half-written, in the format its extension names."""
    with atomic_file(out) as f:
        fig.savefig(f, dpi=dpi, format=os.path.splitext(out)[1][1:].lower())
    plt.close(fig)


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'dicesolver[plot]'") from None
    return plt


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
    rs = aimed(rule_set(rules), target).beating(beat)
    refuse_pyramiding(rs, "zilch plot endgame")
    refuse_challenge(rs, "zilch plot endgame")
    out = _picture(out)
    plt = _pyplot()
    tab = tables_of(rs, tables).last_turn
    sol = tab.levels[not not_on_board][0]
    u = rs.unit
    d = np.arange(tab.max_deficit + 1)
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
    T = min(sol.roll.shape[2], tab.max_deficit + 2)
    grid = np.maximum(sol.roll[:, n, :T], sol.bank[:, n, :T])
    im = ax2.imshow(
        grid.T,
        origin="lower",
        aspect="auto",
        cmap="viridis",
        extent=(0, tab.max_deficit * u, 0, (T - 1) * u),
    )
    act = sol.bank[:, n, :T] >= sol.roll[:, n, :T]
    first = np.where(act.any(axis=1), act.argmax(axis=1), np.nan)
    ax2.plot(d * u, first * u, "w-", lw=1.2, label="bank from here up")
    fig.colorbar(im, ax=ax2, label="P(win)")
    ax2.set(xlabel="deficit", ylabel="turn total", title=f"P(win) with {n} dice to roll")
    ax2.legend(loc="upper left")
    fig.tight_layout()
    _save(plt, fig, out, 110)
    return Picture(out)


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
    rs = rule_set(rules).beating(beat)
    out = _picture(out)
    tab = tables_of(rs, tables)
    on = not not_on_board
    dist = exact_distribution(tab.model, resolve_policy(policy, tab, on), on)
    samples = read_scores(results, column) if results else None
    _draw_distribution(rs, dist, out, policy, samples)
    return Picture(out)


def _draw_distribution(rs: RuleSet, dist: Distribution, out: str, policy: str, samples) -> None:
    plt = _pyplot()
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
        title=f"{rs.name}: turn score under the {policy} policy",
    )
    ax.set_xlim(-rs.unit, dist.quantile(0.9999) + rs.unit)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    _save(plt, fig, out, 110)


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
    scores fixed at `others` points (plot_nplayer)."""
    from .base import stored_game

    rs = aimed(rule_set(rules), target)
    if players != 2:
        if step is not None:
            raise InputError("--step is for the two-player picture (its bank heat maps)")
        return plot_nplayer(rs, out, tables, players, others)
    if others:
        raise InputError("--others is for --players 3 or more")
    refuse_pyramiding(rs, "zilch plot game")
    from .. import variants

    v = variants.of(rs, players)
    if not v.draws:
        v.refuse("the game's picture")
    out = _picture(out)
    R, u = rs.reach_units(), rs.unit
    if step is not None and (step <= 0 or step % u or step >= R * u):
        raise InputError(
            f"--step must be a positive multiple of {u} below {R * u} (the target), got {step}"
        )
    step_u = max(1, (step // u) if step else R // 20)
    if (R // step_u + 1) ** 2 > 10_000:
        raise InputError(
            f"--step {step}: {(R // step_u + 1) ** 2} score pairs to solve; "
            f"use a step of at least {u * -(-R // 99)}"
        )
    _, g = stored_game(tables_of(rs, tables))  # (its inputs checked first)
    W = g.W
    pts = np.arange(0, R, step_u)
    first = bank_from(g, pts)
    plt = _pyplot()
    n_plots = rs.dice + 1
    cols = 4
    fig, axes = plt.subplots(
        (n_plots + cols - 1) // cols,
        cols,
        figsize=(4.2 * cols, 3.6 * ((n_plots + cols - 1) // cols)),
    )
    axes = axes.ravel()
    ext = (0, (R - 1) * u, 0, (R - 1) * u)
    im = axes[0].imshow(W.T, origin="lower", extent=ext, cmap="viridis", vmin=0, vmax=1)
    axes[0].set(
        title=f"{rs.name} to {g.target}: P(win)", xlabel="my score", ylabel="opponent's score"
    )
    fig.colorbar(im, ax=axes[0])
    for i, n in enumerate(range(rs.dice, 0, -1), start=1):
        if n == rs.dice and rs.hot_dice == "mandatory":
            axes[i].set_axis_off()
            continue
        im = axes[i].imshow(
            first[:, n].reshape(len(pts), len(pts)).T, origin="lower", extent=ext, cmap="magma"
        )
        axes[i].set(
            title=f"bank from (turn total), {n} dice", xlabel="my score", ylabel="opponent's score"
        )
        fig.colorbar(im, ax=axes[i])
    for ax in axes[n_plots:]:
        ax.set_axis_off()
    fig.tight_layout()
    _save(plt, fig, out, 100)
    return Picture(out)


def plot_nplayer(rs, out: str, tables, players: int, others: int) -> Picture:
    """Each seat's P(win) (a panel per seat) over the scores of the player to move and of the
    next player, the other players' scores fixed (a slice of the N-player table)."""
    from .base import stored_game

    out = _picture(out)
    _, g = stored_game(tables_of(rs, tables), players)
    u, R = rs.unit, g.R
    if others % u or not 0 <= others < R * u:
        raise InputError(
            f"--others {others}: a score of this game, a multiple of {u} from 0 below {R * u}"
        )
    sl = g.V[(slice(None), slice(None)) + (others // u,) * (players - 2)]  # (R, R, N)
    plt = _pyplot()
    fig, axes = plt.subplots(1, players, figsize=(4.4 * players, 4.4))
    ext = (0, (R - 1) * u, 0, (R - 1) * u)
    for k, ax in enumerate(axes):
        im = ax.imshow(sl[..., k].T, origin="lower", extent=ext, cmap="viridis", vmin=0, vmax=1)
        who = "the player to move" if k == 0 else f"seat {k + 1}"
        ax.set(
            title=f"P(win) of {who}",
            xlabel="score of the player to move",
            ylabel="score of the next player",
        )
        fig.colorbar(im, ax=ax)
    fig.suptitle(
        f"{rs.name} to {g.target}, {players} players; the other players at {others}"
        if players > 2
        else f"{rs.name} to {g.target}"
    )
    fig.tight_layout()
    _save(plt, fig, out, 100)
    return Picture(out)


def bank_from(g, pts: np.ndarray) -> np.ndarray:
    """first[pair, n]: the smallest turn total (points) from which optimal play banks with n
    dice left, no permanent points held (NaN: it never does), for every pair of scores
    (a, b) in pts x pts (units): each pair's turn solved by the game's own turn
    (GameTable.turns: piggyback offers and levels of permanent points included)."""
    rows = np.array([(a, b) for a in pts for b in pts])
    sol = g.turns(rows).levels()[0]
    banks = sol.bank >= sol.roll
    banks[:, :, 0] = False
    first = np.where(banks.any(axis=2), banks.argmax(axis=2), np.nan)
    return first * g.rules.unit
