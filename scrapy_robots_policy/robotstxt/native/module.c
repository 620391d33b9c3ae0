/* The Python type: ``read`` builds a NativeRules from the groups of a parsed file, and
 * its methods answer as matcher.CompiledRules says. */
#include "rules.h"

#include <stddef.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    Tables tables;
    char crawl_delay_lines; /* a line's key starts with "crawl" */
} NativeRules;

/* A rule found, as Matcher.find answers for a plain rule: its number, ~ it if it allows. */
static PyObject *as_found(const Tables *tables, Py_ssize_t index) {
    return PyLong_FromSsize_t(tables->rules[index].allow ? ~index : index);
}

static const char *path_octets(PyObject *path, Py_ssize_t *n) {
    if (!PyUnicode_Check(path)) {
        PyErr_SetString(PyExc_TypeError, "path must be str");
        return NULL;
    }
    return PyUnicode_AsUTF8AndSize(path, n);
}

static PyObject *NativeRules_find(NativeRules *self, PyObject *path) {
    Py_ssize_t n;
    const char *octets = path_octets(path, &n);
    if (octets == NULL) return NULL;
    Py_ssize_t best = find_best(&self->tables, octets, n);
    if (best < 0) Py_RETURN_NONE;
    return as_found(&self->tables, best);
}

static PyObject *NativeRules_matching(NativeRules *self, PyObject *path) {
    Py_ssize_t n;
    const char *octets = path_octets(path, &n);
    if (octets == NULL) return NULL;
    Py_ssize_t count;
    Py_ssize_t *matching = matching_rules(&self->tables, octets, n, &count);
    if (matching == NULL) return PyErr_NoMemory();
    PyObject *found = PyList_New(count);
    for (Py_ssize_t i = 0; found != NULL && i < count; i++) {
        PyObject *item = as_found(&self->tables, matching[i]);
        if (item == NULL) Py_CLEAR(found);
        else PyList_SET_ITEM(found, i, item);
    }
    PyMem_Free(matching);
    return found;
}

static PyObject *NativeRules_rule(NativeRules *self, PyObject *arg) {
    Py_ssize_t index = PyLong_AsSsize_t(arg);
    if (index == -1 && PyErr_Occurred()) return NULL;
    if (index < 0 || index >= self->tables.rule_count) {
        PyErr_SetString(PyExc_IndexError, "no such rule");
        return NULL;
    }
    const Rule *rule = &self->tables.rules[index];
    return Py_BuildValue("(iOis#)", rule->prio, rule->allow ? Py_True : Py_False, rule->line,
                         self->tables.pool + rule->pattern, (Py_ssize_t)rule->prio);
}

static PyObject *NativeRules_len(NativeRules *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromSsize_t(self->tables.rule_count);
}

static void NativeRules_dealloc(NativeRules *self) {
    free_tables(&self->tables);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef NativeRules_methods[] = {
    {"find", (PyCFunction)NativeRules_find, METH_O,
     "The deciding rule for a normalised path: None, its number, or ~ it when it allows."},
    {"matching", (PyCFunction)NativeRules_matching, METH_O,
     "The numbers (~ for allow) of every rule matching a normalised path."},
    {"rule", (PyCFunction)NativeRules_rule, METH_O,
     "(priority, allow, line, pattern) of a rule by number."},
    {"rule_count", (PyCFunction)NativeRules_len, METH_NOARGS, "How many distinct rules."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef NativeRules_members[] = {
    {"crawl_delay_lines", T_BOOL, offsetof(NativeRules, crawl_delay_lines), READONLY,
     "Whether a line of the groups starts with the key \"crawl\"."},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject NativeRulesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "scrapy_robots_policy.robotstxt._native.NativeRules",
    .tp_basicsize = sizeof(NativeRules),
    .tp_dealloc = (destructor)NativeRules_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The rules of some groups, filed by literal prefix.",
    .tp_methods = NativeRules_methods,
    .tp_members = NativeRules_members,
};

/* Whether data[start:end) is ASCII without "%": the groups this module reads. */
static int reads(const char *data, Py_ssize_t start, Py_ssize_t end) {
    for (Py_ssize_t i = start; i < end; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c >= 0x80 || c == '%') return 0;
    }
    return 1;
}

static PyObject *read_rules(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer data, spans;
    PyObject *indexes;
    if (!PyArg_ParseTuple(args, "y*y*O!", &data, &spans, &PyList_Type, &indexes)) return NULL;
    const char *octets = data.buf;
    const int32_t *span = spans.buf; /* agents.assemble's array("i"): 3 ints per group */
    Py_ssize_t span_count = spans.len / (Py_ssize_t)sizeof(int32_t);
    Builder b = {0};
    NativeRules *self = NULL;
    int unread = 0; /* a group for the Python builder: answer None */
    Py_ssize_t pos = 0, line = 1;
    if (spans.itemsize != sizeof(int32_t)) {
        PyErr_SetString(PyExc_TypeError, "spans: array('i')");
        goto done;
    }
    if (data.len > MAX_DATA) { /* never from RobotsTxt.parse */
        unread = 1;
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(indexes); i++) {
        Py_ssize_t group = PyLong_AsSsize_t(PyList_GET_ITEM(indexes, i));
        if (group == -1 && PyErr_Occurred()) goto done;
        if (group < 0 || 3 * group + 2 >= span_count) {
            PyErr_SetString(PyExc_IndexError, "no such group");
            goto done;
        }
        Py_ssize_t start = span[3 * group + 1], end = span[3 * group + 2];
        if (start < pos || end < start || end > data.len) {
            PyErr_SetString(PyExc_ValueError, "groups out of order or outside the data");
            goto done;
        }
        if (!reads(octets, start, end)) {
            unread = 1;
            goto done;
        }
        for (const char *p = octets + pos; (p = memchr(p, '\n', (size_t)(octets + start - p)));
             p++)
            line++;
        pos = start;
        if (read_group(&b, octets, start, end, line) < 0) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (keep_first_lines(&b) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < b.count; i++) {
        if (compile_rule(&b, &b.rules[i]) < 0) {
            PyErr_NoMemory();
            goto done;
        }
    }
    self = PyObject_New(NativeRules, &NativeRulesType);
    if (self == NULL) goto done;
    memset(&self->tables, 0, sizeof(Tables));
    self->crawl_delay_lines = (char)b.crawl_delay_lines;
    if (file_rules(&self->tables, &b) < 0) Py_CLEAR(self);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&spans);
    free_builder(&b);
    if (unread) Py_RETURN_NONE;
    return (PyObject *)self;
}

static PyMethodDef module_methods[] = {
    {"read", read_rules, METH_VARARGS,
     "read(data, spans, indexes): the rules of those groups of ``data`` (in file order), or "
     "None when a group is not ASCII or holds a \"%\" (the pure engine reads it)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_native",
    .m_doc = "The rules builder and matcher in C.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&NativeRulesType) < 0) return NULL;
    PyObject *module = PyModule_Create(&native_module);
    if (module == NULL) return NULL;
    Py_INCREF(&NativeRulesType);
    if (PyModule_AddObject(module, "NativeRules", (PyObject *)&NativeRulesType) < 0) {
        Py_DECREF(&NativeRulesType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
