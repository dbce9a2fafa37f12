/* The pre-filter's word scan in one pass: which of up to 64 words occur in a file's bytes.
 *
 * An optional accelerator for seedlint.prefilter.words: without it (no C compiler when the
 * package was built), the same answers come from one `word in raw` search per word. A
 * Python search costs a pass over the file for each word; this costs one pass for all of
 * them, the 33 words of the default rules included.
 *
 * Matcher(words, folded): `words` are non-empty bytes; where `folded[i]` is true, words[i]
 * is in lower case (ASCII) and matches in any case, as `words[i] in raw.lower()` would.
 * Matcher.scan(data) -> int: bit i set when words[i] occurs in `data` (any bytes-like).
 *
 * The loop reads each byte once: a word may start at position i only if the byte there is
 * one of its first bytes and the next one of its second bytes (two 256-entry tables of
 * word sets); only then are its other bytes compared. Most positions can start no word:
 * four of them are tested at once, with one branch (about twice as fast as one branch a
 * position over the benchmark corpus). A word found leaves the tables, and the scan ends
 * once every word is found.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_WORDS 64

typedef struct {
    PyObject_HEAD
    int count;
    unsigned char *words[MAX_WORDS];
    Py_ssize_t lengths[MAX_WORDS];
    int folded[MAX_WORDS];
    uint64_t first[256];  /* the words that may start with this byte */
    uint64_t second[256]; /* the words (of two bytes or more) whose second byte it may be */
    uint64_t single;      /* the words of one byte */
} Matcher;

static unsigned char
lower_of(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static int
lowest_bit(uint64_t set)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(set);
#else
    int index = 0;
    while (!(set & 1)) {
        set >>= 1;
        index++;
    }
    return index;
#endif
}

/* Add word `index` to `table` at the byte `c` (and at its upper case when folded). */
static void
enter(uint64_t *table, unsigned char c, int folded, int index)
{
    uint64_t bit = (uint64_t)1 << index;
    table[c] |= bit;
    if (folded && c >= 'a' && c <= 'z') {
        table[c - 32] |= bit;
    }
}

static void
Matcher_dealloc(Matcher *self)
{
    for (int i = 0; i < self->count; i++) {
        PyMem_Free(self->words[i]);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
Matcher_init(Matcher *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"words", "folded", NULL};
    PyObject *words, *folded;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:Matcher", keywords, &words, &folded)) {
        return -1;
    }
    for (int i = 0; i < self->count; i++) { /* __init__ called again */
        PyMem_Free(self->words[i]);
    }
    self->count = 0;
    memset(self->first, 0, sizeof(self->first));
    memset(self->second, 0, sizeof(self->second));
    self->single = 0;
    PyObject *word_list = PySequence_Fast(words, "words must be a sequence");
    if (word_list == NULL) {
        return -1;
    }
    PyObject *fold_list = PySequence_Fast(folded, "folded must be a sequence");
    if (fold_list == NULL) {
        Py_DECREF(word_list);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(word_list);
    int result = -1;
    if (n != PySequence_Fast_GET_SIZE(fold_list)) {
        PyErr_SetString(PyExc_ValueError, "words and folded differ in length");
        goto done;
    }
    if (n > MAX_WORDS) {
        PyErr_Format(PyExc_ValueError, "at most %d words", MAX_WORDS);
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *word = PySequence_Fast_GET_ITEM(word_list, i);
        char *bytes;
        Py_ssize_t length;
        if (!PyBytes_Check(word)) {
            PyErr_SetString(PyExc_TypeError, "a word must be bytes");
            goto done;
        }
        if (PyBytes_AsStringAndSize(word, &bytes, &length) < 0) {
            goto done;
        }
        if (length == 0) {
            PyErr_SetString(PyExc_ValueError, "a word must not be empty");
            goto done;
        }
        int fold = PyObject_IsTrue(PySequence_Fast_GET_ITEM(fold_list, i));
        if (fold < 0) {
            goto done;
        }
        for (Py_ssize_t j = 0; fold && j < length; j++) {
            if (bytes[j] >= 'A' && bytes[j] <= 'Z') {
                PyErr_SetString(PyExc_ValueError, "a folded word must be in lower case");
                goto done;
            }
        }
        unsigned char *copy = PyMem_Malloc((size_t)length);
        if (copy == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(copy, bytes, (size_t)length);
        int index = self->count;
        self->words[index] = copy;
        self->lengths[index] = length;
        self->folded[index] = fold;
        self->count++;
        enter(self->first, copy[0], fold, index);
        if (length == 1) {
            self->single |= (uint64_t)1 << index;
        }
        else {
            enter(self->second, copy[1], fold, index);
        }
    }
    result = 0;
done:
    Py_DECREF(word_list);
    Py_DECREF(fold_list);
    return result;
}

static PyObject *
Matcher_scan(Matcher *self, PyObject *data)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const unsigned char *text = (const unsigned char *)view.buf;
    Py_ssize_t size = view.len;
    uint64_t everything = self->count == 64 ? ~(uint64_t)0 : (((uint64_t)1 << self->count) - 1);
    uint64_t found = 0;
    if (self->count == 0) {
        PyBuffer_Release(&view);
        return PyLong_FromLong(0);
    }
    /* Local copies: a word found leaves the table of first bytes. In the table of second
     * bytes, the words of one byte are everywhere (they have no second byte to check). */
    uint64_t first[256], second[256];
    for (int c = 0; c < 256; c++) {
        first[c] = self->first[c];
        second[c] = self->second[c] | self->single;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < size; i++) {
        /* Four positions where no word can start (most of a file): one branch, not four. */
        if (i + 4 < size) {
            const unsigned char *t = text + i;
            if (!((first[t[0]] & second[t[1]]) | (first[t[1]] & second[t[2]]) |
                  (first[t[2]] & second[t[3]]) | (first[t[3]] & second[t[4]]))) {
                i += 3;
                continue;
            }
        }
        uint64_t candidates = first[text[i]] & (i + 1 < size ? second[text[i + 1]] : self->single);
        while (candidates) {
            int index = lowest_bit(candidates);
            uint64_t bit = (uint64_t)1 << index;
            candidates &= ~bit;
            Py_ssize_t length = self->lengths[index];
            if (length > size - i) {
                continue;
            }
            const unsigned char *word = self->words[index];
            Py_ssize_t j = 2;
            if (self->folded[index]) {
                while (j < length && lower_of(text[i + j]) == word[j]) {
                    j++;
                }
            }
            else {
                while (j < length && text[i + j] == word[j]) {
                    j++;
                }
            }
            if (j >= length) {
                found |= bit;
                for (int c = 0; c < 256; c++) {
                    first[c] &= ~bit;
                }
                if (found == everything) {
                    goto done;
                }
            }
        }
    }
done:
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(found);
}

static PyObject *
Matcher_len(Matcher *self, PyObject *unused)
{
    return PyLong_FromLong(self->count);
}

static PyMethodDef Matcher_methods[] = {
    {"scan", (PyCFunction)Matcher_scan, METH_O,
     "scan(data) -> int: bit i set when word i occurs in data"},
    {"count", (PyCFunction)Matcher_len, METH_NOARGS, "count() -> int: the number of words"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MatcherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    "seedlint.prefilter._wordscan.Matcher", /* tp_name */
    sizeof(Matcher),                          /* tp_basicsize */
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "seedlint.prefilter._wordscan",
    "The pre-filter's word scan in one pass (an optional accelerator).",
    -1,
    NULL,
};

PyMODINIT_FUNC
PyInit__wordscan(void)
{
    MatcherType.tp_dealloc = (destructor)Matcher_dealloc;
    MatcherType.tp_flags = Py_TPFLAGS_DEFAULT;
    MatcherType.tp_doc = "Matcher(words, folded): which of up to 64 words occur, in one pass";
    MatcherType.tp_methods = Matcher_methods;
    MatcherType.tp_init = (initproc)Matcher_init;
    MatcherType.tp_new = PyType_GenericNew;
    if (PyType_Ready(&MatcherType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&MatcherType);
    if (PyModule_AddObject(m, "Matcher", (PyObject *)&MatcherType) < 0) {
        Py_DECREF(&MatcherType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "MAX_WORDS", MAX_WORDS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
