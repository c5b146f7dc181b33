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

/* Everything one backward pass reads and writes (see the top of the file). */
typedef struct {
    double *flat, *roll, *ex_flat;
    const int64_t *slot, *shift, *opt_start, *opt_end, *start, *offset, *length;
    const Py_ssize_t *out_first;
    const double *prob, *pz, *zilch, *bank, *ex_bank, *ex_zilch;
    Py_ssize_t B, total, K, O, S, L, E, bS, zero;
    int single;                 /* one choice per outcome (forced set-aside): no maximum */
} Sweep;

/* Rows b0..b1-1 (independent problems): a thread's share, with its own scratch space. */
typedef struct {
    const Sweep *w;
    Py_ssize_t b0, b1;
    double *Rn, *Re;
    int64_t *off, *base;
} Part;

static void *sweep(void *arg)
{
    const Part *part = arg;
    const Sweep *w = part->w;
    double *Rn = part->Rn, *Re = part->Re;
    int64_t *off = part->off, *base = part->base;
    const int64_t *opt_start = w->opt_start, *opt_end = w->opt_end;
    const Py_ssize_t *out_first = w->out_first;
    const double *prob = w->prob, *pz = w->pz;
    Py_ssize_t B = w->B, S = w->S, L = w->L, E = w->E, bS = w->bS, N = S - 1;
    for (Py_ssize_t b = part->b0; b < part->b1; b++) {
        Py_ssize_t Lb = w->length[b];
        double *fb = w->flat + w->offset[b];
        /* this row's offset of each choice's next state */
        for (Py_ssize_t k = 0; k < w->K; k++) base[k] = w->slot[k] * Lb + w->shift[k];
        for (Py_ssize_t o = 0; o < w->O; o++) off[o] = base[opt_start[o]];
        for (int64_t r = w->start[b]; r >= 0; r--) {
            const double *v = fb + r;
            /* the best choice of each outcome (the first of equals), then V by dice count */
            for (Py_ssize_t o = 0; o < w->O && !w->single; o++) {
                int64_t bk = opt_start[o];
                double best = v[base[bk]];
                for (int64_t k = bk + 1; k < opt_end[o]; k++)
                    if (v[base[k]] > best) { best = v[base[k]]; bk = k; }
                off[o] = base[bk];
            }
            for (Py_ssize_t n = 0; n < N; n++)
                Rn[n] = dot(v, off, prob, out_first[n], out_first[n + 1])
                        + pz[n + 1] * w->zilch[b];
            /* the extras under the same choices */
            for (Py_ssize_t j = 0; j < E; j++) {
                const double *ev = w->ex_flat + j * w->total + w->offset[b] + r;
                for (Py_ssize_t n = 0; n < N; n++)
                    Re[j * N + n] = dot(ev, off, prob, out_first[n], out_first[n + 1])
                                    + pz[n + 1] * w->ex_zilch[j * B + b];
            }
            for (Py_ssize_t s = 0; s < S; s++) {
                Py_ssize_t n = s == 0 ? w->zero : s - 1;
                double rv = Rn[n], bv = w->bank[(b * bS + (bS > 1 ? s : 0)) * L + r];
                int banks = s > 0 && bv >= rv;
                if (w->roll) w->roll[(b * S + s) * L + r] = rv;
                fb[s * Lb + r] = banks ? bv : rv;
                for (Py_ssize_t j = 0; j < E; j++)
                    w->ex_flat[j * w->total + w->offset[b] + s * Lb + r] =
                        banks ? w->ex_bank[(j * B + b) * L + r] : Re[j * N + n];
            }
        }
    }
    return NULL;
}

#define MAX_THREADS 8

/* The rows split into `threads` parts of about equal work (start[b] + 1 totals each), the
 * first run here and the others on threads of their own: rows never read each other. */
static int run(const Sweep *w, int threads)
{
    Part parts[MAX_THREADS];
    Py_ssize_t N = w->S > 1 ? w->S - 1 : 1;
    double total = 0.0, done = 0.0;
    for (Py_ssize_t b = 0; b < w->B; b++) total += (double)(w->start[b] + 1);
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    Py_ssize_t b = 0;
    for (int t = 0; t < threads; t++) {
        parts[t].w = w;
        parts[t].b0 = b;
        while (b < w->B && (t == threads - 1 || done < total * (t + 1) / threads))
            done += (double)(w->start[b++] + 1);
        parts[t].b1 = b;
        parts[t].Rn = malloc(sizeof(double) * N);
        parts[t].Re = malloc(sizeof(double) * (w->E * N + 1));
        parts[t].off = malloc(sizeof(int64_t) * (w->O + 1));
        parts[t].base = malloc(sizeof(int64_t) * (w->K + 1));
    }
    int ok = 1;
    for (int t = 0; t < threads; t++)
        ok &= parts[t].Rn != NULL && parts[t].Re != NULL && parts[t].off != NULL &&
              parts[t].base != NULL;
    if (ok) {
#ifdef KERNEL_THREADS
        pthread_t tid[MAX_THREADS];
        int started[MAX_THREADS] = {0};
        for (int t = 1; t < threads; t++)
            started[t] = pthread_create(&tid[t], NULL, sweep, &parts[t]) == 0;
        sweep(&parts[0]);
        for (int t = 1; t < threads; t++) {
            if (started[t]) pthread_join(tid[t], NULL);
            else sweep(&parts[t]);      /* no thread to be had: do it here */
        }
#else
        for (int t = 0; t < threads; t++) sweep(&parts[t]);
#endif
    }
    for (int t = 0; t < threads; t++) {
        free(parts[t].Rn);
        free(parts[t].Re);
        free(parts[t].off);
        free(parts[t].base);
    }
    return ok;
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
    w.total = flat.len / (Py_ssize_t)sizeof(double);
    w.K = slot.len / (Py_ssize_t)sizeof(int64_t);
    w.O = prob.len / (Py_ssize_t)sizeof(double);
    w.E = w.B ? ex_zilch.len / (Py_ssize_t)sizeof(double) / w.B : 0;
    w.bS = w.B && L ? bank.len / (Py_ssize_t)sizeof(double) / (w.B * L) : 1;
    w.S = S;
    w.L = L;
    w.zero = zero >= 0 && zero < S - 1 ? zero : S - 2;
    w.flat = flat.buf;
    w.roll = roll.len ? roll.buf : NULL;
    w.ex_flat = ex_flat.buf;
    w.slot = slot.buf;
    w.shift = shift.buf;
    w.opt_start = opt_start.buf;
    w.opt_end = opt_end.buf;
    w.start = start.buf;
    w.offset = offset.buf;
    w.length = length.buf;
    w.prob = prob.buf;
    w.pz = pz.buf;
    w.zilch = zilch.buf;
    w.bank = bank.buf;
    w.ex_bank = ex_bank.buf;
    w.ex_zilch = ex_zilch.buf;
    w.single = 1;
    for (Py_ssize_t o = 0; o < w.O; o++)
        w.single &= ((const int64_t *)opt_end.buf)[o] == ((const int64_t *)opt_start.buf)[o] + 1;
    /* outcomes come grouped by dice count: out_first[n] is the first of n + 1 dice */
    Py_ssize_t *out_first = malloc(sizeof(Py_ssize_t) * (S > 0 ? S : 1));
    int ok = 0;
    if (out_first != NULL) {
        const int64_t *on = out_n.buf;
        for (Py_ssize_t n = 0, o = 0; n < S; n++) {
            while (o < w.O && on[o] < n) o++;
            out_first[n] = o;
        }
        w.out_first = out_first;
        Py_BEGIN_ALLOW_THREADS
        ok = run(&w, threads);
        Py_END_ALLOW_THREADS
    }
    free(out_first);
    Py_buffer *all[] = {&flat, &slot, &shift, &opt_start, &opt_end, &out_n, &prob, &pz, &zilch,
                        &bank, &roll, &start, &offset, &length, &ex_flat, &ex_bank, &ex_zilch};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PyBuffer_Release(all[i]);
    if (!ok) return PyErr_NoMemory();
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
    {"copy_runs", copy_runs, METH_VARARGS, "Runs of values copied (see _kernel.c)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel",
                                    "Compiled backward pass of the turn solver.", -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }
