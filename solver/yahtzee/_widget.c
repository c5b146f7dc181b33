/* The Yahtzee table build in C (solve.py), built by `pip install` (setup.py): the widget of
 * widget.py for every state of one level, the states shared by threads.  Same arithmetic in
 * the same order as widget.py (so the tables equal the numba ones, but for the rounding of
 * the start of the turn's mean: see the end of widget_run(), ~1e-13), arranged for speed:
 * per open box, the value of each possible number of points is worked out once (points,
 * upper bonus, the next state's value), and a hand's value in the box is a look-up; only the
 * hands of all dice alike after the Yahtzee box is filled (bonus, joker) take the rules'
 * long way (score_extras and extra_points, as in widget.py).  The states of one mask and
 * flag (consecutive in a level's states, by upper total) are worked out UB at a time, one
 * state a vector lane (widget_run): the keeps' means and bests become vector instructions
 * (AVX2 where the processor has it), each lane's arithmetic the same as one state's alone.
 * The threads take these runs a few at a time from a shared counter.  If it could not be
 * built, numba runs widget.py.
 *
 * level(states, E, rules, threads)
 *   states (n, 3) int64 (mask, up, yf); E float64 C-contiguous (masks, threshold + 1, 2 with
 *   a Yahtzee box else 1), written at the states; rules: a widget.RuleArrays, read by its
 *   fields' names (read_rules): base (nb, hands), upper_face, joker (nb), five (hands), add,
 *   remove (keeps, 6), roll_keep (hands), size_start (dice + 2): int64 (see dice.py,
 *   scoring.py); roll_prob (hands) float64; the hands in the order of their keeps
 *   (roll_keep[o] = the first keep of all the dice + o: solve.keep_order orders them so).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#if !defined(_WIN32)
#include <pthread.h>
#define WIDGET_THREADS
#endif

#define NEG (-1e300)
#define MAX_THREADS 64
#define UB 4   /* states (upper totals of one mask and flag) worked out at once */
#define TAKE 4 /* runs taken from the shared counter at a time */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WIDE __attribute__((target_clones("avx2", "default"))) /* 4 doubles at once */
#else
#define WIDE
#endif
/* a run's lanes as one value (GCC and clang vector extensions): the compiler's vector
 * instructions, whichever the clone has; VMAX(a, b) = a > b ? a : b per lane (a macro:
 * a function would not be inlined in the clones) */
#define LW 4             /* lanes of one vector value: 4 doubles (one AVX2 register) */
#define NV (UB / LW)     /* vector values a run takes */
typedef double lanes __attribute__((vector_size(8 * LW), aligned(8)));
typedef long long lane_mask __attribute__((vector_size(8 * LW), aligned(8)));
#define VMAX(a, b) ((lanes)(((lane_mask)(a) & ((a) > (b))) | ((lane_mask)(b) & ~((a) > (b)))))

typedef struct {
    double *E;
    const int64_t *states, *base, *upper_face, *joker, *five, *add, *remove, *roll_keep;
    int32_t *sub;  /* each keep's keeps of one die fewer, subw a keep, padded with `keeps` */
    int subw;
    double *based;             /* base as doubles: a lower box's values without a look-up */
    const double *roll_prob;
    int64_t n, nb, hands, keeps, last, T1, Y, P;
    int64_t ybox, joker_mode, upper_bonus, threshold, ybonus, forced;
    int64_t *runs, nr; /* the runs of states (make_runs) */
    int64_t *next;     /* the next run to take (shared by the threads) */
} Work;

typedef struct {
    const Work *w;
    double *A, *M, *tab; /* UB lanes an entry */
} Part;

static inline double E_at(const Work *w, int64_t mask, int64_t up, int64_t yf)
{
    return w->E[(mask * w->T1 + up) * w->Y + yf];
}

/* widget.score_extras: hand o in box b (open, allowed) when it is an extra Yahtzee (the
 * joker rule: widget.extra_points); NEG where the joker rule forbids it.  Else its value:
 * gain + E(next). */
static double extra_move(const Work *w, int64_t mask, int64_t up, int64_t yf, int64_t o,
                         int64_t b)
{
    int64_t pts = w->base[b * w->hands + o], f5 = w->five[o], nb = w->nb;
    int64_t bonus = yf == 1 ? w->ybonus : 0;
    if (w->joker_mode == 1) {
        int64_t forced_upper = -1;
        int lower_open = 0;
        for (int64_t b2 = 0; b2 < nb; b2++)
            if (!((mask >> b2) & 1)) {
                if (w->upper_face[b2] == f5 + 1) forced_upper = b2;
                else if (w->upper_face[b2] == 0) lower_open = 1;
            }
        if (forced_upper >= 0 && b != forced_upper) return NEG;
        if (forced_upper < 0) {
            if (lower_open && w->upper_face[b] != 0) return NEG;
            if (!lower_open) pts = 0;
            else if (w->joker[b] >= 0) pts = w->joker[b];
        }
    } else if (w->joker_mode == 2 && w->joker[b] >= 0) {
        for (int64_t b2 = 0; b2 < nb; b2++)
            if (w->upper_face[b2] == f5 + 1 && ((mask >> b2) & 1)) pts = w->joker[b];
    }
    int64_t nup = up, gain = pts + bonus, nyf = yf;
    if (w->upper_face[b] > 0) {
        nup = up + pts;
        if (nup >= w->threshold) {
            nup = w->threshold;
            if (up < w->threshold) gain += w->upper_bonus;
        }
    }
    if (b == w->ybox) nyf = pts > 0 ? 1 : 0;
    return (double)gain + E_at(w, mask | ((int64_t)1 << b), nup, nyf);
}

/* The values of a run of states of one mask and flag at the start of their turn
 * (widget.widget), UB upper totals at once: every array holds UB lanes per entry (lanes past
 * the run's nu are filled with 0 and never written back), so that each step of the widget is
 * a loop over the lanes the compiler makes vector instructions of.  Per lane the same
 * arithmetic in the same order as one state at a time. */
/* F[o * UB + u]: hand o's value in its best box, lane u (upper total up[u]). */
WIDE static void score_run(const Work *w, int64_t mask, int64_t yf, const int64_t *up,
                           int64_t only, double *F, double *tab)
{
    int64_t nb = w->nb, hands = w->hands, P = w->P;
    double e[UB];
    for (int64_t i = 0; i < hands * UB; i++) F[i] = NEG;
    for (int64_t b = 0; b < nb; b++) {
        if (((mask >> b) & 1) || (only >= 0 && b != only)) continue;
        int64_t next = mask | ((int64_t)1 << b), face = w->upper_face[b];
        if (face > 0 || b == w->ybox) {
            if (face > 0) { /* an upper box scores face x count: only those points */
                for (int64_t pts = 0; pts <= P; pts += face)
                    for (int u = 0; u < UB; u++) {
                        int64_t nup = up[u] + pts;
                        double gain = (double)pts;
                        if (nup >= w->threshold) {
                            nup = w->threshold;
                            if (up[u] < w->threshold) gain += (double)w->upper_bonus;
                        }
                        tab[pts * UB + u] = gain + E_at(w, next, nup, yf);
                    }
            } else { /* the Yahtzee box: its points decide the next flag */
                for (int u = 0; u < UB; u++) {
                    double e1 = E_at(w, next, up[u], 1);
                    for (int64_t pts = 1; pts <= P; pts++) tab[pts * UB + u] = (double)pts + e1;
                    tab[u] = 0.0 + E_at(w, next, up[u], 0);
                }
            }
            const int64_t *bo = w->base + b * hands;
            for (int64_t o = 0; o < hands; o++) {
                lanes *f = (lanes *)(F + o * UB);
                const lanes *t = (const lanes *)(tab + bo[o] * UB);
                for (int j = 0; j < NV; j++) {
                    lanes a = t[j], g = f[j];
                    f[j] = VMAX(a, g);
                }
            }
        } else { /* a lower box: one next state, the points plus its value */
            const double *bd = w->based + b * hands;
            for (int u = 0; u < UB; u++) e[u] = E_at(w, next, up[u], yf);
            const lanes *ev = (const lanes *)e;
            for (int64_t o = 0; o < hands; o++) {
                lanes *f = (lanes *)(F + o * UB);
                for (int j = 0; j < NV; j++) {
                    lanes a = bd[o] + ev[j], g = f[j];
                    f[j] = VMAX(a, g);
                }
            }
        }
    }
}

/* The hands of all dice alike once the Yahtzee box is filled: their own rules, box by box. */
static void extras_run(const Work *w, int64_t mask, int64_t yf, const int64_t *up, int64_t only,
                       double *F)
{
    int64_t nb = w->nb, hands = w->hands;
    for (int64_t o = 0; o < hands; o++) {
        if (w->five[o] < 0) continue;
        for (int u = 0; u < UB; u++) {
            double best = NEG;
            for (int64_t b = 0; b < nb; b++) {
                if (((mask >> b) & 1) || (only >= 0 && b != only)) continue;
                double v = extra_move(w, mask, up[u], yf, o, b);
                if (v > NEG / 2 && v > best) best = v;
            }
            F[o * UB + u] = best;
        }
    }
}

WIDE static void widget_run(const Part *p, int64_t i0, int nu)
{
    const Work *w = p->w;
    int64_t hands = w->hands, keeps = w->keeps, last = w->last;
    const int64_t *s0 = w->states + 3 * i0;
    int64_t mask = s0[0], yf = s0[2], up[UB];
    for (int u = 0; u < UB; u++) up[u] = u < nu ? s0[3 * u + 1] : s0[1];
    double *A = p->A, *M = p->M, *F = A + last * UB;
    int64_t only = -1; /* forced order: the first open box, no other */
    while (w->forced == 1 && ((mask >> ++only) & 1)) continue;
    score_run(w, mask, yf, up, only, F, p->tab);
    if (w->ybox >= 0 && ((mask >> w->ybox) & 1)) extras_run(w, mask, yf, up, only, F);
    /* keeps: the mean over one more die, the best over one die fewer (two rolls) */
    for (int r = 0; r < 2; r++) {
        for (int64_t k = last - 1; k >= 0; k--) {
            const int64_t *ad = w->add + 6 * k;
            lanes sum[NV];
            for (int j = 0; j < NV; j++) sum[j] = (lanes){0.0};
            for (int f = 0; f < 6; f++) {
                const lanes *a = (const lanes *)(A + ad[f] * UB);
                for (int j = 0; j < NV; j++) sum[j] += a[j];
            }
            for (int j = 0; j < NV; j++) ((lanes *)(A + k * UB))[j] = sum[j] / 6.0;
        }
        for (int u = 0; u < UB; u++) M[keeps * UB + u] = NEG; /* the padding's slot */
        for (int64_t k = 0; k < keeps; k++) {
            lanes m[NV];
            const int32_t *sb = w->sub + w->subw * k;
            for (int j = 0; j < NV; j++) m[j] = ((const lanes *)(A + k * UB))[j];
            for (int q = 0; q < w->subw; q++) {
                const lanes *v = (const lanes *)(M + sb[q] * UB);
                for (int j = 0; j < NV; j++) {
                    lanes a = v[j];
                    m[j] = VMAX(a, m[j]);
                }
            }
            for (int j = 0; j < NV; j++) ((lanes *)(M + k * UB))[j] = m[j];
        }
        double *t = A; /* the best keeps' values are the next roll's hands */
        A = M;
        M = t;
    }
    F = A + last * UB;
    /* the start of the turn: the mean over the first roll (a 1e-16 rounding away from the
     * keep recursion's sum, which numba's widget.py takes) */
    double a0[UB], a1[UB];
    for (int u = 0; u < UB; u++) a0[u] = a1[u] = 0.0;
    int64_t o = 0;
    for (; o + 1 < hands; o += 2)
        for (int u = 0; u < UB; u++) {
            a0[u] += w->roll_prob[o] * F[o * UB + u];
            a1[u] += w->roll_prob[o + 1] * F[(o + 1) * UB + u];
        }
    for (; o < hands; o++)
        for (int u = 0; u < UB; u++) a0[u] += w->roll_prob[o] * F[o * UB + u];
    for (int u = 0; u < nu; u++) {
        const int64_t *s = s0 + 3 * u;
        w->E[(s[0] * w->T1 + s[1]) * w->Y + s[2]] = a0[u] + a1[u];
    }
}

/* A thread's share: runs taken TAKE at a time from the shared counter (another process on
 * the cores slows one thread: the others take its runs). */
static void *sweep(void *arg)
{
    Part *p = arg;
    const Work *w = p->w;
    for (;;) {
        int64_t j0 = __atomic_fetch_add(w->next, TAKE, __ATOMIC_RELAXED);
        if (j0 >= w->nr) break;
        int64_t j1 = j0 + TAKE < w->nr ? j0 + TAKE : w->nr;
        for (int64_t j = j0; j < j1; j++)
            widget_run(p, w->runs[j], (int)(w->runs[j + 1] - w->runs[j]));
    }
    return NULL;
}

/* runs[j] .. runs[j + 1]: consecutive states of one mask and flag, at most UB of them;
 * their number. */
static int64_t make_runs(const int64_t *st, int64_t n, int64_t *runs)
{
    int64_t nr = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || st[3 * i] != st[3 * i - 3] || st[3 * i + 2] != st[3 * i - 1] ||
            i - runs[nr - 1] == UB)
            runs[nr++] = i;
    runs[nr] = n;
    return nr;
}

#include "rule_arrays.h" /* the rules' fields and read_rules, shared with _threshold.c */

static PyObject *level(PyObject *self, PyObject *args)
{
    Py_buffer states, E, arr[N_ARRAYS];
    PyObject *rules;
    long long flag[N_FLAGS], threads;
    if (!PyArg_ParseTuple(args, "y*w*OL", &states, &E, &rules, &threads)) return NULL;
    if (!read_rules(rules, arr, flag)) {
        for (int i = 0; i < N_ARRAYS; i++) PyBuffer_Release(&arr[i]);
        PyBuffer_Release(&states);
        PyBuffer_Release(&E);
        return NULL;
    }
    long long threshold = flag[THRESHOLD], T1 = threshold + 1, Y = flag[YBOX] >= 0 ? 2 : 1;
    Work w;
    w.E = E.buf;
    w.states = states.buf;
    w.base = arr[BASE].buf;
    w.upper_face = arr[UPPER_FACE].buf;
    w.joker = arr[JOKER].buf;
    w.five = arr[FIVE].buf;
    w.add = arr[ADD].buf;
    w.remove = arr[REMOVE].buf;
    w.roll_keep = arr[ROLL_KEEP].buf;
    w.roll_prob = arr[ROLL_PROB].buf;
    w.n = states.len / (3 * (Py_ssize_t)sizeof(int64_t));
    w.nb = arr[UPPER_FACE].len / (Py_ssize_t)sizeof(int64_t);
    w.hands = arr[FIVE].len / (Py_ssize_t)sizeof(int64_t);
    w.keeps = arr[ADD].len / (6 * (Py_ssize_t)sizeof(int64_t));
    int64_t nss = arr[SIZE_START].len / (Py_ssize_t)sizeof(int64_t);
    w.last = nss >= 2 ? ((const int64_t *)arr[SIZE_START].buf)[nss - 2] : 0;
    w.T1 = T1, w.Y = Y, w.ybox = flag[YBOX], w.joker_mode = flag[JOKER_MODE];
    w.upper_bonus = flag[UPPER_BONUS], w.threshold = threshold, w.ybonus = flag[YBONUS];
    w.forced = flag[FORCED];
    w.P = 0;
    for (int64_t i = 0; i < w.nb * w.hands; i++)
        if (w.base[i] > w.P) w.P = w.base[i];
    /* every index the widget reads must lie in E: the caller's shapes are checked here */
    Py_ssize_t nE = E.len / (Py_ssize_t)sizeof(double);
    w.subw = 1;  /* the most different faces in a keep */
    for (int64_t k = 0; k < w.keeps; k++) {
        int d = 0;
        for (int f = 0; f < 6; f++) d += w.remove[6 * k + f] >= 0;
        if (d > w.subw) w.subw = d;
    }
    w.sub = malloc(sizeof(int32_t) * (size_t)(w.subw * w.keeps + 1));
    w.based = malloc(sizeof(double) * (size_t)(w.nb * w.hands + 1));
    for (int64_t i = 0; w.based != NULL && i < w.nb * w.hands; i++) w.based[i] = (double)w.base[i];
    int ok = w.sub != NULL && w.based != NULL &&
             arr[ROLL_PROB].len == w.hands * (Py_ssize_t)sizeof(double) &&
             arr[BASE].len == w.nb * w.hands * (Py_ssize_t)sizeof(int64_t) && nss >= 2 &&
             (Y == 1 || Y == 2) && nE == ((Py_ssize_t)1 << w.nb) * T1 * Y && w.nb < 31;
    for (int64_t o = 0; ok && o < w.hands; o++) ok = w.roll_keep[o] == w.last + o;
    for (int64_t i = 0; ok && i < w.n; i++) {
        const int64_t *s = w.states + 3 * i;
        ok = s[0] >= 0 && s[0] < ((int64_t)1 << w.nb) && s[1] >= 0 && s[1] < T1 && s[2] >= 0 &&
             s[2] < Y;
    }
    for (int64_t k = 0; ok && k < w.keeps; k++) {
        int q = 0;
        for (int f = 0; f < 6; f++)
            if (w.remove[6 * k + f] >= 0) w.sub[w.subw * k + q++] = (int32_t)w.remove[6 * k + f];
        while (q < w.subw) w.sub[w.subw * k + q++] = (int32_t)w.keeps;
    }
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads > w.n) threads = w.n > 0 ? w.n : 1;
    int64_t next_run = 0;
    w.next = &next_run;
    w.runs = ok ? malloc(sizeof(int64_t) * (size_t)(w.n + 1)) : NULL;
    int mem = w.runs != NULL;
    w.nr = mem ? make_runs(w.states, w.n, w.runs) : 0;
    Part parts[MAX_THREADS];
    for (int t = 0; ok && t < threads; t++) {
        parts[t].w = &w;
        parts[t].A = malloc(sizeof(double) * (size_t)((w.keeps + 1) * UB));
        parts[t].M = malloc(sizeof(double) * (size_t)((w.keeps + 1) * UB));
        parts[t].tab = malloc(sizeof(double) * (size_t)((w.P + 1) * UB));
        mem &= parts[t].A && parts[t].M && parts[t].tab;
    }
    if (ok && mem) {
        Py_BEGIN_ALLOW_THREADS
#ifdef WIDGET_THREADS
        pthread_t tid[MAX_THREADS];
        int started[MAX_THREADS] = {0};
        for (int t = 1; t < threads; t++)
            started[t] = pthread_create(&tid[t], NULL, sweep, &parts[t]) == 0;
        sweep(&parts[0]);
        for (int t = 1; t < threads; t++) {
            if (started[t]) pthread_join(tid[t], NULL);
            else sweep(&parts[t]);  /* no thread to be had: do it here */
        }
#else
        for (int t = 0; t < threads; t++) sweep(&parts[t]);
#endif
        Py_END_ALLOW_THREADS
    }
    for (int t = 0; ok && t < threads; t++) {
        free(parts[t].A);
        free(parts[t].M);
        free(parts[t].tab);
    }
    free(w.runs);
    free(w.sub);
    free(w.based);
    for (int i = 0; i < N_ARRAYS; i++) PyBuffer_Release(&arr[i]);
    PyBuffer_Release(&states);
    PyBuffer_Release(&E);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "level: arrays of the wrong shape");
        return NULL;
    }
    if (!mem) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"level", level, METH_VARARGS, "The widget for every state of one level (see _widget.c)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_widget",
                                    "The Yahtzee table build, compiled.", -1, methods};

PyMODINIT_FUNC PyInit__widget(void) { return PyModule_Create(&module); }
