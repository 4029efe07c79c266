/* A look at every cell of a grid in C: whether any is of one of a few types. workbook._rows
 * asks it once per sheet (is there a time or a duration to turn into text?); the Python
 * expression it stands in for costs a type() call and a set lookup per cell. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyDoc_STRVAR(any_of_types_doc,
             "any_of_types(rows, types) -> bool\n\n"
             "Whether a cell of rows (a list of lists or tuples) is exactly of one of types "
             "(a tuple of types; subclasses do not count).");

static PyObject *
any_of_types(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "any_of_types(rows: list, types: tuple)");
        return NULL;
    }
    PyObject *rows = args[0], *types = args[1];
    Py_ssize_t wanted = PyTuple_GET_SIZE(types);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(rows); i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        PyObject **cells;
        Py_ssize_t width;
        if (PyList_Check(row)) {
            cells = ((PyListObject *)row)->ob_item;
            width = PyList_GET_SIZE(row);
        }
        else if (PyTuple_Check(row)) {
            cells = ((PyTupleObject *)row)->ob_item;
            width = PyTuple_GET_SIZE(row);
        }
        else {
            PyErr_SetString(PyExc_TypeError, "any_of_types: rows must be lists or tuples");
            return NULL;
        }
        for (Py_ssize_t j = 0; j < width; j++) {
            PyObject *type = (PyObject *)Py_TYPE(cells[j]);
            for (Py_ssize_t k = 0; k < wanted; k++) {
                if (type == PyTuple_GET_ITEM(types, k)) {
                    Py_RETURN_TRUE;
                }
            }
        }
    }
    Py_RETURN_FALSE;
}

static PyMethodDef methods[] = {
    {"any_of_types", (PyCFunction)(void (*)(void))any_of_types, METH_FASTCALL,
     any_of_types_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cells", "Grid cells looked at in C (see workbook._rows).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__cells(void)
{
    return PyModule_Create(&module);
}
