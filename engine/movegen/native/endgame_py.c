/*
 * Python glue of the native end-game search (endgame.c, endgame_search.c): the arrays come
 * from engine/bots/endgame_native.py, the result goes back as plain tuples.
 */
#include "endgame.h"

const char endgame_search_doc[] =
"endgame_search(dawg, tables, board, position, rules, budget_s, node_limit, cutoffs, final,\n"
"               letters, tt_bits) -> (value, exact, nodes, depth, line)\n\n"
"The exact end-game search (engine/bots/endgame_native.py builds the arguments):\n"
"dawg = (first, targets, terminal, edge_letters, kid_bits, root); tables = (rows, cols,\n"
"new_value, word_mult, cross_factor, blocked, free_start, bingo, additive, bonus, bonus_points);\n"
"board = (cells, face, old_bonus, face_of); position = (rack0, rack1, seat, run, scored,\n"
"opening, start, min_tiles) with racks as letter counts (the last: blanks); rules =\n"
"(zero-turn limit after a score, limit at 0-0, zero kinds, rack values); final(rack0, rack1,\n"
"reason, out_seat) -> the end_game adjustments (a0, a1). ``line``: the principal variation,\n"
"each move (score, ((square, letter, blank), ...), across) or None for a pass.";

static int too_short(Py_buffer *b, Py_ssize_t bytes, const char *name) {
    if (b->len >= bytes) return 0;
    PyErr_Format(PyExc_ValueError, "endgame_search: %s holds %zd bytes, needs %zd", name, b->len,
                 bytes);
    return 1;
}

static PyObject *line_of(Search *s, const Found *pv, int n) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int k = 0; k < n; k++) {
        const Found *f = &pv[k];
        PyObject *item;
        if (!f->nt) {
            item = Py_None;
            Py_INCREF(item);
        } else {
            PyObject *tiles = PyTuple_New(f->nt);
            if (!tiles) { Py_DECREF(out); return NULL; }
            for (int t = 0; t < f->nt; t++) {
                PyObject *tile = Py_BuildValue("(iOO)", (int)f->sq[t],
                                               PyTuple_GET_ITEM(s->letters, f->let[t]),
                                               f->blank[t] ? Py_True : Py_False);
                if (!tile) { Py_DECREF(tiles); Py_DECREF(out); return NULL; }
                PyTuple_SET_ITEM(tiles, t, tile);
            }
            item = Py_BuildValue("(iNO)", (int)f->score, tiles, f->across ? Py_True : Py_False);
            if (!item) { Py_DECREF(out); return NULL; }
        }
        PyList_SET_ITEM(out, k, item);
    }
    return out;
}

PyObject *py_endgame_search(PyObject *self, PyObject *args) {
    Py_buffer first = {0}, targets = {0}, terminal = {0}, elet = {0}, kids = {0}, nv = {0},
              wm = {0}, xf = {0}, blocked = {0}, freestart = {0}, bingo = {0}, cells = {0},
              face = {0}, oldbon = {0}, face_of = {0}, rack0 = {0}, rack1 = {0}, values = {0};
    Py_buffer *all[] = {&first, &targets, &terminal, &elet, &kids, &nv, &wm, &xf, &blocked,
                        &freestart, &bingo, &cells, &face, &oldbon, &face_of, &rack0, &rack1,
                        &values};
    unsigned int root;
    int ordered = 0;
    int rows, cols, additive, bonus, bp, seat, run, scored, opening, start, min_tiles;
    int limit_scored, limit_zero, kinds, cutoffs, tt_bits;
    double budget;
    long long node_limit;
    PyObject *final, *letters, *result = NULL;
    PyObject *dawg, *tables, *board, *position, *rules;
    /* each part parsed on its own: one format with y* inside nested tuples overruns
       CPython 3.11's cleanup list (getargs.c counts only the top-level items) */
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!dLiOO!i:endgame_search", &PyTuple_Type, &dawg,
                          &PyTuple_Type, &tables, &PyTuple_Type, &board, &PyTuple_Type, &position,
                          &PyTuple_Type, &rules, &budget, &node_limit, &cutoffs, &final,
                          &PyTuple_Type, &letters, &tt_bits))
        return NULL;
    Search *s = NULL;
    if (!PyArg_ParseTuple(dawg, "y*y*y*y*y*I|p:dawg", &first, &targets, &terminal, &elet, &kids,
                          &root, &ordered)
        || !PyArg_ParseTuple(tables, "iiy*y*y*y*y*y*iii:tables", &rows, &cols, &nv, &wm, &xf,
                             &blocked, &freestart, &bingo, &additive, &bonus, &bp)
        || !PyArg_ParseTuple(board, "y*y*y*y*:board", &cells, &face, &oldbon, &face_of)
        || !PyArg_ParseTuple(position, "y*y*iiiiii:position", &rack0, &rack1, &seat, &run,
                             &scored, &opening, &start, &min_tiles)
        || !PyArg_ParseTuple(rules, "iiiy*:rules", &limit_scored, &limit_zero, &kinds, &values))
        goto done;
    s = calloc(1, sizeof(Search));
    if (!s) { PyErr_NoMemory(); goto done; }
    const int nl = (int)PyTuple_GET_SIZE(letters) - 1;  /* the last: the blank's token */
    const Py_ssize_t size = (Py_ssize_t)rows * cols, nodes = terminal.len;
    if (rows < 1 || cols < 1 || rows > MAXLINE || cols > MAXLINE || nl < 1 || nl >= MAXLETTERS
        || nodes < 1 || root >= (unsigned)nodes || seat < 0 || seat > 1 || run < 0
        || run > EG_MAXPLY || tt_bits < 10 || tt_bits > 28 || limit_scored < 1 || limit_zero < 1) {
        PyErr_SetString(PyExc_ValueError, "endgame_search: an argument out of range");
        goto done;
    }
    if (too_short(&first, 4 * (nodes + 1), "first") || too_short(&kids, 8 * nodes, "kid_bits")
        || too_short(&cells, size, "cells") || too_short(&face, 4 * size, "face")
        || too_short(&oldbon, size, "old_bonus") || too_short(&nv, 4 * size * nl, "new_value")
        || too_short(&wm, 4 * size, "word_mult") || too_short(&xf, 4 * size, "cross_factor")
        || too_short(&blocked, size, "blocked") || too_short(&freestart, size, "free_start")
        || too_short(&bingo, 4, "bingo") || too_short(&face_of, 8 * nl, "face_of")
        || too_short(&rack0, nl + 1, "rack0") || too_short(&rack1, nl + 1, "rack1")
        || too_short(&values, 4 * (nl + 1), "values"))
        goto done;
    Gen *g = &s->g;
    g->first = first.buf;
    g->targets = targets.buf;
    g->terminal = terminal.buf;
    g->elet = elet.buf;
    g->kids = kids.buf;
    g->root = root;
    g->ordered = ordered;
    g->rows = rows;
    g->cols = cols;
    g->nl = nl;
    g->nv = nv.buf;
    g->wm = wm.buf;
    g->xf = xf.buf;
    g->blocked = blocked.buf;
    g->freestart = freestart.buf;
    g->bingo = bingo.buf;
    g->nbingo = (int)(bingo.len / 4);
    g->additive = additive;
    g->bonus = bonus;
    g->bp = bp;
    g->all_bits = ((uint64_t)1 << nl) - 1;
    s->size = (int)size;
    s->nl = nl;
    s->bonus = bonus;
    s->cells = malloc((size_t)size);
    s->oldbon = malloc((size_t)size);
    s->face = malloc(sizeof(int32_t) * (size_t)size);
    if (!s->cells || !s->oldbon || !s->face) { PyErr_NoMemory(); goto done; }
    memcpy(s->cells, cells.buf, (size_t)size);
    memcpy(s->oldbon, oldbon.buf, (size_t)size);
    memcpy(s->face, face.buf, sizeof(int32_t) * (size_t)size);
    g->cells = s->cells;
    g->face = s->face;
    g->oldbon = s->oldbon;
    s->face_of = face_of.buf;
    s->values = values.buf;
    for (Py_ssize_t q = 0; q < size; q++) {
        if (s->cells[q] != NOLETTER && s->cells[q] >= nl) {
            PyErr_SetString(PyExc_ValueError, "endgame_search: a board letter outside the alphabet");
            goto done;
        }
        s->at.on_board += s->cells[q] != NOLETTER;
    }
    for (int k = 0; k < 2; k++) {
        const uint8_t *counts = (k ? rack1 : rack0).buf;
        for (int l = 0; l <= nl; l++) {
            s->at.racks[k][l] = counts[l];
            s->at.rack_n[k] += counts[l];
        }
        if (s->at.rack_n[k] >= MAXTILES || s->at.rack_n[k] >= g->nbingo) {
            PyErr_SetString(PyExc_ValueError, "endgame_search: too many tiles on a rack");
            goto done;
        }
    }
    Py_UCS4 codes[MAXLETTERS + 1];
    for (int l = 0; l <= nl; l++) {
        PyObject *letter = PyTuple_GET_ITEM(letters, l);
        if (!PyUnicode_Check(letter) || PyUnicode_GET_LENGTH(letter) != 1) {
            PyErr_SetString(PyExc_ValueError, "endgame_search: letters must be 1-character str");
            goto done;
        }
        codes[l] = PyUnicode_READ_CHAR(letter, 0);
    }
    for (int l = 0; l < nl; l++) {
        s->rank[l] = 0;
        for (int m = 0; m < nl; m++) s->rank[l] += codes[m] < codes[l];
    }
    s->codes = codes;
    s->at.seat = seat;
    s->at.run = run;
    s->at.scored = scored != 0;
    s->opening_ok = opening;
    s->start = start;
    s->min_tiles = min_tiles;
    s->limits[0] = limit_scored;
    s->limits[1] = limit_zero;
    s->zero_kinds = kinds;
    s->node_limit = node_limit;
    s->cutoffs = cutoffs;
    s->final = final;
    s->letters = letters;
    s->tt_mask = ((size_t)1 << tt_bits) - 1;
    if (!eg_init(s)) { PyErr_NoMemory(); goto done; }
    Found pv[EG_PVMAX];
    int npv = 0, exact = 0, depth = 0;
    PyThreadState *save = PyEval_SaveThread();  /* other threads run while it searches */
    s->deadline = eg_now() + budget;
    const int value = eg_solve(s, pv, &npv, &exact, &depth);
    PyEval_RestoreThread(save);
    if (s->failed) {
        if (s->failed == 2) PyErr_NoMemory();
        else if (s->failed == 3) PyErr_SetString(PyExc_ValueError, "endgame_search: generator failed");
        goto done;  /* 1: the callback's exception is set */
    }
    PyObject *line = line_of(s, pv, npv);
    if (line) result = Py_BuildValue("(iOLiN)", value, exact ? Py_True : Py_False, s->nodes, depth,
                                     line);
done:
    if (s) {
        eg_free(s);
        free(s->cells);
        free(s->oldbon);
        free(s->face);
        free(s);
    }
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        if (all[k]->obj) PyBuffer_Release(all[k]);
    return result;
}
