/* The threshold tables' level in C (threshold.py), built by `pip install` (setup.py): the
 * widget of threshold_widget.py for every state of one level, the states shared by threads
 * (taken a few at a time from a shared counter: the states' vectors differ in length).
 * Each state's vector (t = lo .. lo + n - 1) is worked out in blocks of BLK values of t, so
 * that a block's keep arrays stay in the core's cache; every choice is an elementwise max over
 * the block, every roll a mean.  Per open box the next state's vector, shifted by the points
 * (box, upper bonus), is laid out once for each number of points the box can score, and a
 * hand's value in the box is a look-up; only the extra Yahtzees (bonus, joker) take the long
 * way (move(), as threshold_widget.move).  Where it could not be built, numba runs
 * threshold_widget.py.
 *
 * level(states, data, off, index, next_off, next_data, rules, lo, threads)
 *   states (n, 3) int64 (mask, up, yf); data float64 written: state i's vector at
 *   data[off[i] : off[i + 1]]; index int64 (masks, threshold + 1, 1 or 2): each state's row
 *   in its own level; next_off, next_data: the next level's vectors (below lo: 1, past their
 *   end: 0); rules: a widget.RuleArrays with the hands in the order of their keeps
 *   (solve.keep_order), read by its fields' names.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <pthread.h>
#define LEVEL_THREADS
#endif

#define BLK 64
#define MAX_THREADS 64
#define TAKE 4 /* states taken from the counter at a time */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WIDE __attribute__((target_clones("avx2", "default"))) /* 4 doubles at once */
#else
#define WIDE
#endif

typedef struct {
    const int64_t *states, *off, *index, *noff;
    double *data;
    const double *ndata;
    const int64_t *base, *upper_face, *joker, *five, *add, *roll_keep;
    const double *roll_prob;
    int32_t *sub, *sub_start; /* keep k's keeps of one die fewer: sub[sub_start[k] ..] */
    int64_t *pvals; /* box b's distinct points: pvals[b * (P + 1) ..], npv[b] of them */
    int64_t *npv;
    int64_t n, nb, hands, keeps, last, T1, Y, P, lo, n_index;
    int64_t ybox, joker_mode, upper_bonus, threshold, ybonus, forced;
    int64_t counter; /* the next state to take */
    int bad;         /* a next state outside the index: the arrays do not match */
} Work;

typedef struct {
    Work *w;
    double *A, *M, *tab, *tmp, *res;
} Part;

/* out[j] = the next level's row `row` at t = t0 + j - gain (1 below lo, 0 past its end). */
static void fill(Work *w, int64_t row, int64_t t0, int64_t gain, double *out)
{
    if (row < 0 || row >= w->n_index) {
        w->bad = 1;
        for (int j = 0; j < BLK; j++) out[j] = 0.0;
        return;
    }
    int64_t len = w->noff[row + 1] - w->noff[row], i0 = t0 - gain - w->lo;
    const double *d = w->ndata + w->noff[row];
    for (int j = 0; j < BLK; j++) {
        int64_t i = i0 + j;
        out[j] = i < 0 ? 1.0 : (i >= len ? 0.0 : d[i]);
    }
}

static inline int64_t row_of(const Work *w, int64_t mask, int64_t up, int64_t yf)
{
    return w->index[(mask * w->T1 + up) * w->Y + yf];
}

/* threshold_widget.move for an extra Yahtzee (the Yahtzee box filled, hand o all alike) in
 * open box b: the points (bonuses in), the next upper total and flag; -1 where the joker
 * rule forbids the box (widget.extra_points). */
static int64_t extra_move(const Work *w, int64_t mask, int64_t up, int64_t yf, int64_t o,
                          int64_t b, int64_t *nup_out, int64_t *nyf_out)
{
    int64_t pts = w->base[b * w->hands + o], f5 = w->five[o], nb = w->nb;
    if (w->joker_mode == 1) {
        int64_t forced_upper = -1;
        int lower_open = 0;
        for (int64_t b2 = 0; b2 < nb; b2++)
            if (!((mask >> b2) & 1)) {
                if (w->upper_face[b2] == f5 + 1) forced_upper = b2;
                else if (w->upper_face[b2] == 0) lower_open = 1;
            }
        if (forced_upper >= 0 && b != forced_upper) return -1;
        if (forced_upper < 0) {
            if (lower_open && w->upper_face[b] != 0) return -1;
            if (!lower_open) pts = 0;
            else if (w->joker[b] >= 0) pts = w->joker[b];
        }
    } else if (w->joker_mode == 2 && w->joker[b] >= 0) {
        for (int64_t b2 = 0; b2 < nb; b2++)
            if (w->upper_face[b2] == f5 + 1 && ((mask >> b2) & 1)) pts = w->joker[b];
    }
    int64_t nup = up, gain = pts + (yf == 1 ? w->ybonus : 0);
    if (w->upper_face[b] > 0) {
        nup = up + pts;
        if (nup >= w->threshold) {
            nup = w->threshold;
            if (up < w->threshold) gain += w->upper_bonus;
        }
    }
    *nup_out = nup;
    *nyf_out = b == w->ybox ? (pts > 0) : yf;
    return gain;
}

/* F[o * BLK + j]: hand o's best box at t = t0 + j. */
WIDE static void score_block(Part *p, int64_t mask, int64_t up, int64_t yf, int64_t t0, double *F,
                        int64_t only)
{
    Work *w = p->w;
    int64_t hands = w->hands, P = w->P;
    for (int64_t i = 0; i < hands * BLK; i++) F[i] = -1.0;
    for (int64_t b = 0; b < w->nb; b++) {
        if (((mask >> b) & 1) || (only >= 0 && b != only)) continue;
        int64_t next = mask | ((int64_t)1 << b), face = w->upper_face[b];
        const int64_t *pv = w->pvals + b * (P + 1);
        for (int64_t q = 0; q < w->npv[b]; q++) {
            int64_t pts = pv[q], nup = up, gain = pts, nyf = yf;
            if (face > 0) {
                nup = up + pts;
                if (nup >= w->threshold) {
                    nup = w->threshold;
                    if (up < w->threshold) gain += w->upper_bonus;
                }
            }
            if (b == w->ybox) nyf = pts > 0;
            fill(w, row_of(w, next, nup, nyf), t0, gain, p->tab + pts * BLK);
        }
        const int64_t *bo = w->base + b * hands;
        for (int64_t o = 0; o < hands; o++) {
            double *f = F + o * BLK;
            const double *v = p->tab + bo[o] * BLK;
            for (int j = 0; j < BLK; j++) f[j] = v[j] > f[j] ? v[j] : f[j];
        }
    }
    if (!(w->ybox >= 0 && ((mask >> w->ybox) & 1))) return;
    for (int64_t o = 0; o < hands; o++) { /* the extra Yahtzees: their own rules */
        if (w->five[o] < 0) continue;
        double *f = F + o * BLK;
        for (int j = 0; j < BLK; j++) f[j] = -1.0;
        for (int64_t b = 0; b < w->nb; b++) {
            if (((mask >> b) & 1) || (only >= 0 && b != only)) continue;
            int64_t nup, nyf, gain = extra_move(w, mask, up, yf, o, b, &nup, &nyf);
            if (gain < 0) continue;
            fill(w, row_of(w, mask | ((int64_t)1 << b), nup, nyf), t0, gain, p->tmp);
            for (int j = 0; j < BLK; j++) f[j] = p->tmp[j] > f[j] ? p->tmp[j] : f[j];
        }
    }
}

/* res[j]: the state's value at t = t0 + j at the start of its turn. */
WIDE static void block(Part *p, int64_t mask, int64_t up, int64_t yf, int64_t t0)
{
    Work *w = p->w;
    int64_t keeps = w->keeps, last = w->last;
    double *A = p->A, *M = p->M;
    int64_t only = -1;
    if (w->forced == 1) {
        only = 0;
        while ((mask >> only) & 1) only++;
    }
    score_block(p, mask, up, yf, t0, A + last * BLK, only);
    for (int r = 0; r < 2; r++) {
        for (int64_t k = last - 1; k >= 0; k--) { /* a roll: the mean over one more die */
            const int64_t *ad = w->add + 6 * k;
            const double *s0 = A + ad[0] * BLK, *s1 = A + ad[1] * BLK, *s2 = A + ad[2] * BLK;
            const double *s3 = A + ad[3] * BLK, *s4 = A + ad[4] * BLK, *s5 = A + ad[5] * BLK;
            double *a = A + k * BLK;
            for (int j = 0; j < BLK; j++)
                a[j] = (((((s0[j] + s1[j]) + s2[j]) + s3[j]) + s4[j]) + s5[j]) / 6.0;
        }
        for (int64_t k = 0; k < keeps; k++) { /* a keep: the best within the multiset */
            double *m = M + k * BLK;
            const double *a = A + k * BLK;
            for (int j = 0; j < BLK; j++) m[j] = a[j];
            for (int32_t q = w->sub_start[k]; q < w->sub_start[k + 1]; q++) {
                const double *s = M + (int64_t)w->sub[q] * BLK;
                for (int j = 0; j < BLK; j++) m[j] = s[j] > m[j] ? s[j] : m[j];
            }
        }
        double *t = A;
        A = M;
        M = t;
    }
    const double *F = A + last * BLK;
    double *res = p->res;
    for (int j = 0; j < BLK; j++) res[j] = 0.0;
    for (int64_t o = 0; o < w->hands; o++) {
        double pr = w->roll_prob[o];
        const double *f = F + o * BLK;
        for (int j = 0; j < BLK; j++) res[j] += pr * f[j];
    }
}

static void *sweep(void *arg)
{
    Part *p = arg;
    Work *w = p->w;
    for (;;) {
        int64_t i0 = __atomic_fetch_add(&w->counter, TAKE, __ATOMIC_RELAXED);
        if (i0 >= w->n) break;
        int64_t i1 = i0 + TAKE < w->n ? i0 + TAKE : w->n;
        for (int64_t i = i0; i < i1; i++) {
            const int64_t *s = w->states + 3 * i;
            int64_t n = w->off[i + 1] - w->off[i];
            double *out = w->data + w->off[i];
            for (int64_t start = 0; start < n; start += BLK) {
                block(p, s[0], s[1], s[2], w->lo + start);
                int64_t m = n - start < BLK ? n - start : BLK;
                memcpy(out + start, p->res, sizeof(double) * (size_t)m);
            }
        }
    }
    return NULL;
}

#include "rule_arrays.h" /* the rules' fields and read_rules, shared with _widget.c */

/* The derived arrays (sub, pvals, npv) and the checks of the shapes: 0 if they fail. */
static int prepare(Work *w, const int64_t *remove, Py_ssize_t nE)
{
    w->sub = malloc(sizeof(int32_t) * (size_t)(6 * w->keeps + 1));
    w->sub_start = malloc(sizeof(int32_t) * (size_t)(w->keeps + 1));
    w->pvals = malloc(sizeof(int64_t) * (size_t)(w->nb * (w->P + 1) + 1));
    w->npv = calloc((size_t)w->nb + 1, sizeof(int64_t));
    if (!w->sub || !w->sub_start || !w->pvals || !w->npv) return 0;
    int32_t q = 0;
    for (int64_t k = 0; k < w->keeps; k++) {
        w->sub_start[k] = q;
        for (int f = 0; f < 6; f++) {
            int64_t j = remove[6 * k + f];
            if (j >= w->keeps || j >= k) return 0; /* a keep's keeps come before it */
            if (j >= 0) w->sub[q++] = (int32_t)j;
        }
    }
    w->sub_start[w->keeps] = q;
    for (int64_t b = 0; b < w->nb; b++)
        for (int64_t pts = 0; pts <= w->P; pts++) {
            int seen = 0;
            for (int64_t o = 0; o < w->hands && !seen; o++) seen = w->base[b * w->hands + o] == pts;
            if (seen) w->pvals[b * (w->P + 1) + w->npv[b]++] = pts;
        }
    int ok = nE == ((Py_ssize_t)1 << w->nb) * w->T1 * w->Y && w->nb < 31 && w->off[0] == 0;
    ok = ok && w->noff[0] == 0;
    for (int64_t i = 0; ok && i < w->n_index; i++) ok = w->noff[i] <= w->noff[i + 1];
    for (int64_t i = 0; ok && i < w->nb * w->hands; i++) ok = w->base[i] >= 0;
    for (int64_t o = 0; ok && o < w->hands; o++) ok = w->roll_keep[o] == w->last + o;
    for (int64_t i = 0; ok && i < w->n; i++) {
        const int64_t *s = w->states + 3 * i;
        ok = s[0] >= 0 && s[0] < ((int64_t)1 << w->nb) && s[1] >= 0 && s[1] < w->T1 &&
             s[2] >= 0 && s[2] < w->Y && w->off[i] <= w->off[i + 1];
    }
    return ok;
}

static void run_threads(Work *w, Part *parts, long long threads)
{
    Py_BEGIN_ALLOW_THREADS
#ifdef LEVEL_THREADS
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, sweep, &parts[t]) == 0;
    sweep(&parts[0]);
    for (int t = 1; t < threads; t++)
        if (started[t]) pthread_join(tid[t], NULL);
#else
    for (int t = 0; t < threads; t++) sweep(&parts[t]);
#endif
    Py_END_ALLOW_THREADS
    (void)w;
}

static PyObject *level(PyObject *self, PyObject *args)
{
    Py_buffer bs, bd, bo, bi, bno, bnd, arr[N_ARRAYS];
    PyObject *rules;
    long long flag[N_FLAGS], lo, threads;
    if (!PyArg_ParseTuple(args, "y*w*y*y*y*y*OLL", &bs, &bd, &bo, &bi, &bno, &bnd, &rules, &lo,
                          &threads))
        return NULL;
    Work w;
    memset(&w, 0, sizeof w);
    Part parts[MAX_THREADS];
    int ok = read_rules(rules, arr, flag), mem = 1, nparts = 0;
    if (ok) {
        w.states = bs.buf, w.data = bd.buf, w.off = bo.buf, w.index = bi.buf;
        w.noff = bno.buf, w.ndata = bnd.buf;
        w.base = arr[BASE].buf, w.upper_face = arr[UPPER_FACE].buf, w.joker = arr[JOKER].buf;
        w.five = arr[FIVE].buf, w.add = arr[ADD].buf, w.roll_keep = arr[ROLL_KEEP].buf;
        w.roll_prob = arr[ROLL_PROB].buf;
        w.n = bs.len / (3 * (Py_ssize_t)sizeof(int64_t));
        w.nb = arr[UPPER_FACE].len / (Py_ssize_t)sizeof(int64_t);
        w.hands = arr[FIVE].len / (Py_ssize_t)sizeof(int64_t);
        w.keeps = arr[ADD].len / (6 * (Py_ssize_t)sizeof(int64_t));
        int64_t nss = arr[SIZE_START].len / (Py_ssize_t)sizeof(int64_t);
        w.last = nss >= 2 ? ((const int64_t *)arr[SIZE_START].buf)[nss - 2] : 0;
        w.ybox = flag[YBOX], w.joker_mode = flag[JOKER_MODE], w.upper_bonus = flag[UPPER_BONUS];
        w.threshold = flag[THRESHOLD], w.ybonus = flag[YBONUS], w.forced = flag[FORCED];
        w.T1 = w.threshold + 1, w.Y = w.ybox >= 0 ? 2 : 1, w.lo = lo;
        w.n_index = bno.len / (Py_ssize_t)sizeof(int64_t) - 1;
        for (int64_t i = 0; i < w.nb * w.hands; i++)
            if (w.base[i] > w.P) w.P = w.base[i];
        ok = nss >= 2 && bo.len == (w.n + 1) * (Py_ssize_t)sizeof(int64_t) &&
             arr[BASE].len == w.nb * w.hands * (Py_ssize_t)sizeof(int64_t) &&
             arr[ROLL_PROB].len == w.hands * (Py_ssize_t)sizeof(double) &&
             arr[REMOVE].len == arr[ADD].len && w.n_index >= 0 &&
             prepare(&w, arr[REMOVE].buf, bi.len / (Py_ssize_t)sizeof(int64_t)) &&
             (Py_ssize_t)(w.off[w.n] * sizeof(double)) == bd.len &&
             (Py_ssize_t)(((const int64_t *)bno.buf)[w.n_index] * sizeof(double)) == bnd.len;
    }
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    for (int t = 0; ok && t < threads; t++, nparts++) {
        parts[t].w = &w;
        parts[t].A = malloc(sizeof(double) * (size_t)((w.keeps + 1) * BLK));
        parts[t].M = malloc(sizeof(double) * (size_t)((w.keeps + 1) * BLK));
        parts[t].tab = malloc(sizeof(double) * (size_t)((w.P + 1) * BLK));
        parts[t].tmp = malloc(sizeof(double) * BLK);
        parts[t].res = malloc(sizeof(double) * BLK);
        mem &= parts[t].A && parts[t].M && parts[t].tab && parts[t].tmp && parts[t].res;
    }
    if (ok && mem) run_threads(&w, parts, threads);
    for (int t = 0; t < nparts; t++) {
        free(parts[t].A), free(parts[t].M), free(parts[t].tab);
        free(parts[t].tmp), free(parts[t].res);
    }
    free(w.sub), free(w.sub_start), free(w.pvals), free(w.npv);
    for (int i = 0; i < N_ARRAYS; i++) PyBuffer_Release(&arr[i]);
    PyBuffer_Release(&bs), PyBuffer_Release(&bd), PyBuffer_Release(&bo);
    PyBuffer_Release(&bi), PyBuffer_Release(&bno), PyBuffer_Release(&bnd);
    if (PyErr_Occurred()) return NULL;
    if (!ok || w.bad) {
        PyErr_SetString(PyExc_ValueError, "threshold level: arrays of the wrong shape");
        return NULL;
    }
    if (!mem) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"level", level, METH_VARARGS, "Every state's vector of one level (see _threshold.c)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_threshold",
                                    "The threshold tables' level, compiled.", -1, methods};

PyMODINIT_FUNC PyInit__threshold(void) { return PyModule_Create(&module); }
