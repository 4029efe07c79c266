/* The common rows of a trial balance body, in C: what build_osv's loop does for a row whose
 * label is a plain code ("60.01", named by the name column), a code and a name in one cell
 * ("60.01 Поставщики") or a subconto name ("ООО Альфа"), whose name is plain text and whose
 * six amounts are numbers with at most two decimals or empty, on a sheet read from a
 * workbook. The loop in osv.py is the reference: it handles every row, and this kernel takes
 * over only rows it can treat exactly as that loop would, stopping at the first other row (a
 * total, a text amount, a failed balance, an empty or signature row, a code as a number...)
 * so that Python handles it. Both share the same state: the lists and dicts are mutated in
 * place, the counters are returned. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#define MONEY 6
/* Beyond this a double no longer holds every cent exactly (numbers.CENTS_LIMIT). */
#define CENTS_LIMIT 1e13

static PyObject *key_id, *key_parent, *key_kind, *key_level, *key_code, *key_name,
    *key_confidence, *key_locator, *key_sheet, *key_row, *key_money[MONEY], *kind_account,
    *kind_subconto,
    *attr_group, *attr_subconto_first, *attr_last_account, *full_confidence;

static const char *money_names[MONEY] = {"opening_debit",  "opening_credit",
                                         "turnover_debit", "turnover_credit",
                                         "closing_debit",  "closing_credit"};

/* numbers.read_cents' test for a float cell: finite, within the limit, and the double nearest
 * to a two-decimal amount. Python's round() rounds half to even. */
static int
exact_cents(double value, long long *cents)
{
    if (!(value > -CENTS_LIMIT && value < CENTS_LIMIT)) {
        return 0;
    }
    double scaled = value * 100.0;
    double rounded = round(scaled);
    if (fabs(scaled - rounded) == 0.5) {
        rounded = 2.0 * round(scaled / 2.0);
    }
    if (rounded / 100.0 != value) {
        return 0;
    }
    *cents = (long long)rounded;
    return 1;
}

/* numbers.format_cents: "-1234.05", "0.00". */
static PyObject *
money_text(long long cents)
{
    char buffer[32];
    char *end = buffer + sizeof(buffer);
    char *p = end;
    unsigned long long magnitude =
        cents < 0 ? (unsigned long long)(-(cents + 1)) + 1 : (unsigned long long)cents;
    unsigned long long units = magnitude / 100;
    unsigned int fraction = (unsigned int)(magnitude % 100);
    *--p = (char)('0' + fraction % 10);
    *--p = (char)('0' + fraction / 10);
    *--p = '.';
    do {
        *--p = (char)('0' + units % 10);
        units /= 10;
    } while (units);
    if (cents < 0) {
        *--p = '-';
    }
    Py_ssize_t length = end - p;
    PyObject *text = PyUnicode_New(length, 127);
    if (text != NULL) {
        memcpy(PyUnicode_1BYTE_DATA(text), p, (size_t)length);
    }
    return text;
}

/* accounts.is_plain_code, for ASCII text: digits and dots, a digit second, no empty part. */
static int
is_plain_code(PyObject *text)
{
    if (!PyUnicode_IS_ASCII(text)) {
        return 0;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    const Py_UCS1 *data = PyUnicode_1BYTE_DATA(text);
    if (length < 2 || data[1] < '0' || data[1] > '9' || data[length - 1] == '.') {
        return 0;
    }
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS1 ch = data[i];
        if (ch == '.') {
            if (i + 1 < length && data[i + 1] == '.') {
                return 0;
            }
        }
        else if (ch < '0' || ch > '9') {
            return 0;
        }
    }
    return 1;
}

/* A code and a name in one cell, "60.01 Поставщики", as accounts.code_from_cell splits it:
 * the length of the code, or 0 when the label is not of this plainest form (two or three
 * digits, ".digits" parts of up to four, one space, a letter, all printable, no double
 * space), which leaves every other form (94.Н, "60 - Имя", "60.01. Имя") to Python. */
static Py_ssize_t
code_and_name(PyObject *text)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
#define DIGIT_AT(i) ((i) < length && PyUnicode_READ(kind, data, (i)) >= '0' && \
                     PyUnicode_READ(kind, data, (i)) <= '9')
    Py_ssize_t i = 0;
    while (i < 4 && DIGIT_AT(i)) {
        i++;
    }
    if (i < 2 || i > 3) {
        return 0;
    }
    while (i < length && PyUnicode_READ(kind, data, i) == '.') {
        Py_ssize_t part = ++i;
        while (i - part < 5 && DIGIT_AT(i)) {
            i++;
        }
        if (i == part || i - part > 4) {
            return 0;
        }
    }
#undef DIGIT_AT
    Py_ssize_t code = i;
    if (code + 1 >= length || PyUnicode_READ(kind, data, code) != ' ' ||
        !Py_UNICODE_ISALPHA(PyUnicode_READ(kind, data, code + 1))) {
        return 0;
    }
    Py_UCS4 previous = ' ';
    for (i = code + 1; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (!((ch >= 0x20 && ch < 0x7f) || (ch >= 0x410 && ch <= 0x451) ||
              Py_UNICODE_ISPRINTABLE(ch)) ||
            (ch == ' ' && previous == ' ')) {
            return 0;
        }
        previous = ch;
    }
    return previous == ' ' ? 0 : code;
}

/* A subconto label build_osv would take as it is: text whose first character (after spaces)
 * is a letter, so that it is no code, and whose first word cannot read as a total ("Итого")
 * or a quantity row ("Количество", "Кол.") once text.norm has lowered it and dropped soft
 * hyphens and line-break hyphens: a hyphen of either kind in that word leaves it to Python. */
static int
is_subconto(PyObject *text)
{
    static const Py_UCS4 total[] = {0x438, 0x442, 0x43e, 0x433, 0x43e}; /* итого */
    static const Py_UCS4 quantity[] = {0x43a, 0x43e, 0x43b};             /* кол */
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t i = 0;
    while (i < length && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) {
        i++;
    }
    if (i == length || !Py_UNICODE_ISALPHA(PyUnicode_READ(kind, data, i))) {
        return 0;
    }
    Py_UCS4 word[5];
    int size = 0;
    for (; i < length && size < 5; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch == '-' || ch == 0xad) {
            return 0;
        }
        if (Py_UNICODE_ISSPACE(ch)) {
            break;
        }
        word[size++] = Py_UNICODE_TOLOWER(ch);
    }
    int is_total = size == 5, is_quantity = size >= 3;
    for (int k = 0; k < size; k++) {
        is_total = is_total && word[k] == total[k];
        is_quantity = is_quantity && (k >= 3 || word[k] == quantity[k]);
    }
    return !is_total && !is_quantity;
}

/* The name as build_osv takes plain text: printable, no double space, ends trimmed; None when
 * nothing is left. Sets *plain to 0 for text that needs text.clean instead. */
static PyObject *
plain_name(PyObject *cell, int *plain)
{
    *plain = 1;
    if (!PyUnicode_Check(cell)) {
        Py_RETURN_NONE; /* clean() of anything but text */
    }
    if (!PyUnicode_CheckExact(cell)) {
        *plain = 0;
        return NULL;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(cell);
    int kind = PyUnicode_KIND(cell);
    const void *data = PyUnicode_DATA(cell);
    Py_UCS4 previous = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        /* Printable ASCII and Russian letters without the table lookup: names are made of them. */
        int printable = (ch >= 0x20 && ch < 0x7f) || (ch >= 0x410 && ch <= 0x451) ||
                        Py_UNICODE_ISPRINTABLE(ch);
        if (!printable || (ch == ' ' && previous == ' ')) {
            *plain = 0;
            return NULL;
        }
        previous = ch;
    }
    Py_ssize_t start = 0, stop = length;
    while (start < stop && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, start))) {
        start++;
    }
    while (stop > start && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, stop - 1))) {
        stop--;
    }
    if (start == stop) {
        Py_RETURN_NONE;
    }
    return PyUnicode_Substring(cell, start, stop);
}

/* A (number, level) pair of the code tree: two ints. */
static int
pair_items(PyObject *pair, PyObject **first, PyObject **second)
{
    if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 ||
        !PyLong_CheckExact(PyTuple_GET_ITEM(pair, 0)) ||
        !PyLong_CheckExact(PyTuple_GET_ITEM(pair, 1))) {
        PyErr_SetString(PyExc_TypeError, "hierarchy state must hold pairs of ints");
        return -1;
    }
    *first = PyTuple_GET_ITEM(pair, 0);
    *second = PyTuple_GET_ITEM(pair, 1);
    return 0;
}

/* (number, level): the row's number object is shared, not copied. */
static PyObject *
pair_new(PyObject *number, long level)
{
    PyObject *value = PyLong_FromLong(level);
    if (value == NULL) {
        return NULL;
    }
    PyObject *pair = PyTuple_Pack(2, number, value);
    Py_DECREF(value);
    return pair;
}

/* _CodeTree's state while the kernel places rows; written back when it returns. */
typedef struct {
    PyObject *codes;          /* code -> (number, level) */
    PyObject *group;          /* (number, 0) of the current subconto group, or None */
    PyObject *last_account;   /* (number, level) of the last account row, or None */
    PyObject *subconto_first; /* None until the first row, then True or False */
    PyObject *last_prefix;    /* the parent code looked up last */
} Tree;

static int
tree_load(Tree *t, PyObject *tree)
{
    t->codes = PyObject_GetAttrString(tree, "codes");
    t->group = PyObject_GetAttr(tree, attr_group);
    t->last_account = PyObject_GetAttr(tree, attr_last_account);
    t->subconto_first = PyObject_GetAttr(tree, attr_subconto_first);
    t->last_prefix = NULL;
    if (t->codes == NULL || t->group == NULL || t->last_account == NULL ||
        t->subconto_first == NULL) {
        return -1;
    }
    if (!PyDict_Check(t->codes)) {
        PyErr_SetString(PyExc_TypeError, "plain_rows: the code tree has no codes dict");
        return -1;
    }
    return 0;
}

static int
tree_store(Tree *t, PyObject *tree)
{
    return PyObject_SetAttr(tree, attr_group, t->group) < 0 ||
                   PyObject_SetAttr(tree, attr_last_account, t->last_account) < 0 ||
                   PyObject_SetAttr(tree, attr_subconto_first, t->subconto_first) < 0
               ? -1
               : 0;
}

static void
tree_clear(Tree *t)
{
    Py_CLEAR(t->codes);
    Py_CLEAR(t->group);
    Py_CLEAR(t->last_account);
    Py_CLEAR(t->subconto_first);
    Py_CLEAR(t->last_prefix);
}

/* The row's parent and level from a (number, level) pair: its number, level + 1. */
static PyObject *
under(PyObject *pair, long *level)
{
    PyObject *number, *above;
    if (pair_items(pair, &number, &above) < 0) {
        return NULL;
    }
    *level = PyLong_AsLong(above) + 1;
    if (*level == 0 && PyErr_Occurred()) {
        return NULL;
    }
    Py_INCREF(number);
    return number;
}

/* _CodeTree.place for an account row: the parent is the row of the longest known prefix
 * (60.1.1 under 60.1, else 60), else the subconto group, else none. Returns the parent's
 * number (a new reference, None for none); NULL on error. */
static PyObject *
place_account(Tree *t, PyObject *code, PyObject *id, long *level)
{
    if (t->subconto_first == Py_None) {
        Py_SETREF(t->subconto_first, Py_NewRef(Py_False));
    }
    PyObject *found = NULL;
    const Py_UCS1 *data = PyUnicode_1BYTE_DATA(code);
    for (Py_ssize_t cut = PyUnicode_GET_LENGTH(code) - 1; cut > 0 && found == NULL; cut--) {
        if (data[cut] != '.') {
            continue;
        }
        /* Sub-accounts come in runs under one parent: its code, hashed once, is looked up
         * again rather than cut out of every child's code anew. */
        PyObject *prefix = t->last_prefix;
        if (prefix == NULL || PyUnicode_GET_LENGTH(prefix) != cut ||
            memcmp(PyUnicode_1BYTE_DATA(prefix), data, (size_t)cut) != 0) {
            prefix = PyUnicode_Substring(code, 0, cut);
            if (prefix == NULL) {
                return NULL;
            }
            Py_XSETREF(t->last_prefix, prefix);
        }
        found = PyDict_GetItemWithError(t->codes, prefix);
        if (found == NULL && PyErr_Occurred()) {
            return NULL;
        }
    }
    if (found == NULL && t->group != Py_None) {
        found = t->group;
    }
    PyObject *parent = Py_None;
    *level = 0;
    if (found == NULL) {
        Py_INCREF(parent);
    }
    else if ((parent = under(found, level)) == NULL) {
        return NULL;
    }
    PyObject *placed = pair_new(id, *level);
    if (placed == NULL || PyDict_SetItem(t->codes, code, placed) < 0) {
        Py_XDECREF(placed);
        Py_DECREF(parent);
        return NULL;
    }
    Py_SETREF(t->last_account, placed);
    return parent;
}

/* _CodeTree.place for a subconto row: under the account above it, or, when the table
 * starts with subconto, a group of its own that the accounts below it belong to. */
static PyObject *
place_subconto(Tree *t, PyObject *id, long *level)
{
    if (t->subconto_first == Py_None) {
        Py_SETREF(t->subconto_first, Py_NewRef(Py_True));
    }
    *level = 0;
    if (t->subconto_first == Py_True) {
        PyDict_Clear(t->codes);
        PyObject *group = pair_new(id, 0);
        if (group == NULL) {
            return NULL;
        }
        Py_SETREF(t->group, group);
        Py_RETURN_NONE;
    }
    if (t->last_account != Py_None) {
        return under(t->last_account, level);
    }
    Py_RETURN_NONE;
}

/* The outline-level hierarchy: the parent is the last row above with a lower level. Levels
 * are compared as Python compares them, whatever ints (or numbers) the reader gave.
 * Returns the parent's number (a new reference, None for none); NULL on error. */
static PyObject *
place_by_outline(PyObject *stack, PyObject *level, PyObject *id)
{
    Py_ssize_t size = PyList_GET_SIZE(stack);
    PyObject *parent = Py_None;
    while (size > 0) {
        PyObject *pair = PyList_GET_ITEM(stack, size - 1);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "the outline stack must hold (level, number) pairs");
            return NULL;
        }
        int deeper = PyObject_RichCompareBool(PyTuple_GET_ITEM(pair, 0), level, Py_GE);
        if (deeper < 0) {
            return NULL;
        }
        if (!deeper) {
            parent = PyTuple_GET_ITEM(pair, 1);
            break;
        }
        if (PyList_SetSlice(stack, size - 1, size, NULL) < 0) {
            return NULL;
        }
        size--;
    }
    Py_INCREF(parent);
    PyObject *pair = PyTuple_Pack(2, level, id);
    if (pair == NULL || PyList_Append(stack, pair) < 0) {
        Py_XDECREF(pair);
        Py_DECREF(parent);
        return NULL;
    }
    Py_DECREF(pair);
    return parent;
}

static int
append_new(PyObject *list, PyObject *item)
{
    if (item == NULL) {
        return -1;
    }
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

static int
set_new(PyObject *dict, PyObject *key, PyObject *value)
{
    if (value == NULL) {
        return -1;
    }
    int failed = PyDict_SetItem(dict, key, value);
    Py_DECREF(value);
    return failed;
}

/* The contract row of an account or subconto row. */
static PyObject *
out_row(PyObject *id, PyObject *parent, PyObject *level, int account, PyObject *code, PyObject *name,
        const long long *cents, const int *filled, PyObject *sheet, Py_ssize_t index)
{
    /* Sized for its keys at once, as Python's own dict displays are: no resize on the way. */
    PyObject *row = _PyDict_NewPresized(14);
    if (row == NULL) {
        return NULL;
    }
    if (PyDict_SetItem(row, key_id, id) < 0 || PyDict_SetItem(row, key_parent, parent) < 0) {
        goto error;
    }
    if (PyDict_SetItem(row, key_kind, account ? kind_account : kind_subconto) < 0 ||
        PyDict_SetItem(row, key_level, level) < 0 ||
        PyDict_SetItem(row, key_code, code) < 0 || PyDict_SetItem(row, key_name, name) < 0) {
        goto error;
    }
    for (int k = 0; k < MONEY; k++) {
        if (filled[k] ? set_new(row, key_money[k], money_text(cents[k])) < 0
                      : PyDict_SetItem(row, key_money[k], Py_None) < 0) {
            goto error;
        }
    }
    if (PyDict_SetItem(row, key_confidence, full_confidence) < 0) {
        goto error;
    }
    PyObject *locator = _PyDict_NewPresized(2);
    if (locator == NULL || PyDict_SetItem(locator, key_sheet, sheet) < 0 ||
        set_new(locator, key_row, PyLong_FromSsize_t(index + 1)) < 0) {
        Py_XDECREF(locator);
        goto error;
    }
    if (set_new(row, key_locator, locator) < 0) {
        goto error;
    }
    return row;
error:
    Py_DECREF(row);
    return NULL;
}

/* sums[k] += cents[k]: in C while the sum fits 64 bits, as Python ints beyond. */
static int
add_cents(PyObject *sums, const long long *cents)
{
    if (!PyList_CheckExact(sums) || PyList_GET_SIZE(sums) != MONEY) {
        PyErr_SetString(PyExc_TypeError, "plain_rows: sums must be lists of six ints");
        return -1;
    }
    for (int k = 0; k < MONEY; k++) {
        if (cents[k] == 0) {
            continue;
        }
        PyObject *old = PyList_GET_ITEM(sums, k);
        int overflow = 0;
        long long value = PyLong_AsLongLongAndOverflow(old, &overflow);
        long long sum;
        PyObject *total;
        if (value == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (!overflow && !__builtin_add_overflow(value, cents[k], &sum)) {
            total = PyLong_FromLongLong(sum);
        }
        else {
            PyObject *add = PyLong_FromLongLong(cents[k]);
            total = add == NULL ? NULL : PyNumber_Add(old, add);
            Py_XDECREF(add);
        }
        if (total == NULL) {
            return -1;
        }
        PyList_SET_ITEM(sums, k, total);
        Py_DECREF(old);
    }
    return 0;
}

/* Adds the row's amounts to its parent's children, or to the top-level rows. */
static int
record_amounts(const long long *cents, PyObject *parent, PyObject *top_sums, PyObject *children)
{
    if (parent == Py_None) {
        return add_cents(top_sums, cents);
    }
    PyObject *sums = PyDict_GetItemWithError(children, parent);
    if (sums != NULL) {
        return add_cents(sums, cents);
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    sums = PyList_New(MONEY);
    if (sums == NULL) {
        return -1;
    }
    for (int k = 0; k < MONEY; k++) {
        PyObject *value = PyLong_FromLongLong(cents[k]);
        if (value == NULL) {
            Py_DECREF(sums);
            return -1;
        }
        PyList_SET_ITEM(sums, k, value);
    }
    return set_new(children, parent, sums);
}

PyDoc_STRVAR(plain_rows_doc,
             "plain_rows(rows, start, label_col, name_col, money_cols, sheet, number, outline,\n"
             "           stack, base, tree, out_rows, confidences, row_indices, top_sums,\n"
             "           children) -> (stop, number, base)\n\n"
             "Handles the rows from start on as build_osv would, up to the first row it leaves "
             "to Python (stop).");

static PyObject *
plain_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 16) {
        PyErr_SetString(PyExc_TypeError, "plain_rows takes 16 arguments");
        return NULL;
    }
    PyObject *rows = args[0], *money_cols = args[4], *sheet = args[5], *outline = args[7],
             *stack = args[8], *base_arg = args[9], *tree = args[10], *out_rows = args[11],
             *confidences = args[12], *row_indices = args[13], *top_sums = args[14],
             *children = args[15];
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    Py_ssize_t label_col = PyLong_AsSsize_t(args[2]);
    Py_ssize_t name_col = args[3] == Py_None ? -1 : PyLong_AsSsize_t(args[3]);
    long number = PyLong_AsLong(args[6]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (!PyList_Check(rows) || !PyTuple_Check(money_cols) || PyTuple_GET_SIZE(money_cols) != MONEY ||
        !PyUnicode_Check(sheet) || (outline != Py_None && !PyDict_Check(outline)) ||
        !PyList_Check(stack) || !PyList_Check(out_rows) || !PyList_Check(confidences) ||
        !PyList_Check(row_indices) || !PyList_Check(top_sums) || !PyDict_Check(children)) {
        PyErr_SetString(PyExc_TypeError, "plain_rows: unexpected argument types");
        return NULL;
    }
    Py_ssize_t columns[MONEY];
    for (int k = 0; k < MONEY; k++) {
        columns[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(money_cols, k));
        if (columns[k] < 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "plain_rows: negative column");
            }
            return NULL;
        }
    }
    PyObject *base = Py_NewRef(base_arg); /* the shallowest level so far, or None */
    Tree t = {NULL, NULL, NULL, NULL, NULL};
    if (outline == Py_None && tree_load(&t, tree) < 0) {
        tree_clear(&t);
        Py_DECREF(base);
        return NULL;
    }

    Py_ssize_t count = PyList_GET_SIZE(rows);
    Py_ssize_t index = start;
    for (; index < count; index++) {
        PyObject *row = PyList_GET_ITEM(rows, index);
        PyObject **cells;
        Py_ssize_t width;
        if (PyList_CheckExact(row)) {
            cells = ((PyListObject *)row)->ob_item;
            width = PyList_GET_SIZE(row);
        }
        else if (PyTuple_CheckExact(row)) {
            cells = ((PyTupleObject *)row)->ob_item;
            width = PyTuple_GET_SIZE(row);
        }
        else {
            break;
        }
        if (label_col >= width) {
            break;
        }
        PyObject *label = cells[label_col];
        if (!PyUnicode_CheckExact(label)) {
            break;
        }
        int account = is_plain_code(label);
        Py_ssize_t split = account ? 0 : code_and_name(label);
        account = account || split > 0;
        if (!account && !is_subconto(label)) {
            break;
        }
        long long cents[MONEY];
        int filled[MONEY], plain = 1, any = 0;
        for (int k = 0; k < MONEY && plain; k++) {
            PyObject *cell = columns[k] < width ? cells[columns[k]] : Py_None;
            filled[k] = 0;
            cents[k] = 0;
            if (PyFloat_CheckExact(cell)) {
                plain = exact_cents(PyFloat_AS_DOUBLE(cell), &cents[k]);
                filled[k] = any = 1;
            }
            else if (!(cell == Py_None ||
                       (PyUnicode_CheckExact(cell) && PyUnicode_GET_LENGTH(cell) == 0))) {
                plain = 0;
            }
        }
        /* An empty row may be a signature line; a failed balance gets a warning: Python's. */
        if (!plain || !any ||
            cents[0] - cents[1] + cents[2] - cents[3] != cents[4] - cents[5]) {
            break;
        }
        /* An account's name is in the name column or after its code, a subconto row is
         * named by its label. */
        PyObject *code = label, *name;
        if (split > 0) {
            code = PyUnicode_Substring(label, 0, split);
            name = code == NULL ? NULL
                                : PyUnicode_Substring(label, split + 1, PyUnicode_GET_LENGTH(label));
            if (name == NULL) {
                Py_XDECREF(code);
                goto error;
            }
        }
        else {
            name = plain_name(!account                           ? label
                              : name_col >= 0 && name_col < width ? cells[name_col]
                                                                  : Py_None,
                              &plain);
            if (!plain) {
                break;
            }
            if (name == NULL) {
                goto error;
            }
            Py_INCREF(code);
        }
        PyObject *at = PyLong_FromSsize_t(index);
        PyObject *id = at == NULL ? NULL : PyLong_FromLong(++number);
        PyObject *level = NULL, *parent = NULL;
        if (id == NULL) {
            /* nothing placed */
        }
        else if (outline == Py_None) {
            long depth = 0;
            parent = account ? place_account(&t, code, id, &depth)
                             : place_subconto(&t, id, &depth);
            level = parent == NULL ? NULL : PyLong_FromLong(depth);
        }
        else {
            /* outline.get(index, 0) */
            level = PyDict_GetItemWithError(outline, at);
            level = level != NULL ? Py_NewRef(level)
                    : PyErr_Occurred() ? NULL
                                       : PyLong_FromLong(0);
            parent = level == NULL ? NULL : place_by_outline(stack, level, id);
            if (parent != NULL && base != Py_None) {
                int lower = PyObject_RichCompareBool(level, base, Py_LT);
                if (lower < 0) {
                    Py_CLEAR(parent);
                }
                else if (lower) {
                    Py_SETREF(base, Py_NewRef(level));
                }
            }
            else if (parent != NULL) {
                Py_SETREF(base, Py_NewRef(level));
            }
        }
        PyObject *out = parent == NULL || level == NULL
                            ? NULL
                            : out_row(id, parent, level, account, account ? code : Py_None,
                                      name, cents, filled, sheet, index);
        int failed = out == NULL || append_new(out_rows, out) < 0 ||
                     record_amounts(cents, parent, top_sums, children) < 0 ||
                     PyList_Append(row_indices, at) < 0 ||
                     PyList_Append(confidences, full_confidence) < 0;
        Py_DECREF(code);
        Py_DECREF(name);
        Py_XDECREF(id);
        Py_XDECREF(at);
        Py_XDECREF(level);
        Py_XDECREF(parent);
        if (failed) {
            goto error;
        }
    }
    if (outline == Py_None && index > start && tree_store(&t, tree) < 0) {
        goto error;
    }
    tree_clear(&t);
    PyObject *result = Py_BuildValue("(nlO)", index, number, base);
    Py_DECREF(base);
    return result;
error:
    tree_clear(&t);
    Py_DECREF(base);
    return NULL;
}

static PyMethodDef methods[] = {
    {"plain_rows", (PyCFunction)(void (*)(void))plain_rows, METH_FASTCALL, plain_rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_osvbody",
    "The common rows of a trial balance body in C (see build_osv).", -1, methods,
};

static PyObject *
intern(const char *text)
{
    return PyUnicode_InternFromString(text);
}

PyMODINIT_FUNC
PyInit__osvbody(void)
{
    key_id = intern("id");
    key_parent = intern("parent");
    key_kind = intern("kind");
    key_level = intern("level");
    key_code = intern("code");
    key_name = intern("name");
    key_confidence = intern("confidence");
    key_locator = intern("locator");
    key_sheet = intern("sheet");
    key_row = intern("row");
    kind_account = intern("account");
    kind_subconto = intern("subconto");
    attr_group = intern("group");
    attr_subconto_first = intern("subconto_first");
    attr_last_account = intern("last_account");
    full_confidence = PyLong_FromLong(100);
    if (!key_id || !key_parent || !key_kind || !key_level || !key_code || !key_name ||
        !key_confidence || !key_locator || !key_sheet || !key_row || !kind_account || !kind_subconto ||
        !attr_group || !attr_subconto_first || !attr_last_account || !full_confidence) {
        return NULL;
    }
    for (int k = 0; k < MONEY; k++) {
        key_money[k] = intern(money_names[k]);
        if (key_money[k] == NULL) {
            return NULL;
        }
    }
    return PyModule_Create(&module);
}
