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

import numpy as np

from ..errors import InputError
from ..limits import check_memory, turn_bytes
from ..outcomes.model import TurnModel, endless
from . import kernel
from .payoff import Payoff
from .solution import TurnSolution

EPS = 1e-12


def _lexmax_choice(a, b, starts, size):
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


def _affine_eval(model: TurnModel, pick, bank, slope, intercept, zilch, src_tails, bonus):
    """Affine values (a, b) per state of a fixed policy far out in r, and its roll parts.

    pick (B, O): the choice of every outcome; bank (B, S): banks in the tail; the payoff of
    banking is slope * r + intercept; src_tails: permanent units -> (a, b) of that source.
    """
    B, S = bank.shape[0], model.states
    G = S - 1  # groups of outcomes (a state's roll)
    rows = np.arange(B)[:, None]
    tgt, sh, pm = model.target[pick], model.shift[pick], model.perm[pick]
    own = pm == 0 if src_tails else np.ones_like(pick, bool)
    ea = np.zeros(pick.shape)
    eb = np.zeros(pick.shape)
    for units, (sa, sb) in src_tails.items():
        sel = pm == units
        ta = np.take_along_axis(sa, tgt, 1)
        ea = np.where(sel, ta, ea)
        eb = np.where(sel, ta * sh + np.take_along_axis(sb, tgt, 1), eb)
    w = model.prob
    dice_of = model.out_group
    n_of_state = model.state_group
    Wn = np.zeros((B, G, S))
    np.add.at(
        Wn,
        (np.repeat(np.arange(B), pick.shape[1]), np.tile(dice_of, B), tgt.ravel()),
        (np.where(own, w, 0.0)).ravel(),
    )
    roll = ~bank
    P = Wn[:, n_of_state, :] * roll[:, :, None]
    ext_a = np.zeros((B, G))
    np.add.at(ext_a, (rows, dice_of), np.where(own, 0.0, ea) * w)
    ext_b = np.zeros((B, G))
    np.add.at(ext_b, (rows, dice_of), (np.where(own, 0.0, eb) + bonus[pick]) * w)
    ext_b += model.p_zilch[1:] * zilch[:, None]
    I = np.eye(S)[None]
    ca = np.where(bank, slope[:, None], ext_a[:, n_of_state])
    a = _solve_affine(model, I - P, ca)
    shift_term = np.zeros((B, G))
    np.add.at(
        shift_term, (rows, dice_of), np.where(own, np.take_along_axis(a, tgt, 1) * sh, 0.0) * w
    )
    cb = np.where(bank, intercept[:, None], (ext_b + shift_term)[:, n_of_state])
    b = _solve_affine(model, I - P, cb)
    # roll parts: the value of rolling from each state under the policy
    own_a = np.where(own, np.take_along_axis(a, tgt, 1), ea)
    own_b = (
        np.where(own, np.take_along_axis(a, tgt, 1) * sh + np.take_along_axis(b, tgt, 1), eb)
        + bonus[pick]
    )
    ra = np.zeros((B, G))
    rb = np.zeros((B, G))
    np.add.at(ra, (rows, dice_of), own_a * w)
    np.add.at(rb, (rows, dice_of), own_b * w)
    rb += model.p_zilch[1:] * zilch[:, None]
    return a, b, ra[:, n_of_state], rb[:, n_of_state]


def _solve_affine(model: TurnModel, M: np.ndarray, c: np.ndarray) -> np.ndarray:
    """M x = c per row.  M is singular where the policy rolls forever without risk (every
    roll scores): such a turn never ends, and these rules cannot be solved."""
    try:
        return np.linalg.solve(M, c[..., None])[..., 0]
    except np.linalg.LinAlgError:
        raise InputError(endless(model.rules)) from None


def _tail(model: TurnModel, pay: Payoff, src_tails):
    """Asymptotic (r -> infinity) values: policy iteration on affine functions of r.

    Returns (a, b) per state for the optimum, the roll parts, the tail's bank flags and
    choices (None where every free state banks and every choice is worth the same), and
    the largest crossing point of any decision against its alternatives.
    """
    B, S = pay.batch, model.states
    K = len(model.shift)
    ba, bi = pay.tail.slope.astype(float), pay.tail.intercept.astype(float)
    if _banks_everywhere(model, pay, src_tails):
        a, b, rla, rlb = _banking_tail(model, bi, pay.zilch)
        bank = np.ones((B, S), bool)
        bank[:, 0] = False
        return a, b, rla, rlb, bank, None, 0.0
    a = np.repeat(ba[:, None], S, axis=1)
    b = np.repeat(bi[:, None], S, axis=1)
    bonus = pay.permanent.bonus * model.perm
    own = np.ones(K, bool)
    ext_a = np.zeros((B, K))
    ext_b = np.zeros((B, K))
    for units, (sa, sb) in src_tails.items():
        sel = model.perm == units
        own &= ~sel
        ext_a[:, sel] = sa[:, model.target[sel]]
        ext_b[:, sel] = sa[:, model.target[sel]] * model.shift[sel] + sb[:, model.target[sel]]
    policy = None
    for _ in range(100):
        oa = np.where(own, a[:, model.target], ext_a)
        ob = np.where(own, a[:, model.target] * model.shift + b[:, model.target], ext_b) + bonus
        pick, seg = _lexmax_choice(oa, ob, model.opt_start, K)
        rows = np.arange(B)[:, None]
        w = model.prob
        ra = np.add.reduceat(oa[rows, pick] * w, model.out_start, axis=1)
        rb = (
            np.add.reduceat(ob[rows, pick] * w, model.out_start, axis=1)
            + model.p_zilch[1:] * pay.zilch[:, None]
        )
        rla = ra[:, model.state_group]  # (B, S) roll, by state
        rlb = rb[:, model.state_group]
        bank = (rla < ba[:, None] - EPS) | (
            (np.abs(rla - ba[:, None]) <= EPS) & (rlb <= bi[:, None])
        )
        bank[:, 0] = False
        new_policy = (pick.tobytes(), bank.tobytes())
        if new_policy == policy:
            break
        policy = new_policy
        a, b, _, _ = _affine_eval(model, pick, bank, ba, bi, pay.zilch, src_tails, bonus)
    else:
        raise InputError(
            f"{model.rules.name}: the turn's policy far past the grid does not settle "
            "(policy iteration, 100 steps): these rules cannot be solved"
        )
    # crossing points of every alternative against the chosen one
    cross = 0.0
    ca_, cb_ = oa[rows, pick][..., seg], ob[rows, pick][..., seg]
    steeper = ca_ - oa > EPS
    if steeper.any():
        cross = max(
            cross, float(np.max(np.where(steeper, (ob - cb_) / np.where(steeper, ca_ - oa, 1), 0)))
        )
    roll_steeper = rla - ba[:, None]
    free = np.ones(S, bool)
    free[0] = False
    with np.errstate(divide="ignore", invalid="ignore"):
        x1 = np.where(
            bank & (ba[:, None] - rla > EPS), (rlb - bi[:, None]) / (ba[:, None] - rla), 0
        )
        x2 = np.where(~bank & (roll_steeper > EPS) & free, (bi[:, None] - rlb) / roll_steeper, 0)
    cross = max(cross, float(np.max(x1)), float(np.max(x2)))
    return a, b, rla, rlb, bank, pick, cross


def _banks_everywhere(model: TurnModel, pay: Payoff, src_tails) -> bool:
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


def _banking_tail(model: TurnModel, intercept: np.ndarray, zilch: np.ndarray):
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
    B, S = pay.batch, model.states
    src_list = sorted(pay.permanent.sources.items())
    src_tails = {u: (sol.tail_a, sol.tail_b) for u, sol in src_list}
    a, b, rla, rlb, bank_tail, pick_tail, cross = _tail(model, pay, src_tails)
    cap = max(pay.tail.start, math.floor(cross) + 1, *(sol.cap for _, sol in src_list))
    start = np.full(B, cap - 1)  # each row's first r to solve
    L = cap + model.max_shift + 1
    r_all = np.arange(L)
    nsrc = 1 + len(src_list)
    ne = len(pay.extras)
    bonus = pay.permanent.bonus * model.perm  # (the extras never take the bonus)
    check_memory(
        turn_bytes(B * nsrc, S, L, ne),
        f"a turn solve of {B} rows x {L} totals",
        "ask about smaller scores, deficits or targets",
    )
    # V and the extras (other payoffs evaluated under the optimal policy) of every state:
    # ALL[v, b, source, s, r], source 0 this problem, then the permanent-points sources
    ALL = np.empty((1 + ne, B, nsrc, S, L))
    bank_pay, extra_bank = bank_payoffs(pay, B, L)
    for i, (_, sol) in enumerate(src_list, start=1):
        ALL[0, :, i] = sol.extended(L)
        for j in range(ne):
            ALL[1 + j, :, i] = sol.extended_extra(j, L)
    roll = np.empty((B, S, L))
    tail_r = r_all[cap:]
    roll[:, :, cap:] = rla[:, :, None] * tail_r + rlb[:, :, None]  # past the cap: the tails
    if pay.tail.forced is not None:
        roll[:, 0, cap:] = np.asarray(pay.tail.forced(tail_r), float).reshape(B, -1)
    ALL[0, :, 0, :, cap:] = np.where(bank_tail[:, :, None], bank_pay[:, :, cap:], roll[:, :, cap:])
    ex_tails = []
    if ne and pick_tail is None:  # every free state banks in the tail (_banks_everywhere)
        for e in pay.extras:
            ea, eb, _, _ = _banking_tail(
                model, np.broadcast_to(e.tail.intercept, (B,)), np.broadcast_to(e.zilch, (B,))
            )
            ex_tails.append((ea, eb))
        ALL[1:, :, 0, :, cap:] = np.stack([t[1] for t in ex_tails])[..., None]  # constant
    elif ne:  # every extra under the same tail policy: one batch
        cat = lambda xs: np.concatenate([np.broadcast_to(x, (B,) + np.shape(x)[1:]) for x in xs])
        ea, eb, _, _ = _affine_eval(
            model,
            np.tile(pick_tail, (ne, 1)),
            np.tile(bank_tail, (ne, 1)),
            cat([e.tail.slope for e in pay.extras]),
            cat([e.tail.intercept for e in pay.extras]),
            cat([e.zilch for e in pay.extras]),
            {u: (cat(sol.extras_a), cat(sol.extras_b)) for u, sol in src_list},
            0.0 * bonus,
        )
        ea, eb = ea.reshape(ne, B, S), eb.reshape(ne, B, S)
        ex_tails = list(zip(ea, eb))
        ALL[1:, :, 0, :, cap:] = ea[..., None] * tail_r + eb[..., None]
    if ne:  # past the cap a banking state's extras are their own bank payoffs, as its value
        # takes bank_pay: exact also where an extra is not affine yet (the N-player game's
        # other players' chances, past the mover's banking cut), and its must-roll state's
        # from the extra's own exact recursion where one is given
        ALL[1:, :, 0, :, cap:] = np.where(
            bank_tail[None, :, :, None], extra_bank[:, :, None, cap:], ALL[1:, :, 0, :, cap:]
        )
        for j, e in enumerate(pay.extras, start=1):
            if e.tail.forced is not None:
                ALL[j, :, 0, 0, cap:] = np.asarray(e.tail.forced(tail_r), float).reshape(B, -1)
    row = nsrc * S * L
    backward(
        model,
        pay,
        src_list,
        ALL.reshape(1 + ne, B * row),
        roll,
        bank_pay,
        extra_bank,
        start,
        np.arange(B) * row,
        np.full(B, L),
        L,
        lambda: ALL,
        lambda full: None,
    )
    bank = np.array(np.broadcast_to(bank_pay, (B, S, L)))
    bank[:, 0] = -np.inf
    sol = TurnSolution(
        model,
        cap,
        roll,
        bank,
        a,
        b,
        rla,
        rlb,
        pay.tail.slope.astype(float),
        pay.tail.intercept.astype(float),
    )
    if ne:
        sol.extras = np.ascontiguousarray(ALL[1:, :, 0])
        sol.extras_a = np.stack([t[0] for t in ex_tails])
        sol.extras_b = np.stack([t[1] for t in ex_tails])
    return sol


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
    model, pay, src_list, ALL, roll, bank_pay, extra_bank, start, offset, length, L, rect, unrect
):
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


def _sweep_numpy(model, ALL, roll, bank_pay, extra_bank, zil, base, bonus, start, self_loop):
    """The backward pass in numpy, where no compiled one is available (or permanent
    points loop back to the same state, or carry a bonus: expected points).

    Batch last (copies in, results back): a choice's values for every batch row are one
    contiguous vector.  The choices of an outcome are taken one "slot" at a time, outcomes
    with the most choices first: slot j holds the j-th choice of the first n[j] outcomes,
    so the best choice (the first of equals, as the extras need) is a running maximum
    over slots of contiguous gathers, V and the extras together; a 0/1 matrix sums the
    outcomes by dice count."""
    E1, B, _, S, L = ALL.shape
    T = np.ascontiguousarray(ALL.transpose(0, 2, 3, 4, 1))  # (1+E, src, S, L, B)
    all_flat = T.reshape(E1, -1, B)
    V, EX = T[0, 0], T[1:, 0]
    rollT = np.ascontiguousarray(roll.transpose(1, 2, 0)) if roll.size else np.empty((S, L, B))
    bank_full = np.ascontiguousarray(np.broadcast_to(bank_pay, (B, S, L)).transpose(1, 2, 0))
    bank_full[0] = -np.inf
    bank_ex = extra_bank.transpose(0, 2, 1)[:, :, None, :]  # (E, L, 1, B)
    K = len(base)
    counts = np.diff(np.append(model.opt_start, K))
    order = np.argsort(-counts, kind="stable")
    n_slot = [int((counts > j).sum()) for j in range(int(counts.max()))]
    choice = [model.opt_start[order[:n]] + j for j, n in enumerate(n_slot)]
    slot_base = [base[c] for c in choice]
    slot_bonus = [bonus[c][:, None] for c in choice]
    has_bonus = bool(np.any(bonus))
    wsum = (model.out_group[order][None, :] == np.arange(S - 1)[:, None]) * model.prob[order]
    pz_all = model.p_zilch[None, 1:, None] * zil[:, None, :]  # (1+E, G, B)
    lower = min(zil[0].min(), 0.0)
    zero = model.zero_group  # the must-roll state's group
    first_r = int(start.max(initial=-1))
    # rows solved at r: those with start >= r, a suffix when rows are sorted by boundary
    lo_of = np.searchsorted(start, np.arange(first_r + 1), side="left")
    for r in range(first_r, -1, -1):
        lo = lo_of[r]
        bank_r = bank_full[:, r, lo:]  # (S, B')
        if self_loop:  # iterated to the fixed point, the extras with the values
            V[:, r] = np.maximum(bank_r, lower)
            EX[:, :, r, lo:] = 0.0
        for _ in range(500 if self_loop else 1):
            best = all_flat[:, slot_base[0] + r, lo:]  # (1+E, O, B')
            if has_bonus:
                best[0] += slot_bonus[0]
            for j in range(1, len(n_slot)):
                gj = all_flat[:, slot_base[j] + r, lo:]
                if has_bonus:
                    gj[0] += slot_bonus[j]
                np.copyto(best[:, : n_slot[j]], gj, where=gj[0] > best[0, : n_slot[j]])
            R = np.matmul(wsum, best) + pz_all[:, :, lo:]  # (1+E, G, B')
            rollT[1:, r, lo:] = R[0]
            rollT[0, r, lo:] = R[0, zero]
            new = np.maximum(rollT[:, r, lo:], bank_r)
            if E1 > 1:
                Re = np.concatenate([R[1:, zero : zero + 1], R[1:]], axis=1)  # by state
                new_ex = np.where(bank_r >= rollT[:, r, lo:], bank_ex[:, r, :, lo:], Re)
            if (
                self_loop
                and np.array_equal(new, V[:, r, lo:])
                and (E1 == 1 or np.array_equal(new_ex, EX[:, :, r, lo:]))
            ):
                break
            V[:, r, lo:] = new
            if E1 > 1:
                EX[:, :, r, lo:] = new_ex
    if roll.size:
        roll[:] = rollT.transpose(2, 0, 1)
    ALL[:, :, 0] = T[:, 0].transpose(0, 3, 1, 2)
