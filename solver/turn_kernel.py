"""The backward pass of turn.py compiled with numba, for table builds only (the full game):
queries never import it.  Same arithmetic as the numpy loop in turn.solve_turn, row by row:
each batch row's induction is independent, so rows run in parallel."""
import numba
import numpy as np


@numba.njit(cache=True, parallel=True)
def backward(flat, base, opt_start, opt_end, out_n, prob, pz, zilch, bank_full, roll, cap,
             S, L, ex_flat, ex_bank, ex_zilch):
    """flat (S*L, B): V of every state (rows (s*L + r)); filled for r < cap.  roll (S, L, B).
    ex_flat (E, S*L, B): extras under the optimal policy, filled likewise."""
    B = flat.shape[1]
    O = prob.shape[0]
    N = S - 1
    E = ex_flat.shape[0]
    for b in numba.prange(B):
        Rn = np.empty(N)
        Re = np.empty((E, N))
        pick = np.empty(O, np.int64)
        for r in range(cap - 1, -1, -1):
            for n in range(N):
                Rn[n] = 0.0
                for j in range(E):
                    Re[j, n] = 0.0
            for o in range(O):
                best = -np.inf
                bk = opt_start[o]
                for k in range(opt_start[o], opt_end[o]):
                    v = flat[base[k] + r, b]
                    if v > best:
                        best = v
                        bk = k
                pick[o] = bk
                Rn[out_n[o]] += prob[o] * best
            for n in range(N):
                Rn[n] += pz[n + 1] * zilch[b]
            for j in range(E):
                for o in range(O):
                    Re[j, out_n[o]] += prob[o] * ex_flat[j, base[pick[o]] + r, b]
                for n in range(N):
                    Re[j, n] += pz[n + 1] * ex_zilch[j, b]
            for s in range(S):
                n = N - 1 if s == 0 else s - 1
                rv = Rn[n]
                roll[s, r, b] = rv
                bv = bank_full[s, r, b]
                banks = bv >= rv
                flat[s * L + r, b] = bv if banks else rv
                for j in range(E):
                    ex_flat[j, s * L + r, b] = ex_bank[j, r, b] if banks else Re[j, n]
