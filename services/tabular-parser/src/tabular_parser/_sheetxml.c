/* One pass over a chunk of XLSX sheet XML, in C: the rows and columns the sheet spans, the
 * outline level of each row and the cells in a code style. xlsx_meta's regular expressions
 * are the reference and the fallback; this scanner reads the same attributes of the same two
 * elements (<row>, <c>) in any attribute order and quoting, and also counts the row of every
 * cell reference towards the extent, which the reference cannot afford to. The chunk ends
 * before a '<' (xlsx_meta cuts it so), so every tag in it is whole. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* Excel's limits are 1048576 rows and XFD (16384) columns; anything up to these many digits
 * and letters is counted exactly (and found too large), anything longer saturates. */
#define MAX_DIGITS 12
#define MAX_LETTERS 7
#define SATURATED 0x7fffffffffffLL

typedef struct {
    const char *name;
    Py_ssize_t name_length;
    const char *value;
    Py_ssize_t length;
} Attribute;

static int
is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* The next attribute of a tag from *at, or 0 at the tag's end ('>' or '/>') or when the
 * tag is malformed; *at is left after the attribute. */
static int
next_attribute(const char **at, const char *end, Attribute *attribute)
{
    const char *p = *at;
    while (p < end && is_space(*p)) {
        p++;
    }
    if (p >= end || *p == '>' || *p == '/') {
        return 0;
    }
    const char *name = p;
    while (p < end && *p != '=' && !is_space(*p) && *p != '>' && *p != '/') {
        p++;
    }
    Py_ssize_t name_length = p - name;
    while (p < end && is_space(*p)) {
        p++;
    }
    if (p >= end || *p != '=' || name_length == 0) {
        return 0;
    }
    p++;
    while (p < end && is_space(*p)) {
        p++;
    }
    if (p >= end || (*p != '"' && *p != '\'')) {
        return 0;
    }
    char quote = *p++;
    const char *value = p;
    const char *close = memchr(p, quote, (size_t)(end - p));
    if (close == NULL) {
        return 0;
    }
    attribute->name = name;
    attribute->name_length = name_length;
    attribute->value = value;
    attribute->length = close - value;
    *at = close + 1;
    return 1;
}

static int
named(const Attribute *attribute, const char *name)
{
    Py_ssize_t length = (Py_ssize_t)strlen(name);
    return attribute->name_length == length && memcmp(attribute->name, name, (size_t)length) == 0;
}

/* Digits only, as a number (saturated when too long); -1 when not a number. */
static long long
number_of(const char *text, Py_ssize_t length)
{
    if (length == 0) {
        return -1;
    }
    long long value = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9') {
            return -1;
        }
        value = i < MAX_DIGITS ? value * 10 + (text[i] - '0') : SATURATED;
    }
    return value;
}

/* A cell reference "AB12": its column number and row, or 0 when it is not one. */
static int
reference_of(const Attribute *attribute, long long *column, long long *row)
{
    Py_ssize_t letters = 0;
    long long number = 0;
    while (letters < attribute->length && attribute->value[letters] >= 'A' &&
           attribute->value[letters] <= 'Z') {
        number = letters < MAX_LETTERS ? number * 26 + (attribute->value[letters] - 'A' + 1)
                                       : SATURATED;
        letters++;
    }
    if (letters == 0) {
        return 0;
    }
    *row = number_of(attribute->value + letters, attribute->length - letters);
    *column = number;
    return *row > 0;
}

typedef struct {
    long long rows_tagged, rows_numbered, max_row, max_column;
} Extent;

static int
set_pair(PyObject *dict, long long first, long long second, PyObject *value)
{
    PyObject *key = Py_BuildValue("(LL)", first, second);
    if (key == NULL) {
        return -1;
    }
    int failed = PyDict_SetItem(dict, key, value);
    Py_DECREF(key);
    return failed;
}

static int
set_level(PyObject *levels, long long row, long long level)
{
    PyObject *key = PyLong_FromLongLong(row - 1);
    PyObject *value = key == NULL ? NULL : PyLong_FromLongLong(level);
    int failed = value == NULL || PyDict_SetItem(levels, key, value) < 0;
    Py_XDECREF(key);
    Py_XDECREF(value);
    return failed ? -1 : 0;
}

static int
row_tag(const char *p, const char *end, Extent *extent, PyObject *levels)
{
    Attribute attribute;
    long long row = -1, level = 0;
    extent->rows_tagged++;
    while (next_attribute(&p, end, &attribute)) {
        if (named(&attribute, "r")) {
            row = number_of(attribute.value, attribute.length);
        }
        else if (named(&attribute, "outlineLevel")) {
            level = number_of(attribute.value, attribute.length);
        }
    }
    if (row <= 0) {
        return 0;
    }
    extent->rows_numbered++;
    if (row > extent->max_row) {
        extent->max_row = row;
    }
    return level > 0 && levels != Py_None ? set_level(levels, row, level) : 0;
}

static int
cell_tag(const char *p, const char *end, Extent *extent, PyObject *styles, PyObject *formats)
{
    Attribute attribute;
    long long column = 0, row = 0, style = -1;
    int referenced = 0;
    while (next_attribute(&p, end, &attribute)) {
        if (named(&attribute, "r")) {
            referenced = reference_of(&attribute, &column, &row);
        }
        else if (named(&attribute, "s")) {
            style = number_of(attribute.value, attribute.length);
        }
    }
    if (!referenced) {
        return 0;
    }
    if (row > extent->max_row) {
        extent->max_row = row;
    }
    if (column > extent->max_column) {
        extent->max_column = column;
    }
    if (style < 0 || styles == Py_None) {
        return 0;
    }
    PyObject *key = PyLong_FromLongLong(style);
    if (key == NULL) {
        return -1;
    }
    PyObject *format = PyDict_GetItemWithError(styles, key);
    Py_DECREF(key);
    if (format == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    return set_pair(formats, row - 1, column - 1, format);
}

PyDoc_STRVAR(scan_doc,
             "scan(body, styles, levels, formats) -> (rows_tagged, rows_numbered, max_row, "
             "max_column)\n\n"
             "Counts the <row> tags of the chunk and those with a number, the largest row and "
             "column named by rows and cell references; puts 0-based row -> outline level "
             "(above 0) into levels and (row, column) -> styles[s] into formats, unless "
             "levels / styles is None.");

static PyObject *
scan(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "scan takes 4 arguments");
        return NULL;
    }
    PyObject *styles = args[1], *levels = args[2], *formats = args[3];
    if ((styles != Py_None && (!PyDict_Check(styles) || !PyDict_Check(formats))) ||
        (levels != Py_None && !PyDict_Check(levels))) {
        PyErr_SetString(PyExc_TypeError, "scan: styles, levels and formats are dicts or None");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const char *p = view.buf;
    const char *end = p + view.len;
    Extent extent = {0, 0, 0, 0};
    int failed = 0;
    while (!failed && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        p++;
        Py_ssize_t left = end - p;
        if (left > 3 && p[0] == 'r' && p[1] == 'o' && p[2] == 'w' &&
            (is_space(p[3]) || p[3] == '>' || p[3] == '/')) {
            failed = row_tag(p + 3, end, &extent, levels) < 0;
        }
        else if (left > 1 && p[0] == 'c' && is_space(p[1])) {
            failed = cell_tag(p + 1, end, &extent, styles, formats) < 0;
        }
    }
    PyBuffer_Release(&view);
    if (failed) {
        return NULL;
    }
    return Py_BuildValue("(LLLL)", extent.rows_tagged, extent.rows_numbered, extent.max_row,
                         extent.max_column);
}

static PyMethodDef methods[] = {
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL, scan_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_sheetxml", "XLSX sheet XML scanned in C (see xlsx_meta).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__sheetxml(void)
{
    return PyModule_Create(&module);
}
