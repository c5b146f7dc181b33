"""Simulated two-player games with physical dice, optimal against optimal (with a final
round the other player then takes his optimal last turn; Zonk's offers are taken where the
game table says so): the check of the game tables.  Every turn is played by the package's
one simulator (play/simulate.py) with the game's own turn solution as the policy."""

from __future__ import annotations

import numpy as np

from dicesolver.objectives.last_turn import solve_last_turn
from dicesolver.play.policies import OptimalPolicy
from dicesolver.play.simulate import play_turns


def _policy(levels) -> OptimalPolicy:
    """The optimal play of solved turns, each situation on its own batch row."""
    return OptimalPolicy(levels.values, None, cap=max(lv.cap for lv in levels), levels=len(levels))


def play_games(g, n_games: int, rng: np.random.Generator) -> np.ndarray:
    """The first mover's result per game (1 win, 0 loss, the tie value for a tie after a
    final round)."""
    rules, model = g.rules, g.model
    R = g.W.shape[0]
    pairs = np.array([(a, b) for a in range(R) for b in range(R)])
    turns = _policy(g.turns(pairs).levels())
    score = np.zeros((n_games, 2), np.int64)
    offer = np.zeros((n_games, 2), np.int64)  # piggyback: dice left and total banked
    result = np.full(n_games, -1.0)
    mover = 0
    while (result < 0).any():
        act = np.nonzero(result < 0)[0]
        me, opp = score[act, mover], score[act, 1 - mover]
        start = None
        if g.O is not None:  # take the offer where that beats a fresh start
            n, t = offer[act, 0], offer[act, 1]
            take = (t > 0) & np.isfinite(g.O.lookup(me, opp, n, np.minimum(t, R - 1)))
            start = (np.where(take, n, 0), np.where(take, t, 0), 0)
        on_board = np.array([rules.on_board(x) for x in me], bool)
        played = play_turns(
            model, turns, len(act), rng, on_board, start, me * R + opp, dice_left=True
        )
        offer[act] = np.column_stack([played.left, played.points])
        score[act, mover] += played.points
        _settle(model, score, act[score[act, mover] >= R], mover, result, rng)
        mover = 1 - mover
    return result


def _settle(model, score, done, mover, result, rng) -> None:
    """The results of the games `done` whose mover has just reached the target: a win at
    once, or the other player's optimal last turn."""
    if model.rules.end == "instant":
        result[done] = 1.0 if mover == 0 else 0.0
    elif len(done):  # the other player's last turn
        last = score[done, 1 - mover] + _last_turns(
            model, score[done, mover] - score[done, 1 - mover], score[done, 1 - mover] > 0, rng
        )
        # as the solver counts it: the last player's tie value is taken from the leader
        mine = np.where(
            score[done, mover] > last,
            1.0,
            np.where(score[done, mover] == last, 1.0 - model.rules.tie, 0.0),
        )
        result[done] = mine if mover == 0 else 1.0 - mine


def _last_turns(model, deficits: np.ndarray, on_board: np.ndarray, rng) -> np.ndarray:
    """Units scored by optimal last turns against each deficit (units): the end-game's
    policy, one batch of turns per board flag (a row per deficit)."""
    rules = model.rules
    flags = on_board | (not rules.entry_minimum)  # (the deficits' board flags)
    out = np.zeros(len(deficits), np.int64)
    for flag in np.unique(flags):
        games = np.nonzero(flags == flag)[0]
        ds, row = np.unique(deficits[games], return_inverse=True)
        levels = solve_last_turn(model, ds * rules.unit, bool(flag))  # every deficit at once
        out[games] = play_turns(
            model, _policy(levels), len(games), rng, bool(flag), rows=row.ravel()
        ).points
    return out


def play_penalty_games(g, n_games: int, rng: np.random.Generator) -> np.ndarray:
    """Games where the third zilch in a row costs a penalty (objectives/penalty_game.py),
    optimal against optimal: each turn by its state's turn (scores and both counts), a
    zilch moving the count, the third charging the penalty (down to the lowest score kept);
    the other player's optimal last turn once the target is reached.  The first mover's
    result per game."""
    rules, model = g.rules, g.model
    R, lo, n = g.R, g.lo, g.W.shape[2]
    P = rules.three_zilch_penalty // rules.unit
    ka, kb, a, b = np.meshgrid(
        np.arange(3), np.arange(3), np.arange(n), np.arange(n), indexing="ij"
    )
    states = np.column_stack([a.ravel() + lo, b.ravel() + lo, ka.ravel(), kb.ravel()])
    sol = g.turns(states)
    turns = OptimalPolicy(lambda row, s, r, p: sol.at_rows(row, s, r), None, cap=sol.cap, levels=1)
    score = np.zeros((n_games, 2), np.int64)
    count = np.zeros((n_games, 2), np.int64)
    result = np.full(n_games, -1.0)
    mover = 0
    while (result < 0).any():
        act = np.nonzero(result < 0)[0]
        me, opp = score[act, mover], score[act, 1 - mover]
        k_me, k_opp = count[act, mover], count[act, 1 - mover]
        row = ((k_me * 3 + k_opp) * n + (me - lo)) * n + (opp - lo)
        cost = np.where(k_me == 2, P, 0)
        played = play_turns(model, turns, len(act), rng, True, None, row, penalty=cost)
        score[act, mover] = np.maximum(me + played.points, lo)
        count[act, mover] = np.where(played.zilched, (k_me + 1) % 3, 0)
        # (in the other player's last turn his count cannot matter)
        _settle(model, score, act[score[act, mover] >= R], mover, result, rng)
        mover = 1 - mover
    return result


def play_overtaking_games(g, n_games: int, rng: np.random.Generator) -> np.ndarray:
    """Games under overtaking (objectives/overtaking_game.py), optimal against optimal: each
    turn by its state's turn (scores and the opponent's last bank, 0 after his zilch); once
    a bank reaches the target the other player's last turn is played by the last-turn
    solver's own policy under the rules with that bank to beat (rules.beating), not by the
    game's formula for it.  The first mover's result per game."""
    from dataclasses import replace

    rules, model = g.rules, g.model
    u, R = rules.unit, g.W.shape[0]
    a, b, T = np.nonzero(~np.isnan(g.W))
    states = np.column_stack([a, b, T])
    index = np.full(g.W.shape, -1, np.int64)
    index[a, b, T] = np.arange(len(a))
    sol = g.turns(states)
    turns = OptimalPolicy(lambda row, s, r, p: sol.at_rows(row, s, r), None, cap=sol.cap, levels=1)
    score = np.zeros((n_games, 2), np.int64)
    last = np.zeros(n_games, np.int64)  # the last bank of the player who moved before
    result = np.full(n_games, -1.0)
    mover = 0
    while (result < 0).any():
        act = np.nonzero(result < 0)[0]
        me, opp = score[act, mover], score[act, 1 - mover]
        played = play_turns(model, turns, len(act), rng, True, None, index[me, opp, last[act]])
        score[act, mover] += played.points
        last[act] = played.points  # (0 after a zilch)
        done = act[score[act, mover] >= R]
        for t in np.unique(last[done]):  # the other player's last turn, t to beat
            games = done[last[done] == t]
            d = score[games, mover] - score[games, 1 - mover]
            ds, row = np.unique(d, return_inverse=True)
            m = replace(model, rules=rules.beating(int(t) * u))
            levels = solve_last_turn(m, ds * u, True)
            pts = play_turns(m, _policy(levels), len(games), rng, True, rows=row.ravel()).points
            final = score[games, 1 - mover] + pts
            lead = score[games, mover]
            mine = np.where(lead > final, 1.0, np.where(lead == final, 1.0 - rules.tie, 0.0))
            result[games] = mine if mover == 0 else 1.0 - mine
        mover = 1 - mover
    return result


def play_challenge_games(g, n_games: int, rng: np.random.Generator) -> np.ndarray:
    """Games under the challenge rule (objectives/challenge_game.py), optimal against
    optimal: before each turn the mover challenges where the challenge turn's value beats
    the plain turn's (both from the game's turns), then plays that turn with physical dice;
    a challenged bank comes off the opponent, a challenge's zilch costs its price; once a
    bank reaches the target the other player challenges in his last turn where that is
    worth more, and plays the chosen last turn by its own solver.  The first mover's result
    per game."""
    from dicesolver.objectives.challenge_game import BELOW, BOTH

    rules, model, st = g.rules, g.model, g.st
    u, R, lo = rules.unit, g.R, g.lo
    sa, sb, a, b = np.nonzero(np.isfinite(g.W))
    states = np.column_stack([a + lo, b + lo, sa, sb])
    index = np.full(g.W.shape, -1, np.int64)
    index[sa, sb, a, b] = np.arange(len(a))
    plain = g.turns(states, challenge=False)
    use = np.nonzero(st.usable(states[:, 0], states[:, 2]))[0]
    chal = g.turns(states[use], challenge=True)
    crow = np.full(len(states), -1, np.int64)
    crow[use] = np.arange(len(use))
    take = np.zeros(len(states), bool)
    take[use] = chal.roll[:, 0, 0] > plain.roll[use, 0, 0]
    policies = [
        OptimalPolicy(lambda row, s, r, p, t=t: t.at_rows(row, s, r), None, cap=t.cap, levels=1)
        for t in (plain, chal)
    ]
    costs = np.array(rules.challenge_costs) // u
    score = np.zeros((n_games, 2), np.int64)
    status = np.full((n_games, 2), st.code(BOTH, not rules.entry_minimum))
    result = np.full(n_games, -1.0)
    mover = 0
    while (result < 0).any():
        act = np.nonzero(result < 0)[0]
        me, opp = score[act, mover], score[act, 1 - mover]
        s_me, s_opp = status[act, mover], status[act, 1 - mover]
        row = index[s_me, s_opp, me - lo, opp - lo]
        assert (row >= 0).all()
        challenging = take[row]
        pts = np.zeros(len(act), np.int64)
        zil = np.zeros(len(act), bool)
        for c in (False, True):
            sel = np.nonzero(challenging == c)[0]
            if len(sel):
                rows = crow[row[sel]] if c else row[sel]
                on = np.asarray(st.on(s_me[sel]), bool)
                played = play_turns(model, policies[c], len(sel), rng, on, None, rows)
                pts[sel], zil[sel] = played.points, played.zilched
        bit = np.where(challenging, st.usable(me, s_me), 0)
        cost = np.where(bit == BELOW, costs[0], costs[1])
        new_me = np.where(challenging & zil, np.maximum(me - cost, lo), me + pts)
        new_opp = np.where(challenging & ~zil, opp - pts, opp)  # (cut at lo inside the game)
        score[act, mover] = new_me
        score[act, 1 - mover] = np.where(new_me >= R, new_opp, np.maximum(new_opp, lo))
        status[act, mover] = np.where(~zil, st.banked(s_me & ~bit), s_me & ~bit)
        done = act[new_me >= R]
        if len(done):
            if rules.end == "instant":
                result[done] = 1.0 if mover == 0 else 0.0
            else:
                result[done] = _challenge_last_turns(
                    g, score[done, mover], score[done, 1 - mover], status[done, 1 - mover], rng
                )
                if mover == 1:
                    result[done] = 1.0 - result[done]
        mover = 1 - mover
    return result


def _challenge_last_turns(g, lead, y, sy, rng) -> np.ndarray:
    """The leader's result against the other player's last turn (his score y, status sy),
    who challenges where that is worth more, each turn by its own solver's policy."""
    from dicesolver.objectives.challenge_game import challenge_last_payoff
    from dicesolver.turn import solve_levels

    rules, model, st = g.rules, g.model, g.st
    d = lead - y
    on = np.asarray(st.on(sy), bool) | (not rules.entry_minimum)
    usable = st.usable(y, sy) > 0
    out = np.empty(len(d))
    for flag in np.unique(on):
        games = np.nonzero(on == flag)[0]
        ds, row = np.unique(d[games], return_inverse=True)
        row = row.ravel()
        plain = solve_last_turn(model, ds * rules.unit, bool(flag))
        H = int(ds.max()) // 2 + 2
        chal = solve_levels(
            model, challenge_last_payoff(rules.share(2), ds, H), np.ones(len(ds)), bool(flag)
        )
        c = usable[games] & (chal[0].roll[row, 0, 0] > plain[0].roll[row, 0, 0])
        x = np.empty(len(games), np.int64)
        for pick, levels in ((False, plain), (True, chal)):
            sel = np.nonzero(c == pick)[0]
            if len(sel):
                x[sel] = play_turns(
                    model, _policy(levels), len(sel), rng, bool(flag), rows=row[sel]
                ).points
        # a challenge's bank also comes off the leader
        theirs = y[games] + x
        mine = lead[games] - np.where(c, x, 0)
        out[games] = np.where(mine > theirs, 1.0, np.where(mine == theirs, 1.0 - rules.tie, 0.0))
    return out


def play_nplayer_games(g, n_games: int, rng: np.random.Generator) -> np.ndarray:
    """Each seat's result per game ((n_games, N), seats in the order of the first turn): 1
    for the winner, k tied players share (rules.share(k) each).  Every turn is the mover's
    solved turn from the game's table; after a bank reaching the target the others play
    their optimal last turns in order (final round).
    Where an orbit's movers mix (nplayer_game.mixed_orbit), the mover plays the pure
    policy the tie-break picks: the table's chances there are the mix's."""
    rules, model, N, R = g.rules, g.model, g.players, g.R
    states = np.indices((R,) * N).reshape(N, -1).T
    turns = _policy(g.turns(states).levels)
    score = np.zeros((n_games, N), np.int64)
    result = np.full((n_games, N), -1.0)
    mover = 0
    cache: dict = {}
    while (result[:, 0] < 0).any():
        act = np.nonzero(result[:, 0] < 0)[0]
        seats = [(mover + k) % N for k in range(N)]
        rel = score[act][:, seats]
        on_board = np.array([rules.on_board(x) for x in rel[:, 0]], bool)
        rows = np.ravel_multi_index(tuple(rel.T), (R,) * N)
        played = play_turns(model, turns, len(act), rng, on_board, None, rows)
        score[act, mover] += played.points
        for i in act[score[act, mover] >= R]:
            final = score[i].copy()
            if rules.end != "instant":
                _final_round(model, g, final, seats, cache, rng)
            top = final == final.max()
            result[i] = np.where(top, rules.share(int(top.sum())), 0.0)
        mover = (mover + 1) % N
    return result


def _final_round(model, g, final: np.ndarray, seats: list[int], cache: dict, rng) -> None:
    """The others' last turns in order after seats[0] banked to final[seats[0]] (units):
    a middle player's turn from the final round solved for that leader, the last one's
    from the last-turn solve against the leader and the tie count."""
    from dicesolver.objectives.final_round import solve_final_round

    rules, u = model.rules, model.rules.unit
    for j, p in enumerate(seats[1:], start=1):
        lead = int(max(final[q] for q in seats[:j]))
        tied = int(sum(final[q] == lead for q in seats[:j]))
        flag = rules.on_board(int(final[p]))
        if j < len(seats) - 1:
            later = tuple(int(final[q]) for q in seats[j:])
            key = ("mid", lead, tied, later)
            if key not in cache:
                fr = solve_final_round(model, lead * u, tied, [x * u for x in later], g.finals.D)
                cache[key] = _policy(fr.players[0].levels(0))
            rows = np.zeros(1, np.int64)
        else:
            key = ("last", lead - int(final[p]), tied, flag)
            if key not in cache:
                cache[key] = _policy(solve_last_turn(model, [key[1] * u], flag, tied))
            rows = np.zeros(1, np.int64)
        final[p] += play_turns(model, cache[key], 1, rng, flag, rows=rows).points[0]
