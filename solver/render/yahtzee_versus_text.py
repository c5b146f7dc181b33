"""The Yahtzee answers against other players as text: advise/value --opponents, versus."""

from __future__ import annotations

from typing import Any


def opponents(a: Any) -> str:
    """P(win) against the opponents' sheets (answers/yahtzee_versus.py)."""
    how = "exact" if a.exact else "heuristic: opponents play for the expected score"
    head = [
        f"{a.rules}: score {a.score} against {len(a.opponents)} opponent(s) "
        f"(their best final: mean {a.opponents_best_mean:.2f}); {a.method}, {how}",
    ]
    if a.options is None:
        return "\n".join(
            head + [f"  P(win) {a.p_win:.9f}  (expected final {a.expected_final:.4f})"]
        )
    head.append(f"  dice {' '.join(map(str, a.dice))}, {a.rolls_left} rolls left")
    head.append(f"  {'score in' if a.rolls_left == 0 else 'keep':<22} P(win)       expected final")
    for o in a.options[:15]:
        label = o["box"] if "box" in o else (" ".join(map(str, o["keep"])) or "(reroll all)")
        head.append(f"  {label:<22} {o['p_win']:.9f}  {o['expected_final']:9.4f}")
    if len(a.options) > 15:
        head.append(f"  ... {len(a.options) - 15} more (--json for all)")
    return "\n".join(head)


def versus(a: Any) -> str:
    """yahtzee versus: P(win) of one policy against N - 1 copies of another."""
    se = f" +- {a.stderr:.4f} ({a.games} games, seed {a.seed})" if a.stderr is not None else ""
    return (
        f"{a.rules}: {a.policy} against {a.players - 1} x {a.vs}\n"
        f"  P(win) {a.p_win:.6f}{se}  (a fair share: {a.fair_share:.4f}; {a.method}"
        f"{', exact' if a.exact else ''})\n"
        f"  mean final {a.mean:.4f} against {a.vs_mean:.4f}"
    )
