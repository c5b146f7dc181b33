"""The single-turn MDP of the Zilch family, solved for any payoff of ending the turn.

States.  ``s = 0``: the player must roll all N dice (start of the turn, or hot dice where
they are mandatory); ``s = n`` (1..N): n dice to roll, free to roll or bank.  The second
coordinate ``r`` is the turn total *at risk* (the points a zilch loses), in the rule set's
unit; permanent points are kept apart (see ``Payoff.permanent``), so without permanent
combinations r is simply the turn total.  Every choice adds at least one unit to r or adds
permanent points, so the states are solved by backward induction over r.

Payoff.  ``bank(r)`` is the value of banking at r (``-inf`` where a minimum forbids it),
``zilch`` the value of a zilch; both per batch row b, so one pass solves many utilities at
once (on/off the board, every deficit of a last turn, ...).  A choice with permanent points
leads either to this same problem with a bonus per permanent unit added to its value
(linear utilities: expected points) or to another solved problem (payoff.py).

The cap on r.  Beyond the point where the payoff is affine in r (``Payoff.tail``), every
value is affine in r too: the asymptotic policy is found by policy iteration on
(slope, intercept) pairs compared lexicographically, and each decision of that policy beats
every alternative for all r past the alternatives' crossing point.  The grid ends at the
largest crossing point (and the tail's start), so the affine tail is the exact solution there:
the cap is not a guess and costs nothing in exactness.  ``tests/test_turn.py`` checks it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..limits import check_memory, turn_bytes
from ..outcomes.model import TurnModel, endless
from . import kernel
from .payoff import Payoff
from .solution import TurnSolution

EPS = 1e-12

# permanent units -> the (a, b) affine tail per state of the problem that follows them
SourceTails = dict[int, tuple[np.ndarray, np.ndarray]]


def _lexmax_choice(
    a: np.ndarray, b: np.ndarray, starts: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per segment of the last axis, the first index of the lexicographically largest (a, b)."""
    amax = np.maximum.reduceat(a, starts, axis=-1)
    seg = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, size)))
    ok = a >= amax[..., seg] - EPS
    bb = np.where(ok, b, -np.inf)
    bmax = np.maximum.reduceat(bb, starts, axis=-1)
    ok &= bb >= bmax[..., seg] - EPS * np.maximum(1.0, np.abs(bmax[..., seg]))
    # the first index of each segment that reaches the maximum
    idx = np.where(ok, np.arange(size), size)
    return np.minimum.reduceat(idx, starts, axis=-1), seg


@dataclass(frozen=True, eq=False)
class _Picked:
    """A fixed policy's choice of every outcome (B, O): the state it leads to (tgt) and the
    units it adds at risk (sh); own: it stays in this problem, else it leads to a
    permanent-points source, whose affine tail (ea, eb) there it takes."""

    tgt: np.ndarray
    sh: np.ndarray
    own: np.ndarray
    ea: np.ndarray
    eb: np.ndarray


def _picked(model: TurnModel, pick: np.ndarray, src_tails: SourceTails) -> _Picked:
    tgt, sh, pm = model.target[pick], model.shift[pick], model.perm[pick]
    own = pm == 0 if src_tails else np.ones_like(pick, bool)
    ea = np.zeros(pick.shape)
    eb = np.zeros(pick.shape)
    for units, (sa, sb) in src_tails.items():
        sel = pm == units
        ta = np.take_along_axis(sa, tgt, 1)
        ea = np.where(sel, ta, ea)
        eb = np.where(sel, ta * sh + np.take_along_axis(sb, tgt, 1), eb)
    return _Picked(tgt, sh, own, ea, eb)


def _by_dice(model: TurnModel, x: np.ndarray) -> np.ndarray:
    """(B, G): x (B, O), per outcome, weighted by its chance and summed over each dice
    count's outcomes."""
    out = np.zeros((len(x), model.states - 1))
    np.add.at(out, (np.arange(len(x))[:, None], model.out_group), x * model.prob)
    return out


def _stay_matrix(model: TurnModel, pc: _Picked, bank: np.ndarray) -> np.ndarray:
    """I - P (B, S, S): P the chances of moving between this problem's states under the
    policy (a banking state moves nowhere)."""
    B, S = bank.shape[0], model.states
    outs = pc.tgt.shape[1]
    Wn = np.zeros((B, S - 1, S))
    np.add.at(
        Wn,
        (np.repeat(np.arange(B), outs), np.tile(model.out_group, B), pc.tgt.ravel()),
        (np.where(pc.own, model.prob, 0.0)).ravel(),
    )
    P = Wn[:, model.state_group, :] * (~bank)[:, :, None]
    return np.eye(S)[None] - P


def _affine_eval(
    model: TurnModel,
    pick: np.ndarray,
    bank: np.ndarray,
    slope: np.ndarray,
    intercept: np.ndarray,
    zilch: np.ndarray,
    src_tails: SourceTails,
    bonus: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Affine values (a, b) per state of a fixed policy far out in r, and its roll parts.

    pick (B, O): the choice of every outcome; bank (B, S): banks in the tail; the payoff of
    banking is slope * r + intercept; src_tails: permanent units -> (a, b) of that source.
    The slopes first: each intercept takes its successors' slopes times their shifts.
    """
    pc = _picked(model, pick, src_tails)
    M = _stay_matrix(model, pc, bank)
    by_state = model.state_group
    ext_a = _by_dice(model, np.where(pc.own, 0.0, pc.ea))
    ext_b = _by_dice(model, np.where(pc.own, 0.0, pc.eb) + bonus[pick])
    ext_b += model.p_zilch[1:] * zilch[:, None]
    a = _solve_affine(model, M, np.where(bank, slope[:, None], ext_a[:, by_state]))
    shift_term = _by_dice(model, np.where(pc.own, np.take_along_axis(a, pc.tgt, 1) * pc.sh, 0.0))
    cb = np.where(bank, intercept[:, None], (ext_b + shift_term)[:, by_state])
    b = _solve_affine(model, M, cb)
    ra, rb = _roll_parts(model, pc, a, b, bonus[pick], zilch)
    return a, b, ra[:, by_state], rb[:, by_state]


def _roll_parts(
    model: TurnModel,
    pc: _Picked,
    a: np.ndarray,
    b: np.ndarray,
    bonus: np.ndarray,
    zilch: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(B, G) the affine value of rolling each dice count under the policy, given the
    states' (a, b)."""
    a_next = np.take_along_axis(a, pc.tgt, 1)
    ra = _by_dice(model, np.where(pc.own, a_next, pc.ea))
    own_b = np.where(pc.own, a_next * pc.sh + np.take_along_axis(b, pc.tgt, 1), pc.eb) + bonus
    rb = _by_dice(model, own_b)
    rb += model.p_zilch[1:] * zilch[:, None]
    return ra, rb


def _solve_affine(model: TurnModel, M: np.ndarray, c: np.ndarray) -> np.ndarray:
    """M x = c per row.  M is singular where the policy rolls forever without risk (every
    roll scores): such a turn never ends, and these rules cannot be solved."""
    try:
        return np.linalg.solve(M, c[..., None])[..., 0]
    except np.linalg.LinAlgError:
        raise InputError(endless(model.rules)) from None


@dataclass(frozen=True, eq=False)
class _AffineTail:
    """The turn far out in r (r -> infinity), where every value is affine in r: (a, b) per
    state of the optimum (worth a r + b), its roll parts, where it banks, its choices (None
    where every free state banks and every choice is worth the same), and the largest
    crossing point of any decision against its alternatives (the grid ends past it)."""

    a: np.ndarray  # (B, S)
    b: np.ndarray
    roll_a: np.ndarray  # (B, S)
    roll_b: np.ndarray
    bank: np.ndarray  # (B, S) bool
    pick: np.ndarray | None  # (B, O)
    cross: float


@dataclass(frozen=True, eq=False)
class _Greedy:
    """The greedy policy against affine values: every choice's (oa, ob) (B, K), the best
    choice of every outcome (pick, seg: each choice's outcome), the roll parts by state, and
    where banking beats rolling."""

    oa: np.ndarray
    ob: np.ndarray
    pick: np.ndarray
    seg: np.ndarray
    roll_a: np.ndarray
    roll_b: np.ndarray
    bank: np.ndarray


def tail_cross(model: TurnModel, pay: Payoff) -> float:
    """The turn total past which banking is best everywhere (the affine tail's crossing),
    without solving the grid: milliseconds (tables.score_seconds sizes a build by it)."""
    return _tail(model, pay, {}).cross


def _tail(model: TurnModel, pay: Payoff, src_tails: SourceTails) -> _AffineTail:
    """Asymptotic (r -> infinity) values: policy iteration on affine functions of r."""
    B, S = pay.batch, model.states
    ba, bi = pay.tail.slope.astype(float), pay.tail.intercept.astype(float)
    if _banks_everywhere(model, pay, src_tails):
        a, b, rla, rlb = _banking_tail(model, bi, pay.zilch)
        bank = np.ones((B, S), bool)
        bank[:, 0] = False
        return _AffineTail(a, b, rla, rlb, bank, None, 0.0)
    a = np.repeat(ba[:, None], S, axis=1)
    b = np.repeat(bi[:, None], S, axis=1)
    bonus = pay.permanent.bonus * model.perm
    sources = _source_choices(model, B, src_tails)
    policy = None
    for _ in range(100):
        g = _greedy(model, a, b, sources, bonus, ba, bi, pay.zilch)
        new_policy = (g.pick.tobytes(), g.bank.tobytes())
        if new_policy == policy:
            break
        policy = new_policy
        a, b, _, _ = _affine_eval(model, g.pick, g.bank, ba, bi, pay.zilch, src_tails, bonus)
    else:
        raise InputError(
            f"{model.rules.name}: the turn's policy far past the grid does not settle "
            "(policy iteration, 100 steps): these rules cannot be solved"
        )
    return _AffineTail(a, b, g.roll_a, g.roll_b, g.bank, g.pick, _crossing(g, ba, bi))


def _source_choices(
    model: TurnModel, B: int, src_tails: SourceTails
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(own, ext_a, ext_b): which choices stay in this problem (K,), and for the others the
    affine tail (B, K) of the permanent-points source they lead to, at their target and
    shift (fixed: it does not depend on this problem's policy)."""
    K = len(model.shift)
    own = np.ones(K, bool)
    ext_a = np.zeros((B, K))
    ext_b = np.zeros((B, K))
    for units, (sa, sb) in src_tails.items():
        sel = model.perm == units
        own &= ~sel
        ext_a[:, sel] = sa[:, model.target[sel]]
        ext_b[:, sel] = sa[:, model.target[sel]] * model.shift[sel] + sb[:, model.target[sel]]
    return own, ext_a, ext_b


def _greedy(
    model: TurnModel,
    a: np.ndarray,
    b: np.ndarray,
    sources: tuple[np.ndarray, np.ndarray, np.ndarray],
    bonus: np.ndarray,
    ba: np.ndarray,
    bi: np.ndarray,
    zilch: np.ndarray,
) -> _Greedy:
    """Policy improvement against values a r + b per state (B, S): each outcome's
    lexicographically best choice, each free state rolling or banking (at ba r + bi)."""
    own, ext_a, ext_b = sources
    oa = np.where(own, a[:, model.target], ext_a)
    ob = np.where(own, a[:, model.target] * model.shift + b[:, model.target], ext_b) + bonus
    pick, seg = _lexmax_choice(oa, ob, model.opt_start, len(model.shift))
    rows = np.arange(len(a))[:, None]
    w = model.prob
    ra = np.add.reduceat(oa[rows, pick] * w, model.out_start, axis=1)
    rb = (
        np.add.reduceat(ob[rows, pick] * w, model.out_start, axis=1)
        + model.p_zilch[1:] * zilch[:, None]
    )
    rla = ra[:, model.state_group]  # (B, S) roll, by state
    rlb = rb[:, model.state_group]
    bank = (rla < ba[:, None] - EPS) | ((np.abs(rla - ba[:, None]) <= EPS) & (rlb <= bi[:, None]))
    bank[:, 0] = False
    return _Greedy(oa, ob, pick, seg, rla, rlb, bank)


def _crossing(g: _Greedy, ba: np.ndarray, bi: np.ndarray) -> float:
    """The largest r at which an alternative (another choice, or rolling against banking)
    crosses the policy's decision: past it the policy is optimal for every r."""
    cross = 0.0
    rows = np.arange(len(g.pick))[:, None]
    ca_, cb_ = g.oa[rows, g.pick][..., g.seg], g.ob[rows, g.pick][..., g.seg]
    steeper = ca_ - g.oa > EPS
    if steeper.any():
        cross = max(
            cross,
            float(np.max(np.where(steeper, (g.ob - cb_) / np.where(steeper, ca_ - g.oa, 1), 0))),
        )
    rla, rlb = g.roll_a, g.roll_b
    roll_steeper = rla - ba[:, None]
    free = np.ones(rla.shape[1], bool)
    free[0] = False
    with np.errstate(divide="ignore", invalid="ignore"):
        x1 = np.where(
            g.bank & (ba[:, None] - rla > EPS), (rlb - bi[:, None]) / (ba[:, None] - rla), 0
        )
        x2 = np.where(~g.bank & (roll_steeper > EPS) & free, (bi[:, None] - rlb) / roll_steeper, 0)
    return max(cross, float(np.max(x1)), float(np.max(x2)))


def _banks_everywhere(model: TurnModel, pay: Payoff, src_tails: SourceTails) -> bool:
    """Is the tail a constant payoff at least every zilch, with no way back to the
    must-roll state (optional hot dice) and nothing permanent?  Then every free state banks
    there and every choice is worth the same: the tail needs no policy iteration (a game's
    turns, whose payoff beyond the grid is the sure win 1)."""
    return (
        not src_tails
        and not np.any(pay.tail.slope)
        and pay.tail.forced is None
        and not np.any(pay.permanent.bonus * model.perm)
        and not np.any(model.target == 0)
        and bool(np.all(pay.zilch <= pay.tail.intercept))
        and all(not np.any(e.tail.slope) for e in pay.extras)
    )


def _banking_tail(
    model: TurnModel, intercept: np.ndarray, zilch: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, roll a, roll b) per state where every free state banks at `intercept`: a roll
    of n dice is worth (1 - pz_n) intercept + pz_n zilch, the must-roll state's value."""
    B, S = len(intercept), model.states
    pz = model.p_zilch[1:][model.state_group]  # by state
    rlb = (1.0 - pz)[None, :] * intercept[:, None] + pz[None, :] * zilch[:, None]
    b = np.repeat(intercept[:, None].astype(float), S, axis=1)
    b[:, 0] = rlb[:, 0]
    zero = np.zeros((B, S))
    return zero, b, zero.copy(), rlb


def solve_turn(model: TurnModel, pay: Payoff) -> TurnSolution:
    """Optimal values of every state, and the extras' values under that optimal policy."""
    B, S, ne = pay.batch, model.states, len(pay.extras)
    src_list = sorted(pay.permanent.sources.items())
    tail = _tail(model, pay, {u: (sol.tail_a, sol.tail_b) for u, sol in src_list})
    cap = max(pay.tail.start, math.floor(tail.cross) + 1, *(sol.cap for _, sol in src_list))
    L = cap + model.max_shift + 1
    nsrc = 1 + len(src_list)
    check_memory(
        turn_bytes(B * nsrc, S, L, ne),
        f"a turn solve of {B} rows x {L} totals",
        "ask about smaller scores, deficits or targets",
    )
    # V and the extras (other payoffs evaluated under the optimal policy) of every state:
    # ALL[v, b, source, s, r], source 0 this problem, then the permanent-points sources
    ALL = np.empty((1 + ne, B, nsrc, S, L))
    bank_pay, extra_bank = bank_payoffs(pay, B, L)
    _lay_sources(ALL, src_list)
    roll = np.empty((B, S, L))
    _lay_tail(ALL[0, :, 0], roll, pay, tail, bank_pay, cap)
    ex_tails = _extra_tails(model, pay, src_list, tail) if ne else None
    if ex_tails is not None:
        _lay_extra_tails(ALL[1:, :, 0], pay, ex_tails, tail, extra_bank, cap)
    row = nsrc * S * L
    backward(
        model,
        pay,
        src_list,
        ALL.reshape(1 + ne, B * row),
        roll,
        bank_pay,
        extra_bank,
        np.full(B, cap - 1),  # each row's first r to solve
        np.arange(B) * row,
        np.full(B, L),
        L,
        lambda: ALL,
        lambda full: None,
    )
    sol = TurnSolution(
        model,
        cap,
        roll,
        bank_values(bank_pay, roll.shape),
        tail.a,
        tail.b,
        tail.roll_a,
        tail.roll_b,
        pay.tail.slope.astype(float),
        pay.tail.intercept.astype(float),
    )
    if ex_tails is not None:
        sol.extras = np.ascontiguousarray(ALL[1:, :, 0])
        sol.extras_a, sol.extras_b = ex_tails
    return sol


def _lay_sources(ALL: np.ndarray, src_list: Sequence[tuple[int, Any]]) -> None:
    """The permanent-points sources' values and extras, as sources 1.. of ALL (1 + E, B,
    sources, S, L): read, not solved."""
    L = ALL.shape[-1]
    for i, (_, sol) in enumerate(src_list, start=1):
        ALL[0, :, i] = sol.extended(L)
        for j in range(len(ALL) - 1):
            ALL[1 + j, :, i] = sol.extended_extra(j, L)


def _lay_tail(
    V: np.ndarray,
    roll: np.ndarray,
    pay: Payoff,
    tail: _AffineTail,
    bank_pay: np.ndarray,
    cap: int,
) -> None:
    """Past the cap, where the affine tail is exact: rolling (B, S, L) is worth
    roll_a r + roll_b (the must-roll state's from the payoff's exact recursion where one is
    given), and V (B, S, L) the policy's choice of rolling or banking."""
    tail_r = np.arange(roll.shape[2])[cap:]
    roll[:, :, cap:] = tail.roll_a[:, :, None] * tail_r + tail.roll_b[:, :, None]
    if pay.tail.forced is not None:
        roll[:, 0, cap:] = np.asarray(pay.tail.forced(tail_r), float).reshape(len(roll), -1)
    V[:, :, cap:] = np.where(tail.bank[:, :, None], bank_pay[:, :, cap:], roll[:, :, cap:])


def _extra_tails(
    model: TurnModel, pay: Payoff, src_list: Sequence[tuple[int, Any]], tail: _AffineTail
) -> tuple[np.ndarray, np.ndarray]:
    """The extras' affine tails (a, b), each (E, B, S), under the tail's policy."""
    B, S, ne = pay.batch, model.states, len(pay.extras)
    if tail.pick is None:  # every free state banks in the tail (_banks_everywhere)
        parts = [
            _banking_tail(
                model, np.broadcast_to(e.tail.intercept, (B,)), np.broadcast_to(e.zilch, (B,))
            )
            for e in pay.extras
        ]
        return np.stack([t[0] for t in parts]), np.stack([t[1] for t in parts])
    # every extra under the same tail policy: one batch of E B rows
    ea, eb, _, _ = _affine_eval(
        model,
        np.tile(tail.pick, (ne, 1)),
        np.tile(tail.bank, (ne, 1)),
        _rows_of(B, [e.tail.slope for e in pay.extras]),
        _rows_of(B, [e.tail.intercept for e in pay.extras]),
        _rows_of(B, [e.zilch for e in pay.extras]),
        {u: (_rows_of(B, sol.extras_a), _rows_of(B, sol.extras_b)) for u, sol in src_list},
        0.0 * (pay.permanent.bonus * model.perm),  # (the extras never take the bonus)
    )
    return ea.reshape(ne, B, S), eb.reshape(ne, B, S)


def _rows_of(B: int, xs: Iterable[Any]) -> np.ndarray:
    """Each of xs broadcast to B rows, one after the other."""
    return np.concatenate([np.broadcast_to(x, (B,) + np.shape(x)[1:]) for x in xs])


def _lay_extra_tails(
    EX: np.ndarray,
    pay: Payoff,
    ex_tails: tuple[np.ndarray, np.ndarray],
    tail: _AffineTail,
    extra_bank: np.ndarray,
    cap: int,
) -> None:
    """The extras EX (E, B, S, L) past the cap: their affine tails (constant where every
    free state banks there), a banking state's its bank payoffs."""
    B, L = EX.shape[1], EX.shape[3]
    tail_r = np.arange(L)[cap:]
    ea, eb = ex_tails
    if tail.pick is None:
        EX[..., cap:] = eb[..., None]
    else:
        EX[..., cap:] = ea[..., None] * tail_r + eb[..., None]
    # a banking state's extras are their own bank payoffs, as its value takes bank_pay:
    # exact also where an extra is not affine yet (the N-player game's other players'
    # chances, past the mover's banking cut), and its must-roll state's from the extra's
    # own exact recursion where one is given
    EX[..., cap:] = np.where(
        tail.bank[None, :, :, None], extra_bank[:, :, None, cap:], EX[..., cap:]
    )
    for j, e in enumerate(pay.extras):
        if e.tail.forced is not None:
            EX[j, :, 0, cap:] = np.asarray(e.tail.forced(tail_r), float).reshape(B, -1)


def bank_values(bank_pay: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The value of banking (B, S, L): its payoff, never in the must-roll state."""
    bank = np.array(np.broadcast_to(bank_pay, shape))
    bank[:, 0] = -np.inf
    return bank


def bank_payoffs(pay: Payoff, B: int, L: int) -> tuple[np.ndarray, np.ndarray]:
    """The payoffs of banking on totals 0..L-1: (B, 1, L) (or (B, S, L) where it depends
    on the state) and the extras' (E, B, L)."""
    r = np.arange(L)
    bank = np.ascontiguousarray(np.asarray(pay.bank(r), float).reshape(B, -1, L))
    extra = (
        np.ascontiguousarray(
            np.stack([np.broadcast_to(e.bank(r), (B, L)) for e in pay.extras]), float
        )
        if pay.extras
        else np.zeros((0, B, L))
    )
    return bank, extra


def backward(
    model: TurnModel,
    pay: Payoff,
    src_list: Sequence[tuple[int, object]],
    ALL: np.ndarray,
    roll: np.ndarray,
    bank_pay: np.ndarray,
    extra_bank: np.ndarray,
    start: np.ndarray,
    offset: np.ndarray,
    length: np.ndarray,
    L: int,
    rect: Callable[[], np.ndarray],
    unrect: Callable[[np.ndarray], None],
) -> None:
    """The backward pass over ALL (1 + E, total), row b's (source i, state s, total r) at
    offset[b] + (i * S + s) * length[b] + r (rows.Ragged): the C kernel, or the numpy loop
    on the rectangular grid rect() (results put back by unrect)."""
    S = model.states
    src_of = np.zeros(len(model.shift), np.int64)
    for i, (units, _) in enumerate(src_list, start=1):
        src_of[model.perm == units] = i
    bonus = pay.permanent.bonus * model.perm
    self_loop = bool(np.any((src_of == 0) & (model.shift == 0)))
    zil = np.stack([pay.zilch] + [e.zilch for e in pay.extras]).astype(float)  # (1+E, B)
    fn = None if self_loop or np.any(bonus) else kernel.compiled()
    if fn is not None:
        fn(
            ALL[0],
            src_of * S + model.target,
            model.shift,
            model.opt_start,
            np.append(model.opt_start[1:], len(model.shift)),
            model.out_group,
            model.prob,
            model.p_zilch,
            zil[0],
            bank_pay,
            roll,
            start,
            offset.astype(np.int64),
            length.astype(np.int64),
            S,
            L,
            ALL[1:],
            extra_bank,
            zil[1:],
            kernel.threads(int((start + 1).sum())),
            model.zero_group,
        )
    else:
        full = rect()
        base = (src_of * S + model.target) * L + model.shift
        _sweep_numpy(model, full, roll, bank_pay, extra_bank, zil, base, bonus, start, self_loop)
        unrect(full)


def _sweep_numpy(
    model: TurnModel,
    ALL: np.ndarray,
    roll: np.ndarray,
    bank_pay: np.ndarray,
    extra_bank: np.ndarray,
    zil: np.ndarray,
    base: np.ndarray,
    bonus: np.ndarray,
    start: np.ndarray,
    self_loop: bool,
) -> None:
    """The backward pass in numpy, where no compiled one is available (or permanent
    points loop back to the same state, or carry a bonus: expected points).

    Batch last (copies in, results back): a choice's values for every batch row are one
    contiguous vector.  The choices of an outcome are taken one "slot" at a time, outcomes
    with the most choices first: slot j holds the j-th choice of the first n[j] outcomes,
    so the best choice (the first of equals, as the extras need) is a running maximum
    over slots of contiguous gathers, V and the extras together; a 0/1 matrix sums the
    outcomes by dice count."""
    T = np.ascontiguousarray(ALL.transpose(0, 2, 3, 4, 1))  # (1+E, src, S, L, B)
    grid = _batch_last(model, T, roll, bank_pay, extra_bank, zil)
    slots = _slots(model, base, bonus)
    lower = min(zil[0].min(), 0.0)
    first_r = int(start.max(initial=-1))
    # rows solved at r: those with start >= r, a suffix when rows are sorted by boundary
    lo_of = np.searchsorted(start, np.arange(first_r + 1), side="left")
    for r in range(first_r, -1, -1):
        _sweep_total(grid, slots, model.zero_group, r, int(lo_of[r]), self_loop, lower)
    if roll.size:
        roll[:] = grid.roll.transpose(2, 0, 1)
    ALL[:, :, 0] = T[:, 0].transpose(0, 3, 1, 2)


@dataclass(frozen=True, eq=False)
class _BatchLast:
    """The numpy pass's arrays, batch last: flat (1 + E, source * S * L, B) holds V and the
    extras of every source (V, EX: this problem's, views of it); roll (S, L, B); bank
    (S, L, B), never in the must-roll state; bank_ex (E, L, 1, B) the extras' bank payoffs;
    pz (1 + E, G, B) a zilch's worth times its chance, by dice count."""

    flat: np.ndarray
    V: np.ndarray
    EX: np.ndarray
    roll: np.ndarray
    bank: np.ndarray
    bank_ex: np.ndarray
    pz: np.ndarray


def _batch_last(
    model: TurnModel,
    T: np.ndarray,
    roll: np.ndarray,
    bank_pay: np.ndarray,
    extra_bank: np.ndarray,
    zil: np.ndarray,
) -> _BatchLast:
    E1, _, S, L, B = T.shape
    rollT = np.ascontiguousarray(roll.transpose(1, 2, 0)) if roll.size else np.empty((S, L, B))
    # (a copy: bank_pay may be the caller's own array, and the must-roll row is set below)
    bank_full = np.array(np.broadcast_to(bank_pay, (B, S, L)).transpose(1, 2, 0), order="C")
    bank_full[0] = -np.inf
    return _BatchLast(
        T.reshape(E1, -1, B),
        T[0, 0],
        T[1:, 0],
        rollT,
        bank_full,
        extra_bank.transpose(0, 2, 1)[:, :, None, :],
        model.p_zilch[None, 1:, None] * zil[:, None, :],
    )


@dataclass(frozen=True, eq=False)
class _Slots:
    """The choices one slot at a time (see _sweep_numpy): slot j's n[j] choices at flat
    offsets base[j] (+ r) with their bonus[j] (O_j, 1); wsum (G, O) sums the outcomes, in
    slot order, by dice count, weighted by their chances."""

    n: list[int]
    base: list[np.ndarray]
    bonus: list[np.ndarray]
    has_bonus: bool
    wsum: np.ndarray


def _slots(model: TurnModel, base: np.ndarray, bonus: np.ndarray) -> _Slots:
    counts = np.diff(np.append(model.opt_start, len(base)))
    order = np.argsort(-counts, kind="stable")
    n_slot = [int((counts > j).sum()) for j in range(int(counts.max()))]
    choice = [model.opt_start[order[:n]] + j for j, n in enumerate(n_slot)]
    wsum = (model.out_group[order][None, :] == np.arange(model.states - 1)[:, None]) * (
        model.prob[order]
    )
    return _Slots(
        n_slot,
        [base[c] for c in choice],
        [bonus[c][:, None] for c in choice],
        bool(np.any(bonus)),
        wsum,
    )


def _sweep_total(
    grid: _BatchLast,
    slots: _Slots,
    zero: int,
    r: int,
    lo: int,
    self_loop: bool,
    lower: float,
) -> None:
    """Every state at total r of the rows lo.. (batch order): one Bellman update, or where
    choices loop back to total r, updates to the fixed point, the extras with the values."""
    bank_r = grid.bank[:, r, lo:]  # (S, B')
    if self_loop:
        grid.V[:, r] = np.maximum(bank_r, lower)
        grid.EX[:, :, r, lo:] = 0.0
    for _ in range(500 if self_loop else 1):
        new, new_ex = _bellman(grid, slots, zero, r, lo, bank_r)
        if (
            self_loop
            and np.array_equal(new, grid.V[:, r, lo:])
            and (new_ex is None or np.array_equal(new_ex, grid.EX[:, :, r, lo:]))
        ):
            break
        grid.V[:, r, lo:] = new
        if new_ex is not None:
            grid.EX[:, :, r, lo:] = new_ex


def _bellman(
    grid: _BatchLast, slots: _Slots, zero: int, r: int, lo: int, bank_r: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """The value (S, B') at total r: rolling (laid into grid.roll) or banking; and the
    extras (E, S, B') of that decision (None without extras)."""
    R = np.matmul(slots.wsum, _best_choices(grid.flat, slots, r, lo)) + grid.pz[:, :, lo:]
    grid.roll[1:, r, lo:] = R[0]  # (1+E, G, B') by dice count; the must-roll state rolls N
    grid.roll[0, r, lo:] = R[0, zero]
    new = np.maximum(grid.roll[:, r, lo:], bank_r)
    if len(R) == 1:
        return new, None
    Re = np.concatenate([R[1:, zero : zero + 1], R[1:]], axis=1)  # by state
    return new, np.where(bank_r >= grid.roll[:, r, lo:], grid.bank_ex[:, r, :, lo:], Re)


def _best_choices(flat: np.ndarray, slots: _Slots, r: int, lo: int) -> np.ndarray:
    """(1 + E, O, B'): V and the extras of each outcome's best choice at total r (the first
    of equals), a running maximum over the slots."""
    best = flat[:, slots.base[0] + r, lo:]  # (1+E, O, B')
    if slots.has_bonus:
        best[0] += slots.bonus[0]
    for j in range(1, len(slots.n)):
        gj = flat[:, slots.base[j] + r, lo:]
        if slots.has_bonus:
            gj[0] += slots.bonus[j]
        np.copyto(best[:, : slots.n[j]], gj, where=gj[0] > best[0, : slots.n[j]])
    return best
