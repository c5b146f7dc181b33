"""Pictures (matplotlib, written to files; no display needed)."""
from __future__ import annotations

import numpy as np

from . import InputError
from .rules import RuleSet


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'dicesolver[plot]'") from None
    return plt


def plot_endgame(rs: RuleSet, out: str, on_board: bool = True, tables_dir=None) -> None:
    """Left: P(win) of a last turn against the deficit, one line per dice count at turn
    total 0 (log scale: it falls geometrically).  Right: P(win) with N-1 dice over (deficit,
    turn total), and the roll/bank boundary (the smallest total at which banking is optimal;
    in a last turn it sits one unit above the deficit wherever banking is allowed)."""
    from .endgame import last_turn_table
    plt = _pyplot()
    tab = last_turn_table(rs, tables_dir)
    sol = tab.levels[on_board][0]
    u = rs.unit
    d = np.arange(tab.max_deficit + 1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    for n in range(rs.dice, 0, -1):
        s = 0 if n == rs.dice else n
        ax1.plot(d * u, np.maximum(sol.roll[d, s, 0], sol.bank[d, s, 0]), label=f"{n} dice")
    ax1.set_yscale("log")
    ax1.set(xlabel="deficit (points behind the leader)", ylabel="P(win) from turn total 0",
            title=f"{rs.name}: last turn")
    ax1.legend()
    ax1.grid(alpha=0.3, which="both")
    n = max(rs.dice - 1, 1)
    T = min(sol.roll.shape[2], tab.max_deficit + 2)
    grid = np.maximum(sol.roll[:, n, :T], sol.bank[:, n, :T])
    im = ax2.imshow(grid.T, origin="lower", aspect="auto", cmap="viridis",
                    extent=(0, tab.max_deficit * u, 0, (T - 1) * u))
    act = sol.bank[:, n, :T] >= sol.roll[:, n, :T]
    first = np.where(act.any(axis=1), act.argmax(axis=1), np.nan)
    ax2.plot(d * u, first * u, "w-", lw=1.2, label="bank from here up")
    fig.colorbar(im, ax=ax2, label="P(win)")
    ax2.set(xlabel="deficit", ylabel="turn total", title=f"P(win) with {n} dice to roll")
    ax2.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_distribution(rs: RuleSet, dist, out: str, policy: str, samples=None) -> None:
    """Exact probability of each recorded turn score (bars), simulated frequencies (dots)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(11, 4.8))
    keep = dist.probs > 1e-7
    ax.bar(dist.totals[keep], dist.probs[keep], width=rs.unit * 0.8, color="#4477aa",
           label=f"exact (mean {dist.mean:.1f}, P(zilch) {dist.p_zilch:.4f})")
    if samples is not None and len(samples):
        vals, cnt = np.unique(samples, return_counts=True)
        ax.plot(vals, cnt / len(samples), "o", ms=3.5, color="#ee6677",
                label=f"simulated (n = {len(samples)}, mean {samples.mean():.1f})")
    ax.set_yscale("log")
    ax.set(xlabel="points recorded by the turn", ylabel="probability",
           title=f"{rs.name}: turn score under the {policy} policy")
    ax.set_xlim(-rs.unit, dist.quantile(0.9999) + rs.unit)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_game(g, out: str, step: int | None = None) -> None:
    """Top left: P(win) of the player to move over (my score, opponent score).  Then, for
    each dice count, the smallest turn total at which optimal play banks, on a coarser grid
    of score pairs (each pair's turn solved on demand)."""
    from .game import _Finals, _pair_payoff
    from .turn import build_model, solve_turn
    plt = _pyplot()
    rs, W = g.rules, g.W
    R, u = W.shape[0], rs.unit
    step_u = max(1, (step // u) if step else R // 20)
    pts = np.arange(0, R, step_u)
    rows = [(a, b) for a in pts for b in pts]
    model = build_model(rs)
    z = np.array([1.0 - W[b, a] for a, b in rows])
    sol = solve_turn(model, _pair_payoff(rs, model, W, _Finals(rs, R, g.finals), rows, z, R))
    banks = sol.bank >= sol.roll
    banks[:, :, 0] = False
    n_plots = rs.dice + 1
    cols = 4
    fig, axes = plt.subplots((n_plots + cols - 1) // cols, cols, figsize=(4.2 * cols, 3.6 * (
        (n_plots + cols - 1) // cols)))
    axes = axes.ravel()
    ext = (0, (R - 1) * u, 0, (R - 1) * u)
    im = axes[0].imshow(W.T, origin="lower", extent=ext, cmap="viridis", vmin=0, vmax=1)
    axes[0].set(title=f"{rs.name} to {g.target}: P(win)", xlabel="my score",
                ylabel="opponent's score")
    fig.colorbar(im, ax=axes[0])
    for i, n in enumerate(range(rs.dice, 0, -1), start=1):
        if n == rs.dice and rs.hot_dice == "mandatory":
            axes[i].set_axis_off()
            continue
        first = np.where(banks[:, n].any(axis=1), banks[:, n].argmax(axis=1), np.nan) * u
        im = axes[i].imshow(first.reshape(len(pts), len(pts)).T, origin="lower", extent=ext,
                            cmap="magma")
        axes[i].set(title=f"bank from (turn total), {n} dice", xlabel="my score",
                    ylabel="opponent's score")
        fig.colorbar(im, ax=axes[i])
    for ax in axes[n_plots:]:
        ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
