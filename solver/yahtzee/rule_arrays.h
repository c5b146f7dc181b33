/* rule_arrays.h: the fields of a widget.RuleArrays that the C kernels (_widget.c,
 * _threshold.c) read, by name, and read_rules that unpacks them: one place for both. */
#ifndef DICESOLVER_RULE_ARRAYS_H
#define DICESOLVER_RULE_ARRAYS_H

#include <Python.h>

enum { BASE, UPPER_FACE, JOKER, FIVE, ADD, REMOVE, ROLL_KEEP, SIZE_START, ROLL_PROB, N_ARRAYS };
static const char *const ARRAY_FIELDS[N_ARRAYS] = {
    "base", "upper_face", "joker", "five", "add", "remove", "roll_keep", "size_start",
    "roll_prob"};
enum { YBOX, JOKER_MODE, UPPER_BONUS, THRESHOLD, YBONUS, FORCED, N_FLAGS };
static const char *const FLAG_FIELDS[N_FLAGS] = {"ybox",      "joker_mode", "upper_bonus",
                                                 "threshold", "ybonus",     "forced"};

/* rules' arrays as buffers (each one's obj NULL until taken: the caller releases them, also
 * after a failure) and its ints; 0 with a Python error set where a field is missing or not
 * of its kind. */
static int read_rules(PyObject *rules, Py_buffer *arrays, long long *flags)
{
    for (int i = 0; i < N_ARRAYS; i++) arrays[i].obj = NULL;
    for (int i = 0; i < N_ARRAYS; i++) {
        PyObject *a = PyObject_GetAttrString(rules, ARRAY_FIELDS[i]);
        int bad = a == NULL || PyObject_GetBuffer(a, &arrays[i], PyBUF_SIMPLE) < 0;
        Py_XDECREF(a);
        if (bad) return 0;
    }
    for (int i = 0; i < N_FLAGS; i++) {
        PyObject *v = PyObject_GetAttrString(rules, FLAG_FIELDS[i]);
        flags[i] = v == NULL ? -1 : PyLong_AsLongLong(v);
        Py_XDECREF(v);
        if (PyErr_Occurred()) return 0;
    }
    return 1;
}

#endif
