/* The backward pass of turn.solve_turn in C, built by `pip install` (setup.py): the same
 * arithmetic as the numpy loop, one batch row at a time, every state of a row in one
 * contiguous block of memory.  A query loads it like any module: nothing is compiled at
 * run time.  If it could not be built, turn.py runs its numpy loop instead.
 *
 * Arguments (C-contiguous; int64 indices, float64 values; checked by turn.py):
 *   flat (B, sources*S*L)  V of every state, s*L + r of source 0 then the permanent-points
 *                          sources; filled for r > start[b], written for r <= start[b]
 *   base (K)               offset of each choice's next state (source, state, shift)
 *   opt_start, opt_end (O) the choices of each outcome; out_n (O) its dice count - 1
 *   prob (O), pz (N+1), zilch (B)
 *   bank (B, S, L)         the payoff of banking (never at s = 0)
 *   roll (B, S, L)         the value of rolling, written for r <= start[b]
 *   start (B)              each row's first r to solve
 *   S, L
 *   ex_flat (E, B, sources*S*L), ex_bank (E, B, L), ex_zilch (E, B): the extras, other
 *                          payoffs evaluated under the optimal policy (first best choice).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static void sweep(double *flat, const int64_t *base, const int64_t *opt_start,
                  const int64_t *opt_end, const int64_t *out_n, const double *prob,
                  const double *pz, const double *zilch, const double *bank, double *roll,
                  const int64_t *start, Py_ssize_t B, Py_ssize_t row, Py_ssize_t O,
                  Py_ssize_t S, Py_ssize_t L, double *ex_flat, const double *ex_bank,
                  const double *ex_zilch, Py_ssize_t E, double *Rn, double *Re)
{
    Py_ssize_t N = S - 1;
    for (Py_ssize_t b = 0; b < B; b++) {
        double *fb = flat + b * row;
        for (int64_t r = start[b]; r >= 0; r--) {
            for (Py_ssize_t n = 0; n < N; n++) Rn[n] = 0.0;
            for (Py_ssize_t i = 0; i < E * N; i++) Re[i] = 0.0;
            for (Py_ssize_t o = 0; o < O; o++) {
                double best = -INFINITY;
                int64_t bk = opt_start[o];
                for (int64_t k = opt_start[o]; k < opt_end[o]; k++) {
                    double v = fb[base[k] + r];
                    if (v > best) { best = v; bk = k; }
                }
                Rn[out_n[o]] += prob[o] * best;
                for (Py_ssize_t j = 0; j < E; j++)
                    Re[j * N + out_n[o]] += prob[o] * ex_flat[(j * B + b) * row + base[bk] + r];
            }
            for (Py_ssize_t n = 0; n < N; n++) {
                Rn[n] += pz[n + 1] * zilch[b];
                for (Py_ssize_t j = 0; j < E; j++)
                    Re[j * N + n] += pz[n + 1] * ex_zilch[j * B + b];
            }
            for (Py_ssize_t s = 0; s < S; s++) {
                Py_ssize_t n = s == 0 ? N - 1 : s - 1;
                double rv = Rn[n], bv = bank[(b * S + s) * L + r];
                int banks = s > 0 && bv >= rv;
                roll[(b * S + s) * L + r] = rv;
                fb[s * L + r] = banks ? bv : rv;
                for (Py_ssize_t j = 0; j < E; j++)
                    ex_flat[(j * B + b) * row + s * L + r] =
                        banks ? ex_bank[(j * B + b) * L + r] : Re[j * N + n];
            }
        }
    }
}

static PyObject *backward(PyObject *self, PyObject *args)
{
    Py_buffer flat, base, opt_start, opt_end, out_n, prob, pz, zilch, bank, roll, start,
        ex_flat, ex_bank, ex_zilch;
    Py_ssize_t S, L;
    if (!PyArg_ParseTuple(args, "w*y*y*y*y*y*y*y*y*w*y*nnw*y*y*", &flat, &base, &opt_start,
                          &opt_end, &out_n, &prob, &pz, &zilch, &bank, &roll, &start, &S, &L,
                          &ex_flat, &ex_bank, &ex_zilch))
        return NULL;
    Py_ssize_t B = zilch.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t O = prob.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t row = B ? flat.len / (Py_ssize_t)sizeof(double) / B : 0;
    Py_ssize_t E = B ? ex_zilch.len / (Py_ssize_t)sizeof(double) / B : 0;
    double *Rn = malloc(sizeof(double) * (S > 1 ? S - 1 : 1));
    double *Re = malloc(sizeof(double) * (E * (S - 1) + 1));
    PyObject *result = NULL;
    if (Rn == NULL || Re == NULL) {
        PyErr_NoMemory();
    } else {
        Py_BEGIN_ALLOW_THREADS
        sweep(flat.buf, base.buf, opt_start.buf, opt_end.buf, out_n.buf, prob.buf, pz.buf,
              zilch.buf, bank.buf, roll.buf, start.buf, B, row, O, S, L, ex_flat.buf,
              ex_bank.buf, ex_zilch.buf, E, Rn, Re);
        Py_END_ALLOW_THREADS
        result = Py_None;
        Py_INCREF(result);
    }
    free(Rn);
    free(Re);
    Py_buffer *all[] = {&flat, &base, &opt_start, &opt_end, &out_n, &prob, &pz, &zilch, &bank,
                        &roll, &start, &ex_flat, &ex_bank, &ex_zilch};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PyBuffer_Release(all[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"backward", backward, METH_VARARGS, "The backward pass of turn.solve_turn (see _kernel.c)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel",
                                    "Compiled backward pass of the turn solver.", -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }
