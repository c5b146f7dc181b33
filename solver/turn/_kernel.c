/* The backward pass of turn.solve_turn in C, built by `pip install` (setup.py): the same
 * arithmetic as the numpy loop, one batch row at a time, every state of a row in one
 * contiguous block of memory.  A query loads it like any module: nothing is compiled at
 * run time.  If it could not be built, turn.py runs its numpy loop instead.
 *
 * Rows may have different lengths (ragged: a row solved only up to its own boundary keeps
 * only the totals it needs).  Row b is the block at offset[b] of length[b] totals per
 * state: state s, total r of source i at offset[b] + (i * S + s) * length[b] + r.
 *
 * Arguments (C-contiguous; int64 indices, float64 values; checked by turn.py):
 *   flat (total)           V of every state of every row (source 0, then the permanent-
 *                          points sources); filled for r > start[b], written for r <= start[b]
 *   slot, shift (K)        each choice's next state: source * S + state, and the totals added
 *   opt_start, opt_end (O) the choices of each outcome; out_n (O) its group (ascending):
 *                          state s >= 1 rolls group s - 1, state 0 the group `zero`
 *   prob (O), pz (S), zilch (B)  pz[g + 1]: the chance that group g scores nothing
 *   bank (B, S, L)         the payoff of banking (never at s = 0); or (B, 1, L) where it
 *                          does not depend on the state; L >= every length[b]
 *   roll (B, S, L)         the value of rolling, written for r <= start[b]; or empty: not
 *                          wanted (only the values V and the extras)
 *   start (B)              each row's first r to solve
 *   offset, length (B)     each row's block (see above)
 *   S, L
 *   ex_flat (E, total), ex_bank (E, B, L), ex_zilch (E, B): the extras, other payoffs
 *                          evaluated under the optimal policy (first best choice)
 *   threads (optional)     rows are independent: up to this many threads share them.
 *   zero (optional)        the group of state 0 (must roll all dice); default S - 2
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <pthread.h>
#define KERNEL_THREADS
#endif

/* Sum of prob[o] * v[off[o]] over the outcomes o0..o1 of one dice count, in four
 * accumulators: a single running sum is one long chain of dependent additions. */
static inline double dot(const double *v, const int64_t *off, const double *prob,
                         Py_ssize_t o0, Py_ssize_t o1)
{
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    Py_ssize_t o = o0;
    for (; o + 3 < o1; o += 4) {
        a0 += prob[o] * v[off[o]];
        a1 += prob[o + 1] * v[off[o + 1]];
        a2 += prob[o + 2] * v[off[o + 2]];
        a3 += prob[o + 3] * v[off[o + 3]];
    }
    for (; o < o1; o++) a0 += prob[o] * v[off[o]];
    return (a0 + a1) + (a2 + a3);
}

/* The model's choices and outcomes as the passes read them (see the top of the file). */
typedef struct {
    const int64_t *slot, *shift, *opt_start, *opt_end;
    const Py_ssize_t *out_first;
    const double *prob, *pz;
    Py_ssize_t K, O, S, E, zero;
    int single;                 /* one choice per outcome (forced set-aside): no maximum */
} Model;

/* Scratch space of one thread: the roll values by group, the extras', each outcome's chosen
 * next state and each choice's. */
typedef struct {
    double *Rn, *Re;
    int64_t *off, *base;
} Scratch;

static int scratch_alloc(Scratch *sc, const Model *m)
{
    Py_ssize_t N = m->S > 1 ? m->S - 1 : 1;
    sc->Rn = malloc(sizeof(double) * N);
    sc->Re = malloc(sizeof(double) * (m->E * N + 1));
    sc->off = malloc(sizeof(int64_t) * (m->O + 1));
    sc->base = malloc(sizeof(int64_t) * (m->K + 1));
    return sc->Rn != NULL && sc->Re != NULL && sc->off != NULL && sc->base != NULL;
}

static void scratch_free(Scratch *sc)
{
    free(sc->Rn);
    free(sc->Re);
    free(sc->off);
    free(sc->base);
}

/* One row's backward pass over the totals r = r0 down to 0.  V of state s at total r is
 * fb[s * Lb + r] (read for r > r0, written for r <= r0), extra j's at
 * ex[j * estride + s * Lb + r]; banking in state s is worth bank[s * bstride + r] (-inf:
 * not allowed), extra j's bank payoff exbank[j * xstride + r], its zilch exzilch[j * zstride];
 * roll (or NULL): the value of rolling, written at roll[s * rstride + r].  slack (or NULL):
 * lowered to the least margin of a decision taken (see SLACK below). */
static void pass_row(const Model *m, Scratch *sc, double *fb, Py_ssize_t Lb, int64_t r0,
                     double zilch, const double *bank, Py_ssize_t bstride, double *roll,
                     Py_ssize_t rstride, double *ex, Py_ssize_t estride, const double *exbank,
                     Py_ssize_t xstride, const double *exzilch, Py_ssize_t zstride,
                     double *slack)
{
    double *Rn = sc->Rn, *Re = sc->Re;
    int64_t *off = sc->off, *base = sc->base;
    const int64_t *opt_start = m->opt_start, *opt_end = m->opt_end;
    const Py_ssize_t *out_first = m->out_first;
    const double *prob = m->prob, *pz = m->pz;
    Py_ssize_t S = m->S, E = m->E, N = S - 1;
    /* this row's offset of each choice's next state */
    for (Py_ssize_t k = 0; k < m->K; k++) base[k] = m->slot[k] * Lb + m->shift[k];
    for (Py_ssize_t o = 0; o < m->O; o++) off[o] = base[opt_start[o]];
    for (int64_t r = r0; r >= 0; r--) {
        const double *v = fb + r;
        /* the best choice of each outcome (the first of equals), then V by dice count */
        for (Py_ssize_t o = 0; o < m->O && !m->single; o++) {
            int64_t bk = opt_start[o];
            double best = v[base[bk]], second = -INFINITY;
            for (int64_t k = bk + 1; k < opt_end[o]; k++) {
                double x = v[base[k]];
                if (slack && (x != best || ex[r + base[k]] != ex[r + base[bk]]))
                    second = fmax(second, fmin(x, best)); /* (not the same line as the best) */
                if (x > best) { best = x; bk = k; }
            }
            off[o] = base[bk];
            if (slack && best < 1.0 && best - second < *slack) *slack = best - second;
        }
        for (Py_ssize_t n = 0; n < N; n++)
            Rn[n] = dot(v, off, prob, out_first[n], out_first[n + 1]) + pz[n + 1] * zilch;
        /* the extras under the same choices */
        for (Py_ssize_t j = 0; j < E; j++) {
            const double *ev = ex + j * estride + r;
            for (Py_ssize_t n = 0; n < N; n++)
                Re[j * N + n] = dot(ev, off, prob, out_first[n], out_first[n + 1])
                                + pz[n + 1] * exzilch[j * zstride];
        }
        for (Py_ssize_t s = 0; s < S; s++) {
            Py_ssize_t n = s == 0 ? m->zero : s - 1;
            double rv = Rn[n], bv = bank[s * bstride + r];
            int banks = s > 0 && bv >= rv;
            if (slack && s > 0 && bv > -INFINITY && fabs(bv - rv) < *slack &&
                (bv != rv || Re[n] != 0.0)) /* (a bank is the line bv + 0 z) */
                *slack = fabs(bv - rv);
            if (roll) roll[s * rstride + r] = rv;
            fb[s * Lb + r] = banks ? bv : rv;
            for (Py_ssize_t j = 0; j < E; j++)
                ex[j * estride + s * Lb + r] = banks ? exbank[j * xstride + r] : Re[j * N + n];
        }
    }
}

#define MAX_THREADS 8

/* Rows b0..b1-1 (independent problems): a thread's share. */
typedef struct {
    const void *w;
    Py_ssize_t b0, b1;
    int ok;
} Part;

/* The rows split into `threads` parts of about equal work (weight[b] each), the first run
 * here and the others on threads of their own: rows never read each other. */
static int run_rows(void *(*fn)(void *), const void *w, Py_ssize_t B, const double *weight,
                    int threads)
{
    Part parts[MAX_THREADS];
    double total = 0.0, done = 0.0;
    for (Py_ssize_t b = 0; b < B; b++) total += weight[b];
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    Py_ssize_t b = 0;
    for (int t = 0; t < threads; t++) {
        parts[t].w = w;
        parts[t].b0 = b;
        parts[t].ok = 1;
        while (b < B && (t == threads - 1 || done < total * (t + 1) / threads))
            done += weight[b++];
        parts[t].b1 = b;
    }
#ifdef KERNEL_THREADS
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, fn, &parts[t]) == 0;
    fn(&parts[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else fn(&parts[t]);         /* no thread to be had: do it here */
    }
#else
    for (int t = 0; t < threads; t++) fn(&parts[t]);
#endif
    int ok = 1;
    for (int t = 0; t < threads; t++) ok &= parts[t].ok;
    return ok;
}

/* Everything one backward pass reads and writes (see the top of the file). */
typedef struct {
    Model m;
    double *flat, *roll, *ex_flat;
    const int64_t *start, *offset, *length;
    const double *zilch, *bank, *ex_bank, *ex_zilch;
    Py_ssize_t B, total, L, bS;
} Sweep;

static void *sweep(void *arg)
{
    Part *part = arg;
    const Sweep *w = part->w;
    Scratch sc;
    if (!scratch_alloc(&sc, &w->m)) {
        part->ok = 0;
        scratch_free(&sc);
        return NULL;
    }
    Py_ssize_t B = w->B, S = w->m.S, L = w->L, bS = w->bS;
    for (Py_ssize_t b = part->b0; b < part->b1; b++)
        pass_row(&w->m, &sc, w->flat + w->offset[b], w->length[b], w->start[b], w->zilch[b],
                 w->bank + b * bS * L, bS > 1 ? L : 0, w->roll ? w->roll + b * S * L : NULL, L,
                 w->ex_flat + w->offset[b], w->total, w->ex_bank + b * L, B * L,
                 w->ex_zilch + b, B, NULL);
    scratch_free(&sc);
    return NULL;
}

/* Outcomes come grouped by dice count (group): out_first[n] is the first of group n. */
static Py_ssize_t *groups_first(const int64_t *on, Py_ssize_t O, Py_ssize_t S)
{
    Py_ssize_t *out_first = malloc(sizeof(Py_ssize_t) * (S > 0 ? S : 1));
    if (out_first == NULL) return NULL;
    for (Py_ssize_t n = 0, o = 0; n < S; n++) {
        while (o < O && on[o] < n) o++;
        out_first[n] = o;
    }
    return out_first;
}

static void model_of(Model *m, Py_buffer *slot, Py_buffer *shift, Py_buffer *opt_start,
                     Py_buffer *opt_end, Py_buffer *prob, Py_buffer *pz, Py_ssize_t S,
                     Py_ssize_t E, Py_ssize_t zero)
{
    m->slot = slot->buf;
    m->shift = shift->buf;
    m->opt_start = opt_start->buf;
    m->opt_end = opt_end->buf;
    m->prob = prob->buf;
    m->pz = pz->buf;
    m->K = slot->len / (Py_ssize_t)sizeof(int64_t);
    m->O = prob->len / (Py_ssize_t)sizeof(double);
    m->S = S;
    m->E = E;
    m->zero = zero >= 0 && zero < S - 1 ? zero : S - 2;
    m->single = 1;
    for (Py_ssize_t o = 0; o < m->O; o++)
        m->single &= m->opt_end[o] == m->opt_start[o] + 1;
    m->out_first = NULL;
}

static PyObject *backward(PyObject *self, PyObject *args)
{
    Py_buffer flat, slot, shift, opt_start, opt_end, out_n, prob, pz, zilch, bank, roll, start,
        offset, length, ex_flat, ex_bank, ex_zilch;
    Py_ssize_t S, L;
    int threads = 1;
    Py_ssize_t zero = -1;
    if (!PyArg_ParseTuple(args, "w*y*y*y*y*y*y*y*y*y*w*y*y*y*nnw*y*y*|in", &flat, &slot, &shift,
                          &opt_start, &opt_end, &out_n, &prob, &pz, &zilch, &bank, &roll,
                          &start, &offset, &length, &S, &L, &ex_flat, &ex_bank, &ex_zilch,
                          &threads, &zero))
        return NULL;
    Sweep w;
    w.B = zilch.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t E = w.B ? ex_zilch.len / (Py_ssize_t)sizeof(double) / w.B : 0;
    model_of(&w.m, &slot, &shift, &opt_start, &opt_end, &prob, &pz, S, E, zero);
    w.total = flat.len / (Py_ssize_t)sizeof(double);
    w.bS = w.B && L ? bank.len / (Py_ssize_t)sizeof(double) / (w.B * L) : 1;
    w.L = L;
    w.flat = flat.buf;
    w.roll = roll.len ? roll.buf : NULL;
    w.ex_flat = ex_flat.buf;
    w.start = start.buf;
    w.offset = offset.buf;
    w.length = length.buf;
    w.zilch = zilch.buf;
    w.bank = bank.buf;
    w.ex_bank = ex_bank.buf;
    w.ex_zilch = ex_zilch.buf;
    Py_ssize_t *out_first = groups_first(out_n.buf, w.m.O, S);
    double *weight = malloc(sizeof(double) * (w.B ? w.B : 1));
    int ok = 0;
    if (out_first != NULL && weight != NULL) {
        w.m.out_first = out_first;
        for (Py_ssize_t b = 0; b < w.B; b++) weight[b] = (double)(w.start[b] + 1);
        Py_BEGIN_ALLOW_THREADS
        ok = run_rows(sweep, &w, w.B, weight, threads);
        Py_END_ALLOW_THREADS
    }
    free(out_first);
    free(weight);
    Py_buffer *all[] = {&flat, &slot, &shift, &opt_start, &opt_end, &out_n, &prob, &pz, &zilch,
                        &bank, &roll, &start, &offset, &length, &ex_flat, &ex_bank, &ex_zilch};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PyBuffer_Release(all[i]);
    if (!ok) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* Sum of prob[o] * v[o] over the outcomes o0..o1, in the four accumulators of dot. */
static inline double dot_direct(const double *v, const double *prob, Py_ssize_t o0, Py_ssize_t o1)
{
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    Py_ssize_t o = o0;
    for (; o + 3 < o1; o += 4) {
        a0 += prob[o] * v[o];
        a1 += prob[o + 1] * v[o + 1];
        a2 += prob[o + 2] * v[o + 2];
        a3 += prob[o + 3] * v[o + 3];
    }
    for (; o < o1; o++) a0 += prob[o] * v[o];
    return (a0 + a1) + (a2 + a3);
}

/* game_starts: the values at the start of game turns (state 0, nothing at risk) and the
 * extras' there, without the grid of a whole solution.  Row b banks at U[b, r] (1 beyond
 * span), from r >= mins[b]; past its cut stops[b] every free state banks (the caller shows
 * it: turn_payoff's cut), so its backward pass starts at stops[b] - 1; where hot dice are
 * mandatory (hot[k]: choice k leads back to the must-roll state) the must-roll state past
 * the cut is its own recursion over the totals up to span, free states banking, and beyond
 * span its limit (free states worth 1, hot dice again with probability p_hot).  The extras
 * ex_bank (E, B, spanE; 0 beyond), ex_zilch (E, B) are valued under the same choices.
 * Chain tables (one choice per outcome: the must-roll state's value past the cut is then
 * alpha + beta z, its zilch chance beta, functions of a deficit that many rows share): from
 * r >= tab_at[b] on, the value is alpha[i] + beta[i] z[b] at i = tab_pos[b] + (r - tab_at[b])
 * * tab_stride[b] (the one extra, the zilch chance, beta[i]); past tab_len[b] entries, the
 * limit.  tab_at[b] >= span + maxshift: no table.  lanes (optional, default true): rows
 * four at a time where the CPU has AVX2 and no family is asked (lanes_rows: the same bits).
 * slack (optional, B; no family): each row's least decision margin (SLACK below), extra 0
 * being the zilch chance. */
typedef struct {
    Model m;
    const double *U, *z, *ex_bank, *ex_zilch, *alpha, *beta;
    const int64_t *mins, *stops, *hot, *tab_at, *tab_pos, *tab_len, *tab_stride;
    double *out_v, *out_ex;
    Py_ssize_t B, span, spanE, maxshift;
    double p_hot;
    int chain;
    /* the family of minimums (with_minimum): row b's values with the minimums fam_first[b]
     * .. + fam_count[b] - 1 to fam_out[fam_pos[b] ..]; fam_count NULL: none */
    const double *q, *zq;
    const int64_t *fam_first, *fam_count, *fam_pos;
    double *fam_out;
    Py_ssize_t n_m;
    int lanes; /* rows LANES at a time (where built): the same bits as one at a time */
    double *slack; /* SLACK: each row's least margin (or NULL: not wanted) */
    /* MUST-ROLL TABLES.  ex_alpha (E - 1, n_tab; or NULL): the chain tables of extras 1..E-1,
     * a row's extra j at table entry i being ex_alpha[j - 1][i] + beta[i] ex_zilch[j, b]
     * (their part of the chain's banks, and the zilch's); mr_out (B, E + 1, span; or NULL):
     * each row's must-roll value and extras at r from its cut to span, written out (the
     * caller's tables for the next solve of the same payoffs: with one choice per outcome
     * they are alpha + beta z, alpha and beta independent of z).  single: the must-roll
     * state has one choice per outcome (a table then holds no decision: no slack lost). */
    const double *ex_alpha;
    Py_ssize_t n_tab;
    double *mr_out;
    int single;
    /* single: the must-roll state's outcomes summed by where they lead (a shift, banked or
     * hot dice again): mr_nb banked (shift mr_bs[i], probability mr_bp[i]), then mr_nh hot
     * (mr_hs, mr_hp) -- a few dozen sums for hundreds of outcomes (zilch: 462 -> 35) */
    int64_t *mr_bs, *mr_hs;
    double *mr_bp, *mr_hp;
    Py_ssize_t mr_nb, mr_nh;
} Starts;

/* SLACK.  Each decision a row's pass takes has a margin at its zilch payoff z: the best
 * choice of an outcome over the next best (none where the best is worth 1, which nothing
 * exceeds), banking against rolling (either way, where banking is allowed).  Every value
 * under a fixed policy is a + g z with g (a zilch chance) in [0, 1], so a margin moves by
 * at most |z' - z| when z moves to z': the turn's policy is still the optimal one (and
 * its start value and extras the same lines in z) at every z' closer to z than the least
 * margin.  A tie counts as a margin of 0 unless the two are the same line (the same value
 * and zilch chance: extra 0, which the slack needs).  Where hot dice are mandatory, the
 * must-roll state's choices past the cut count too (must_roll_beyond); a row reading a
 * chain table gets 0: nothing is claimed.  (Decisions of states the turn never reaches
 * count too: the slack is only ever smaller than it could be.)  The cut's own room, past
 * which every free state banks, is the caller's (turn.starts.cut_room). */

/* A thread's space for one row of game_starts at a time. */
typedef struct {
    Scratch sc;
    double *V, *EX, *bankrow, *exrow, *V0, *EX0, *best, *chosen;
    int64_t *pick;
} RowSpace;

static int row_alloc(RowSpace *rs, const Starts *w)
{
    const Model *m = &w->m;
    Py_ssize_t S = m->S, E = m->E, top = w->span + w->maxshift + 1;
    int ok = scratch_alloc(&rs->sc, m);
    rs->V = malloc(sizeof(double) * S * top);
    rs->EX = malloc(sizeof(double) * (E * S * top + 1));
    rs->bankrow = malloc(sizeof(double) * top);
    rs->exrow = malloc(sizeof(double) * (E * top + 1));
    rs->V0 = malloc(sizeof(double) * top);
    rs->EX0 = malloc(sizeof(double) * (E * top + 1));
    rs->best = malloc(sizeof(double) * (m->O + 1));
    rs->chosen = malloc(sizeof(double) * (m->O + 1));
    rs->pick = malloc(sizeof(int64_t) * (m->O + 1));
    return ok && rs->V && rs->EX && rs->bankrow && rs->exrow && rs->V0 && rs->EX0 && rs->best &&
           rs->chosen && rs->pick;
}

static void row_free(RowSpace *rs)
{
    scratch_free(&rs->sc);
    free(rs->V);
    free(rs->EX);
    free(rs->bankrow);
    free(rs->exrow);
    free(rs->V0);
    free(rs->EX0);
    free(rs->best);
    free(rs->chosen);
    free(rs->pick);
}

/* The must-roll state's outcomes (one choice each) summed by shift, banked and hot apart
 * (Starts.mr_bs ..): 0 where memory runs out. */
static int must_roll_sums(Starts *w)
{
    const Model *m = &w->m;
    Py_ssize_t o0 = m->out_first[m->zero], o1 = m->out_first[m->zero + 1];
    Py_ssize_t n = w->maxshift + 1;
    double *pb = calloc(n, sizeof(double)), *ph = calloc(n, sizeof(double));
    w->mr_bs = malloc(sizeof(int64_t) * n);
    w->mr_hs = malloc(sizeof(int64_t) * n);
    w->mr_bp = malloc(sizeof(double) * n);
    w->mr_hp = malloc(sizeof(double) * n);
    int ok = pb && ph && w->mr_bs && w->mr_hs && w->mr_bp && w->mr_hp;
    for (Py_ssize_t o = o0; o < o1 && ok; o++) {
        int64_t k = m->opt_start[o], sh = m->shift[k];
        ok = sh >= 0 && sh < n;
        if (ok) (w->hot[k] ? ph : pb)[sh] += m->prob[o];
    }
    w->mr_nb = w->mr_nh = 0;
    for (Py_ssize_t sh = 0; sh < n && ok; sh++) {
        if (pb[sh] != 0.0) { w->mr_bs[w->mr_nb] = sh; w->mr_bp[w->mr_nb++] = pb[sh]; }
        if (ph[sh] != 0.0) { w->mr_hs[w->mr_nh] = sh; w->mr_hp[w->mr_nh++] = ph[sh]; }
    }
    free(pb);
    free(ph);
    return ok;
}

/* must_roll_beyond's recursion from hi down to stop where the must-roll state has one choice
 * per outcome: no maximum, so the outcomes' sums by shift (Starts.mr_bs ..; the same values
 * to rounding, and no slack is lost: a single choice has no second best). */
static void must_roll_summed(const Starts *w, Py_ssize_t b, double *V0, double *EX0,
                             int64_t hi, int64_t stop)
{
    Py_ssize_t E = w->m.E, B = w->B, span = w->span, spanE = w->spanE;
    Py_ssize_t top = span + w->maxshift + 1;
    double pzN = w->m.pz[w->m.zero + 1], zb = w->z[b];
    const double *Ub = w->U + b * span;
    for (int64_t r = hi; r >= stop; r--) {
        double v = pzN * zb;
        for (Py_ssize_t i = 0; i < w->mr_nb; i++) {
            int64_t t = r + w->mr_bs[i];
            v += w->mr_bp[i] * (t < span ? Ub[t] : 1.0);
        }
        for (Py_ssize_t i = 0; i < w->mr_nh; i++) v += w->mr_hp[i] * V0[r + w->mr_hs[i]];
        V0[r] = v;
        for (Py_ssize_t j = 0; j < E; j++) {
            const double *xb = w->ex_bank + (j * B + b) * spanE;
            double e = pzN * w->ex_zilch[j * B + b];
            for (Py_ssize_t i = 0; i < w->mr_nb; i++) {
                int64_t t = r + w->mr_bs[i];
                e += w->mr_bp[i] * (t < spanE ? xb[t] : 0.0);
            }
            for (Py_ssize_t i = 0; i < w->mr_nh; i++)
                e += w->mr_hp[i] * EX0[j * top + r + w->mr_hs[i]];
            EX0[j * top + r] = e;
        }
    }
}

/* Where hot dice are mandatory (w->chain): row b's must-roll state past its cut, V0[r] and
 * the extras' EX0[j * top + r] for r >= stops[b] (top = span + maxshift + 1), from span down:
 * the chain table where the row has one, the limit beyond span, free states banking.
 * slack (or NULL): lowered to the least margin of its choices (SLACK; a chain table's
 * rows claim nothing: 0). */
static void must_roll_beyond(const Starts *w, RowSpace *rs, Py_ssize_t b, double *V0,
                             double *EX0, double *slack)
{
    const Model *m = &w->m;
    Py_ssize_t E = m->E, B = w->B, span = w->span, spanE = w->spanE;
    Py_ssize_t top = span + w->maxshift + 1;
    Py_ssize_t o0 = m->out_first[m->zero], o1 = m->out_first[m->zero + 1];
    double pzN = m->pz[m->zero + 1];
    const double *Ub = w->U + b * span;
    double zb = w->z[b];
    int64_t stop = w->stops[b];
    double lim = (1.0 - pzN - w->p_hot + pzN * zb) / (1.0 - w->p_hot);
    for (Py_ssize_t r = span; r < top; r++) V0[r] = lim;
    for (Py_ssize_t j = 0; j < E; j++) {
        double elim = pzN * w->ex_zilch[j * B + b] / (1.0 - w->p_hot);
        for (Py_ssize_t r = span; r < top; r++) EX0[j * top + r] = elim;
    }
    int64_t at = w->tab_at[b] > stop ? w->tab_at[b] : stop;
    if (slack && at < span && !w->single) *slack = 0.0; /* (a table's policy: its settle cut's) */
    for (int64_t r = at; r < top; r++) { /* the table's part, then its limit */
        int64_t i = (r - w->tab_at[b]) * w->tab_stride[b];
        if (i < w->tab_len[b]) {
            i += w->tab_pos[b];
            V0[r] = w->alpha[i] + w->beta[i] * zb;
            if (E) EX0[r] = w->beta[i];
            for (Py_ssize_t j = 1; j < E; j++)
                EX0[j * top + r] = w->ex_alpha[(j - 1) * w->n_tab + i] +
                                   w->beta[i] * w->ex_zilch[j * B + b];
        } else {
            V0[r] = lim;
            for (Py_ssize_t j = 0; j < E; j++)
                EX0[j * top + r] = pzN * w->ex_zilch[j * B + b] / (1.0 - w->p_hot);
        }
    }
    int64_t hi = (at < span ? at : span) - 1;
    if (w->mr_bs) /* one choice per outcome: the outcomes' sums by shift */
        must_roll_summed(w, b, V0, EX0, hi, stop);
    else for (int64_t r = hi; r >= stop; r--) {
        for (Py_ssize_t o = o0; o < o1; o++) {
            int64_t bk = -1;
            double bv = 0.0, bg = 0.0, second = -INFINITY;
            for (int64_t k = m->opt_start[o]; k < m->opt_end[o]; k++) {
                int64_t t = r + m->shift[k];
                double v = w->hot[k] ? V0[t] : (t < span ? Ub[t] : 1.0);
                double g = slack && w->hot[k] ? EX0[t] : 0.0; /* (extra 0: the zilch chance) */
                if (slack && bk >= 0 && (v != bv || g != bg)) second = fmax(second, fmin(v, bv));
                if (bk < 0 || v > bv) { bv = v; bk = k; bg = g; }
            }
            if (slack && bv < 1.0 && bv - second < *slack) *slack = bv - second;
            rs->best[o] = bv;
            rs->pick[o] = bk;
        }
        V0[r] = dot_direct(rs->best, m->prob, o0, o1) + pzN * zb;
        for (Py_ssize_t j = 0; j < E; j++) {
            const double *xb = w->ex_bank + (j * B + b) * spanE;
            for (Py_ssize_t o = o0; o < o1; o++) {
                int64_t k = rs->pick[o], t = r + m->shift[k];
                rs->chosen[o] = w->hot[k] ? EX0[j * top + t] : (t < spanE ? xb[t] : 0.0);
            }
            EX0[j * top + r] = dot_direct(rs->chosen, m->prob, o0, o1)
                               + pzN * w->ex_zilch[j * B + b];
        }
    }
    if (w->mr_out) { /* MUST-ROLL TABLES: this row's, from its cut to span */
        double *out = w->mr_out + b * (E + 1) * span;
        for (int64_t r = stop; r < span; r++) out[r] = V0[r];
        for (Py_ssize_t j = 0; j < E; j++)
            for (int64_t r = stop; r < span; r++) out[(j + 1) * span + r] = EX0[j * top + r];
    }
}

/* Row b's values (and extras') on its grid r < Lb (returned): V[s * Lb + r]; past the cut
 * the must-roll state's in V0[r] for r < span + maxshift + 1 (where hot dice are mandatory). */
static Py_ssize_t solve_row(const Starts *w, RowSpace *rs, Py_ssize_t b)
{
    const Model *m = &w->m;
    Py_ssize_t S = m->S, E = m->E, B = w->B, span = w->span, spanE = w->spanE;
    Py_ssize_t top = span + w->maxshift + 1;
    double *V = rs->V, *EX = rs->EX, *V0 = rs->V0, *EX0 = rs->EX0;
    const double *Ub = w->U + b * span;
    double zb = w->z[b];
    int64_t stop = w->stops[b];
    Py_ssize_t Lb = stop + w->maxshift + 1;
    if (w->chain) must_roll_beyond(w, rs, b, V0, EX0, w->slack && E ? w->slack + b : NULL);
    /* past the cut every free state banks; below it the backward pass */
    for (Py_ssize_t r = stop; r < Lb; r++) {
        double u = r < span ? Ub[r] : 1.0;
        V[r] = w->chain ? V0[r] : 0.0;
        for (Py_ssize_t s = 1; s < S; s++) V[s * Lb + r] = u;
        for (Py_ssize_t j = 0; j < E; j++) {
            const double *xb = w->ex_bank + (j * B + b) * spanE;
            double e = r < spanE ? xb[r] : 0.0;
            EX[j * S * Lb + r] = w->chain ? EX0[j * top + r] : 0.0;
            for (Py_ssize_t s = 1; s < S; s++) EX[j * S * Lb + s * Lb + r] = e;
        }
    }
    for (int64_t r = 0; r < stop; r++) rs->bankrow[r] = r >= w->mins[b] ? Ub[r] : -INFINITY;
    for (Py_ssize_t j = 0; j < E; j++) {
        const double *xb = w->ex_bank + (j * B + b) * spanE;
        for (int64_t r = 0; r < stop; r++) rs->exrow[j * top + r] = r < spanE ? xb[r] : 0.0;
    }
    pass_row(m, &rs->sc, V, Lb, stop - 1, zb, rs->bankrow, 0, NULL, 0, EX, S * Lb, rs->exrow,
             top, w->ex_zilch + b, B, w->slack && E ? w->slack + b : NULL);
    return Lb;
}

/* The value at the start of row b's turn where no bank is allowed below m > mins[b]: the
 * turn first reaches m in state s at total m + j with probability q[(m * S + s) * (H + 1) + j]
 * (H: the largest shift; one choice per outcome, so nothing is chosen on the way), or zilches
 * before with probability zq[m]; from there on it is row b's own turn. */
static double with_minimum(const Starts *w, const RowSpace *rs, Py_ssize_t b, Py_ssize_t Lb,
                           int64_t m)
{
    Py_ssize_t S = w->m.S, H = w->maxshift, span = w->span;
    const double *q = w->q + m * S * (H + 1), *Ub = w->U + b * span;
    double acc = w->zq[m] * w->z[b];
    for (Py_ssize_t s = 0; s < S; s++)
        for (Py_ssize_t j = 0; j <= H; j++) {
            double p = q[s * (H + 1) + j];
            if (p == 0.0) continue;
            int64_t r = m + j;
            double v = r < Lb ? rs->V[s * Lb + r]
                       : s > 0 ? (r < span ? Ub[r] : 1.0)
                               : rs->V0[r];
            acc += p * v;
        }
    return acc;
}


#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(NO_LANES)
/* game_starts LANES rows at a time where the CPU has AVX2 (checked when called): each value
 * a vector of the rows' (GCC's vector extension), every lane doing the scalar pass's
 * operations in the same order (AVX2 without FMA: no fused multiply-add, the same bits).
 * The rows' cuts differ: lane l's values from its own cut stops[b_l] on are set as
 * solve_row sets them, and kept (the pass runs from the group's highest cut).  Without
 * AVX2 (SSE2's two doubles, slower than one row at a time here) the rows go one by one. */
#include <immintrin.h>
#define LANES 4
#define LANES_FN __attribute__((target("avx2")))
typedef double vd __attribute__((vector_size(8 * LANES), aligned(8)));
typedef int64_t vl __attribute__((vector_size(8 * LANES), aligned(8)));

LANES_FN static inline vd vsel(vl m, vd a, vd b) { return (vd)(((vl)a & m) | ((vl)b & ~m)); }
LANES_FN static inline vd vbc(double x) { return x - (vd){0}; }
LANES_FN static inline vd vmin(vd a, vd b) { return (vd)_mm256_min_pd((__m256d)a, (__m256d)b); }
LANES_FN static inline vd vmax(vd a, vd b) { return (vd)_mm256_max_pd((__m256d)a, (__m256d)b); }

/* dot_direct's sum, lane by lane. */
LANES_FN static inline vd vdot(const vd *v, const double *prob, Py_ssize_t o0, Py_ssize_t o1)
{
    vd a0 = vbc(0.0), a1 = a0, a2 = a0, a3 = a0;
    Py_ssize_t o = o0;
    for (; o + 3 < o1; o += 4) {
        a0 += vbc(prob[o]) * v[o];
        a1 += vbc(prob[o + 1]) * v[o + 1];
        a2 += vbc(prob[o + 2]) * v[o + 2];
        a3 += vbc(prob[o + 3]) * v[o + 3];
    }
    for (; o < o1; o++) a0 += vbc(prob[o]) * v[o];
    return (a0 + a1) + (a2 + a3);
}

/* A thread's space for LANES rows: values Vl[s * Lg + r], extras' EXl[(j * S + s) * Lg + r]
 * (Lg <= top), the bank payoffs by total, the best choice's value of each outcome and its
 * extras', the roll values by group, each lane's must-roll state past its cut. */
typedef struct {
    vd *Vl, *EXl, *bank, *exbank, *best, *bestE, *Rn, *Re, *zil, *exz;
    double *V0, *EX0;
    int64_t *base;
    vd slack; /* each lane's least margin so far (SLACK) */
    vl live;  /* the lanes below their cut at this total */
    int want; /* whether the slack is asked for */
} Lanes;

LANES_FN static int lanes_alloc(Lanes *ls, const Starts *w)
{
    const Model *m = &w->m;
    Py_ssize_t S = m->S, E = m->E, top = w->span + w->maxshift + 1, O = m->O + 1;
    ls->Vl = malloc(sizeof(vd) * S * top);
    ls->EXl = malloc(sizeof(vd) * (E * S * top + 1));
    ls->bank = malloc(sizeof(vd) * top);
    ls->exbank = malloc(sizeof(vd) * (E * top + 1));
    ls->best = malloc(sizeof(vd) * O);
    ls->bestE = malloc(sizeof(vd) * (E * O + 1));
    ls->Rn = malloc(sizeof(vd) * S);
    ls->Re = malloc(sizeof(vd) * (E * S + 1));
    ls->zil = malloc(sizeof(vd) * 1);
    ls->exz = malloc(sizeof(vd) * (E + 1));
    ls->V0 = malloc(sizeof(double) * LANES * top);
    ls->EX0 = malloc(sizeof(double) * LANES * (E * top + 1));
    ls->base = malloc(sizeof(int64_t) * (m->K + 1));
    return ls->Vl && ls->EXl && ls->bank && ls->exbank && ls->best && ls->bestE && ls->Rn &&
           ls->Re && ls->zil && ls->exz && ls->V0 && ls->EX0 && ls->base;
}

LANES_FN static void lanes_free(Lanes *ls)
{
    void *all[] = {ls->Vl, ls->Rn, ls->EXl, ls->bank, ls->exbank, ls->best, ls->bestE,
                   ls->Re, ls->zil, ls->exz, ls->V0, ls->EX0, ls->base};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) free(all[i]);
}

/* Lane l's (row b's) part of the group's arrays: its values from its cut on (as solve_row
 * sets them, up to Lg), its bank payoffs below the cut, its zilch payoffs. */
LANES_FN static void lane_init(const Starts *w, RowSpace *rs, Lanes *ls, int l, Py_ssize_t b,
                      Py_ssize_t Lg)
{
    const Model *m = &w->m;
    Py_ssize_t S = m->S, E = m->E, B = w->B, span = w->span, spanE = w->spanE;
    Py_ssize_t top = span + w->maxshift + 1;
    double *V0 = ls->V0 + l * top, *EX0 = ls->EX0 + l * (E * top + 1);
    const double *Ub = w->U + b * span;
    int64_t stop = w->stops[b];
    if (w->chain) {
        double slack = INFINITY;
        must_roll_beyond(w, rs, b, V0, EX0, ls->want ? &slack : NULL);
        if (slack < ls->slack[l]) ls->slack[l] = slack;
    }
    for (Py_ssize_t r = stop; r < Lg; r++) {
        double u = r < span ? Ub[r] : 1.0;
        ls->Vl[r][l] = w->chain ? V0[r] : 0.0;
        for (Py_ssize_t s = 1; s < S; s++) ls->Vl[s * Lg + r][l] = u;
        for (Py_ssize_t j = 0; j < E; j++) {
            const double *xb = w->ex_bank + (j * B + b) * spanE;
            double e = r < spanE ? xb[r] : 0.0;
            ls->EXl[j * S * Lg + r][l] = w->chain ? EX0[j * top + r] : 0.0;
            for (Py_ssize_t s = 1; s < S; s++) ls->EXl[(j * S + s) * Lg + r][l] = e;
        }
    }
    for (int64_t r = 0; r < stop; r++) ls->bank[r][l] = r >= w->mins[b] ? Ub[r] : -INFINITY;
    for (Py_ssize_t j = 0; j < E; j++) {
        const double *xb = w->ex_bank + (j * B + b) * spanE;
        for (int64_t r = 0; r < stop; r++) ls->exbank[j * top + r][l] = r < spanE ? xb[r] : 0.0;
        ls->exz[j][l] = w->ex_zilch[j * B + b];
    }
    ls->zil[0][l] = w->z[b];
}

/* The best choice of every outcome at total r, lane by lane (the first of equals, as
 * pass_row): its value best[o] and its extras' bestE[j * O + o]; E a constant where it is
 * small (its extras' values then stay in registers). */
LANES_FN static inline void lanes_best_e(const Model *m, Lanes *ls, Py_ssize_t SLg, int64_t r,
                                const Py_ssize_t E)
{
    Py_ssize_t O = m->O;
    const int64_t *base = ls->base;
    const vd *V = ls->Vl + r, *EX = ls->EXl + r;
    vd eb[4];
    vd slack = ls->slack, inf = vbc(INFINITY), one = vbc(1.0);
    for (Py_ssize_t o = 0; o < O; o++) {
        int64_t k0 = m->opt_start[o], k1 = m->opt_end[o];
        vd bv = V[base[k0]], sv = -inf;
        for (Py_ssize_t j = 0; j < E; j++) eb[j] = EX[j * SLg + base[k0]];
        for (int64_t k = k0 + 1; k < k1; k++) {
            vd x = V[base[k]];
            vl up = x > bv;
            if (ls->want) sv = vmax(sv, vmin(x, bv));
            bv = vsel(up, x, bv);
            for (Py_ssize_t j = 0; j < E; j++) eb[j] = vsel(up, EX[j * SLg + base[k]], eb[j]);
        }
        if (ls->want && k1 > k0 + 1) {
            vl tie = (bv == sv) & (bv < one) & ls->live;
            if (_mm256_movemask_pd((__m256d)tie)) { /* (rare) a tie: of another line? */
                vd below = -inf;
                vl other = (vl){0};
                for (int64_t k = k0; k < k1; k++) {
                    vd x = V[base[k]];
                    other |= (x == bv) & (EX[base[k]] != eb[0]);
                    below = vmax(below, vsel(x < bv, x, -inf));
                }
                sv = vsel(tie, vsel(other, bv, below), sv);
            }
            vd gap = vsel(ls->live & (bv < one), bv - sv, inf);
            slack = vsel(gap < slack, gap, slack);
        }
        ls->best[o] = bv;
        for (Py_ssize_t j = 0; j < E; j++) ls->bestE[j * O + o] = eb[j];
    }
    ls->slack = slack;
}

LANES_FN static void lanes_best(const Model *m, Lanes *ls, Py_ssize_t SLg, int64_t r)
{
    switch (m->E) {
    case 0: lanes_best_e(m, ls, SLg, r, 0); break;
    case 1: lanes_best_e(m, ls, SLg, r, 1); break;
    case 2: lanes_best_e(m, ls, SLg, r, 2); break;
    case 3: lanes_best_e(m, ls, SLg, r, 3); break;
    default: lanes_best_e(m, ls, SLg, r, 4 < m->E ? 4 : m->E); /* (E <= 4: lanes_rows) */
    }
}

/* pass_row for the group's lanes, r = r0 down to 0: a lane's values from its cut on are
 * kept (cut[l]). */
LANES_FN static void lanes_pass(const Model *m, Lanes *ls, Py_ssize_t Lg, Py_ssize_t top, int64_t r0,
                       vl cut)
{
    Py_ssize_t S = m->S, E = m->E, N = S - 1, O = m->O;
    const Py_ssize_t *first = m->out_first;
    for (Py_ssize_t k = 0; k < m->K; k++) ls->base[k] = m->slot[k] * Lg + m->shift[k];
    for (int64_t r = r0; r >= 0; r--) {
        vl keep = cut <= (r - (vl){0}); /* (a lane past its cut keeps its values) */
        ls->live = ~keep;
        lanes_best(m, ls, S * Lg, r);
        for (Py_ssize_t n = 0; n < N; n++)
            ls->Rn[n] = vdot(ls->best, m->prob, first[n], first[n + 1]) +
                        vbc(m->pz[n + 1]) * ls->zil[0];
        for (Py_ssize_t j = 0; j < E; j++)
            for (Py_ssize_t n = 0; n < N; n++)
                ls->Re[j * N + n] = vdot(ls->bestE + j * O, m->prob, first[n], first[n + 1]) +
                                    vbc(m->pz[n + 1]) * ls->exz[j];
        for (Py_ssize_t s = 0; s < S; s++) {
            Py_ssize_t n = s == 0 ? m->zero : s - 1;
            vd rv = ls->Rn[n], bv = ls->bank[r];
            vl banks = s > 0 ? (bv >= rv) : (vl){0};
            if (ls->want && s > 0) {
                vd d = vsel(bv >= rv, bv - rv, rv - bv);
                vl line = (bv != rv) | (ls->Re[n] != vbc(0.0)); /* (a bank: bv + 0 z) */
                vl take = ls->live & line & (bv > vbc(-INFINITY)) & (d < ls->slack);
                ls->slack = vsel(take, d, ls->slack);
            }
            ls->Vl[s * Lg + r] = vsel(keep, ls->Vl[s * Lg + r], vsel(banks, bv, rv));
            for (Py_ssize_t j = 0; j < E; j++) {
                vd *e = &ls->EXl[(j * S + s) * Lg + r];
                *e = vsel(keep, *e, vsel(banks, ls->exbank[j * top + r], ls->Re[j * N + n]));
            }
        }
    }
}

/* Rows rows[0 .. n - 1] (n <= LANES; a short group repeats its last row) as one group:
 * their start values and extras' to out_v, out_ex. */
LANES_FN static void lanes_group(const Starts *w, RowSpace *rs, Lanes *ls, const Py_ssize_t *rows,
                        int n)
{
    Py_ssize_t top = w->span + w->maxshift + 1, B = w->B;
    int64_t hi = 0;
    Py_ssize_t b[LANES];
    vl cut;
    for (int l = 0; l < LANES; l++) {
        b[l] = rows[l < n ? l : n - 1];
        cut[l] = w->stops[b[l]];
        if (cut[l] > hi) hi = cut[l];
    }
    Py_ssize_t Lg = hi + w->maxshift + 1;
    ls->want = w->slack != NULL && w->m.E > 0;
    ls->slack = vbc(INFINITY);
    for (int l = 0; l < LANES; l++) lane_init(w, rs, ls, l, b[l], Lg);
    lanes_pass(&w->m, ls, Lg, top, hi - 1, cut);
    for (int l = 0; l < n; l++) {
        if (w->slack) w->slack[b[l]] = ls->want ? ls->slack[l] : 0.0;
        w->out_v[b[l]] = ls->Vl[0][l];
        for (Py_ssize_t j = 0; j < w->m.E; j++)
            w->out_ex[j * B + b[l]] = ls->EXl[j * w->m.S * Lg][l];
    }
}

/* The rows b0 .. b1 - 1 in groups of LANES, by their cuts (rows of near cuts together: a
 * group runs from its highest). 0 where out of memory. */
LANES_FN static int lanes_rows(const Starts *w, RowSpace *rs, Py_ssize_t b0, Py_ssize_t b1)
{
    Lanes ls;
    Py_ssize_t n = b1 - b0, *order = malloc(sizeof(Py_ssize_t) * (n + 1));
    int ok = lanes_alloc(&ls, w) && order != NULL;
    for (Py_ssize_t i = 0; ok && i < n; i++) { /* insertion sort by cut: rows are few */
        Py_ssize_t b = b0 + i, at = i;
        while (at > 0 && w->stops[order[at - 1]] > w->stops[b]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = b;
    }
    for (Py_ssize_t i = 0; ok && i < n; i += LANES)
        lanes_group(w, rs, &ls, order + i, (int)(n - i < LANES ? n - i : LANES));
    free(order);
    lanes_free(&ls);
    return ok;
}
#endif

static void *starts(void *arg)
{
    Part *part = arg;
    const Starts *w = part->w;
    Py_ssize_t E = w->m.E, B = w->B;
    RowSpace rs;
    int ok = row_alloc(&rs, w);
#if defined(LANES)
    if (ok && w->lanes && w->fam_count == NULL && w->m.E <= 4 && __builtin_cpu_supports("avx2")) {
        part->ok = lanes_rows(w, &rs, part->b0, part->b1);
        row_free(&rs);
        return NULL;
    }
#endif
    for (Py_ssize_t b = part->b0; ok && b < part->b1; b++) {
        if (w->slack) w->slack[b] = E ? INFINITY : 0.0;
        Py_ssize_t Lb = solve_row(w, &rs, b);
        w->out_v[b] = rs.V[0];
        for (Py_ssize_t j = 0; j < E; j++) w->out_ex[j * B + b] = rs.EX[j * w->m.S * Lb];
        for (int64_t i = 0; i < (w->fam_count ? w->fam_count[b] : 0); i++) {
            int64_t m = w->fam_first[b] + i;
            w->fam_out[w->fam_pos[b] + i] =
                m <= w->mins[b] ? rs.V[0] : with_minimum(w, &rs, b, Lb, m);
        }
    }
    part->ok = ok;
    row_free(&rs);
    return NULL;
}

static PyObject *game_starts(PyObject *self, PyObject *args)
{
    Py_buffer U, z, mins, stops, slot, shift, opt_start, opt_end, out_n, prob, pz, hot, ex_bank,
        ex_zilch, out_v, out_ex, alpha, beta, tab_at, tab_pos, tab_len, tab_stride, q, zq,
        fam_first, fam_count, fam_pos, fam_out;
    Py_ssize_t S, span, spanE, maxshift, zero;
    double p_hot;
    int chain, threads, lanes = 1;
    Py_buffer slack = {0}, mr_out = {0}, ex_alpha = {0};
    if (!PyArg_ParseTuple(args,
                          "y*y*y*y*y*y*y*y*y*y*y*y*y*y*w*w*y*y*y*y*y*y*y*y*y*y*y*w*nnnndpni|pw*w*y*",
                          &U, &z, &mins, &stops, &slot, &shift, &opt_start, &opt_end, &out_n,
                          &prob, &pz, &hot, &ex_bank, &ex_zilch, &out_v, &out_ex, &alpha, &beta,
                          &tab_at, &tab_pos, &tab_len, &tab_stride, &q, &zq, &fam_first,
                          &fam_count, &fam_pos, &fam_out, &S, &span, &spanE, &maxshift, &p_hot,
                          &chain, &zero, &threads, &lanes, &slack, &mr_out, &ex_alpha))
        return NULL;
    Starts w;
    w.mr_bs = w.mr_hs = NULL;
    w.mr_bp = w.mr_hp = NULL;
    w.mr_nb = w.mr_nh = 0;
    w.B = z.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t E = w.B ? ex_zilch.len / (Py_ssize_t)sizeof(double) / w.B : 0;
    model_of(&w.m, &slot, &shift, &opt_start, &opt_end, &prob, &pz, S, E, zero);
    w.U = U.buf;
    w.z = z.buf;
    w.mins = mins.buf;
    w.stops = stops.buf;
    w.hot = hot.buf;
    w.ex_bank = ex_bank.buf;
    w.ex_zilch = ex_zilch.buf;
    w.out_v = out_v.buf;
    w.out_ex = out_ex.buf;
    w.alpha = alpha.buf;
    w.beta = beta.buf;
    w.tab_at = tab_at.buf;
    w.tab_pos = tab_pos.buf;
    w.tab_len = tab_len.buf;
    w.tab_stride = tab_stride.buf;
    int family = fam_count.len > 0;
    w.q = q.buf;
    w.zq = zq.buf;
    w.fam_first = fam_first.buf;
    w.fam_count = family ? fam_count.buf : NULL;
    w.fam_pos = fam_pos.buf;
    w.fam_out = fam_out.buf;
    w.n_m = zq.len / (Py_ssize_t)sizeof(double);
    w.span = span;
    w.spanE = spanE;
    w.maxshift = maxshift;
    w.p_hot = p_hot;
    w.chain = chain;
    w.lanes = lanes;
    w.slack = slack.buf != NULL && slack.len > 0 ? slack.buf : NULL;
    w.mr_out = mr_out.buf != NULL && mr_out.len > 0 ? mr_out.buf : NULL;
    w.ex_alpha = ex_alpha.buf != NULL && ex_alpha.len > 0 ? ex_alpha.buf : NULL;
    w.n_tab = alpha.len / (Py_ssize_t)sizeof(double);
    int ok = (w.slack == NULL || (slack.len == z.len && !family)) &&
             (w.mr_out == NULL ||
              (chain && mr_out.len == (Py_ssize_t)sizeof(double) * w.B * (E + 1) * span)) &&
             (w.ex_alpha == NULL || ex_alpha.len == alpha.len * (E > 1 ? E - 1 : 0)) &&
             U.len == (Py_ssize_t)sizeof(double) * w.B * span && out_v.len == z.len &&
             out_ex.len == ex_zilch.len && ex_bank.len == ex_zilch.len * spanE &&
             mins.len == (Py_ssize_t)sizeof(int64_t) * w.B && stops.len == mins.len &&
             hot.len == slot.len && alpha.len == beta.len && tab_at.len == mins.len &&
             tab_pos.len == mins.len && tab_len.len == mins.len && tab_stride.len == mins.len &&
             (!family || (fam_first.len == mins.len && fam_count.len == mins.len &&
                          fam_pos.len == mins.len && q.len == zq.len * S * (maxshift + 1)));
    Py_ssize_t n_tab = alpha.len / (Py_ssize_t)sizeof(double);
    for (Py_ssize_t b = 0; ok && b < w.B; b++) {
        int64_t at = w.tab_at[b], pos = w.tab_pos[b], len = w.tab_len[b], st = w.tab_stride[b];
        ok = w.stops[b] >= 1 && w.stops[b] < span &&
             (at >= span + maxshift || (at >= 0 && pos >= 0 && len >= 0 && st >= 1 &&
                                        pos + len <= n_tab && (E <= 1 || w.ex_alpha)));
        if (ok && family) { /* minimums within q, outputs within fam_out */
            int64_t first = w.fam_first[b], n = w.fam_count[b], at_out = w.fam_pos[b];
            ok = first >= 1 && n >= 0 && first + n <= w.n_m && at_out >= 0 &&
                 at_out + n <= fam_out.len / (Py_ssize_t)sizeof(double) &&
                 first + n - 1 + maxshift < span + maxshift + 1;
        }
    }

    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "game_starts: arrays of the wrong sizes");
    } else {
        Py_ssize_t *out_first = groups_first(out_n.buf, w.m.O, S);
        double *weight = malloc(sizeof(double) * (w.B ? w.B : 1));
        ok = out_first != NULL && weight != NULL;
        if (ok) {
            w.m.out_first = out_first;
            Py_ssize_t kn = 0;  /* the must-roll state's choices */
            for (Py_ssize_t o = out_first[w.m.zero]; o < out_first[w.m.zero + 1]; o++)
                kn += w.m.opt_end[o] - w.m.opt_start[o];
            w.single = kn == out_first[w.m.zero + 1] - out_first[w.m.zero];
            if (chain && w.single) ok = must_roll_sums(&w);
            for (Py_ssize_t b = 0; b < w.B; b++) {
                double cut = (double)w.stops[b];
                double hi = (double)(w.tab_at[b] < span ? w.tab_at[b] : span);
                weight[b] = cut * (double)(w.m.K + S) + (chain && hi > cut ? (hi - cut) * kn : 0.0) +
                            (family ? (double)w.fam_count[b] * S * (maxshift + 1) : 0.0);
            }
            if (ok) {
                Py_BEGIN_ALLOW_THREADS
                ok = run_rows(starts, &w, w.B, weight, threads);
                Py_END_ALLOW_THREADS
            }
        }
        free(out_first);
        free(weight);
        free(w.mr_bs);
        free(w.mr_hs);
        free(w.mr_bp);
        free(w.mr_hp);
        if (!ok) PyErr_NoMemory();
    }
    Py_buffer *all[] = {&U,     &z,      &mins,     &stops,  &slot,    &shift,  &opt_start,
                        &opt_end, &out_n, &prob,   &pz,       &hot,    &ex_bank, &ex_zilch,
                        &out_v, &out_ex, &alpha,   &beta,   &tab_at,  &tab_pos, &tab_len,
                        &tab_stride, &q, &zq, &fam_first, &fam_count, &fam_pos, &fam_out};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PyBuffer_Release(all[i]);
    Py_buffer *opt[] = {&slack, &mr_out, &ex_alpha};
    for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
        if (opt[i]->obj != NULL) PyBuffer_Release(opt[i]);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* copy_runs(dst, dpos, src, spos, n[, zsrc, coef]): for each run t and i < n[t],
 * dst[dpos[t] + i] = src[spos[t] + i] (+ coef[t] * zsrc[spos[t] + i]) -- rows of different
 * lengths moved as whole runs (turn.copy_runs; int64 positions, float64 values). */
static PyObject *copy_runs(PyObject *self, PyObject *args)
{
    Py_buffer dst, dpos, src, spos, n, zsrc = {0}, coef = {0};
    if (!PyArg_ParseTuple(args, "w*y*y*y*y*|y*y*", &dst, &dpos, &src, &spos, &n, &zsrc, &coef))
        return NULL;
    double *d = dst.buf;
    const double *sv = src.buf, *z = zsrc.buf, *c = coef.buf;
    const int64_t *dp = dpos.buf, *sp = spos.buf, *nn = n.buf;
    Py_ssize_t T = n.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t dlen = dst.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t slen = src.len / (Py_ssize_t)sizeof(double);
    int ok = dpos.len == n.len && spos.len == n.len &&
             (z == NULL || (zsrc.len == src.len && coef.len == T * (Py_ssize_t)sizeof(double)));
    for (Py_ssize_t t = 0; ok && t < T; t++)
        ok = nn[t] >= 0 && dp[t] >= 0 && sp[t] >= 0 && dp[t] + nn[t] <= dlen &&
             sp[t] + nn[t] <= slen;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t t = 0; t < T; t++) {
            double *out = d + dp[t];
            const double *in = sv + sp[t];
            if (z == NULL) {
                memcpy(out, in, sizeof(double) * (size_t)nn[t]);
            } else {
                const double *zi = z + sp[t];
                for (int64_t i = 0; i < nn[t]; i++) out[i] = in[i] + c[t] * zi[i];
            }
        }
        Py_END_ALLOW_THREADS
    }
    Py_buffer *all[] = {&dst, &dpos, &src, &spos, &n, &zsrc, &coef};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PyBuffer_Release(all[i]);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "copy_runs: a run outside its array");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"backward", backward, METH_VARARGS, "The backward pass of turn.solve_turn (see _kernel.c)."},
    {"game_starts", game_starts, METH_VARARGS,
     "The values at the start of game turns (see _kernel.c)."},
    {"copy_runs", copy_runs, METH_VARARGS, "Runs of values copied (see _kernel.c)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel",
                                    "Compiled backward pass of the turn solver.", -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }
