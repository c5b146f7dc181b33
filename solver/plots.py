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
