/*
 * War of Words portals in the native core, as engine/movegen/portals.py reads them.
 *
 * With an open portal pair a line is the chain of squares engine.placement.next_square walks:
 * a row (or column) spliced with another at a portal square. The Python layer hands the chains
 * of both directions down (every chain from a square with none before it, and every chain that
 * closes on itself: a ring), with each square's partner and the id of its line each way. The
 * search of movegen.c then runs on each chain as on a row; what differs is here:
 *
 *  - anchors and cross-checks read a square's four line neighbours through the portals, and a
 *    cross word that would close a ring allows no letter;
 *  - a ring has no first square, so it is cut open once at each empty square f (the line is
 *    the ring from the square after f to the one before it) and only the words ending at the
 *    cut's last square are kept: a word on a ring is found once;
 *  - entangled squares: through a portal one perpendicular line may cross a line twice, so two
 *    new tiles could share one cross word. Such empty squares get no cross-check, and a play
 *    using one is judged by the engine's validator and scorer (the `judge` callable) after the
 *    search, as the Python generator does;
 *  - a play whose tiles lie on a line across and a line down is found in both passes: it is kept
 *    once (the first found), with the direction check_placement tries first.
 */
#include "movegen.h"

/* The square after i (before it, unless forward) along a line, -1 at the edge: a portal
   square's exit is its partner's (engine.placement.next_square). */
static inline int next_sq(const Gen *g, int i, int across, int forward) {
    const int cols = g->cols;
    if (forward) {
        if (g->partner[i] >= 0) i = g->partner[i];
        if (across) return (i + 1) % cols ? i + 1 : -1;
        return i + cols < g->rows * cols ? i + cols : -1;
    }
    int j;
    if (across) {
        if (i % cols == 0) return -1;
        j = i - 1;
    } else {
        if (i < cols) return -1;
        j = i - cols;
    }
    return g->partner[j] >= 0 ? g->partner[j] : j;
}

/* Anchors: empty open squares with a tile next to them along a line (through the portals),
   and every free-start square (Star, Water). */
void portal_anchors(Gen *g) {
    const int size = g->rows * g->cols;
    for (int i = 0; i < size; i++) {
        g->board_anchor[i] = 0;
        if (g->cells[i] != NOLETTER || g->blocked[i]) continue;
        if (g->freestart[i]) { g->board_anchor[i] = 1; continue; }
        for (int way = 0; way < 4 && !g->board_anchor[i]; way++) {
            int j = next_sq(g, i, way >> 1, way & 1);
            g->board_anchor[i] = j >= 0 && g->cells[j] != NOLETTER;
        }
    }
}

/* movegen.c's cross_check with the cross word read through the portals. */
void portal_cross_check(Gen *g, int i, int s) {
    const int nl = g->nl, way = !g->across;
    memset(g->xs + (size_t)i * (nl + 1), 0, sizeof(int32_t) * (nl + 1));
    g->xlen[i] = 1;
    g->cross[i] = 0;
    if (g->blocked[s]) return;
    int before[MAXSPAN], after[MAXSPAN], nb = 0, na = 0, base = 0, hasbon = 0;
    /* every chain is at most MAXSPAN squares (checked when the chains come in) */
    int j = next_sq(g, s, way, 0);
    while (j >= 0 && g->cells[j] != NOLETTER && nb < MAXSPAN) {
        before[nb++] = j;
        j = next_sq(g, j, way, 0);
    }
    if (j == s) return; /* a letter here would close a ring of letters through a portal */
    j = next_sq(g, s, way, 1);
    while (j >= 0 && g->cells[j] != NOLETTER && na < MAXSPAN) {
        after[na++] = j;
        j = next_sq(g, j, way, 1);
    }
    int prefix[MAXSPAN], suffix[MAXSPAN];
    for (int k = 0; k < nb; k++) {
        int t = before[nb - 1 - k];
        prefix[k] = g->cells[t];
        base += g->face[t];
        hasbon |= g->oldbon[t];
    }
    for (int k = 0; k < na; k++) {
        suffix[k] = g->cells[after[k]];
        base += g->face[after[k]];
        hasbon |= g->oldbon[after[k]];
    }
    cross_word(g, i, s, prefix, nb, suffix, na, base, hasbon);
}

/* Entangled squares of the line in hand: empty open squares sharing their perpendicular line
   with another of its empty squares. They take any letter and no cross score here; a play
   using one is flagged for the judge (portal_record). */
void portal_relax(Gen *g) {
    const int n = g->n, size = g->rows * g->cols;
    const int32_t *perp = g->perp + (size_t)(!g->across) * size;
    g->any_relaxed = 0;
    for (int i = 0; i < n; i++) g->relaxed[g->sq[i]] = 0;
    for (int i = 0; i < n; i++) {
        const int s = g->sq[i];
        if (g->let[i] >= 0 || g->blocked[s]) continue;
        for (int j = i + 1; j < n; j++) {
            const int t = g->sq[j];
            if (g->let[j] < 0 && !g->blocked[t] && perp[t] == perp[s])
                g->relaxed[s] = g->relaxed[t] = 1;
        }
    }
    for (int i = 0; i < n; i++) {
        if (!g->relaxed[g->sq[i]]) continue;
        g->any_relaxed = 1;
        g->cross[i] = g->all_bits;
        memset(g->xs + (size_t)i * (g->nl + 1), 0, sizeof(int32_t) * (g->nl + 1));
    }
}

/* Called first by record on a portal line: 1 when it has dealt with the move (a cut ring's
   word not ending at the cut, or a play on an entangled square, kept for the judge), 0 when
   record scores it as usual. */
int portal_record(Gen *g, int i, int nt) {
    if (g->end_only && i != g->n) return 1;
    if (!g->any_relaxed) return 0;
    int relaxed = 0;
    for (int k = 0; k < g->np && !relaxed; k++) relaxed = g->relaxed[g->psq[k]];
    if (!relaxed) return 0;
    if (i - g->start < 2 || nt < g->min_tiles) return 1;
    if (nt == 1 && !g->across && g->xlen[g->anchor_i] > 1) return 1; /* the across pass has it */
    Found *f = new_found(g);
    if (!f) return 1;
    f->check = 1;
    f->score = 0;
    f->nt = (uint8_t)nt;
    f->across = (uint8_t)g->across;
    for (int k = 0; k < g->np; k++) {
        f->sq[k] = (uint16_t)g->psq[k];
        f->let[k] = (uint8_t)g->plet[k];
        f->blank[k] = (uint8_t)g->pblank[k];
    }
    return 1;
}

/* Every chain of both directions, across first (squares[info[4c] ..], info[4c + 1] of them,
   across = info[4c + 2], a ring when info[4c + 3]). */
void portal_lines(Gen *g, const int32_t *squares, const int32_t *info, Py_ssize_t chains) {
    for (Py_ssize_t c = 0; c < chains && !g->failed; c++) {
        const int32_t *line = squares + info[4 * c];
        const int n = info[4 * c + 1];
        g->across = info[4 * c + 2];
        g->end_only = 0;
        if (!info[4 * c + 3]) {
            g->n = n;
            for (int k = 0; k < n; k++) g->sq[k] = line[k];
            run_line(g);
            continue;
        }
        int any = 0;
        for (int k = 0; k < n; k++) any |= g->board_anchor[line[k]];
        if (!any) continue;
        g->end_only = 1;
        for (int k = 0; k < n && !g->failed; k++) {
            if (g->cells[line[k]] != NOLETTER) continue;
            g->n = n - 1;
            for (int j = 0; j < n - 1; j++) g->sq[j] = line[(k + 1 + j) % n];
            run_line(g);
        }
        g->end_only = 0;
    }
}

/* -- after the search: the judge, then each play once ----------------------------------- */

static const Found *cmp_found; /* the moves qsort compares (the GIL is held) */

/* two moves' tiles in the order placed (the Python generator's seen-set key), then found */
static int by_placed(const void *pa, const void *pb) {
    const uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const Found *x = &cmp_found[a], *y = &cmp_found[b];
    if (x->nt != y->nt) return x->nt < y->nt ? -1 : 1;
    for (int k = 0; k < x->nt; k++) {
        if (x->sq[k] != y->sq[k]) return x->sq[k] < y->sq[k] ? -1 : 1;
        if (x->let[k] != y->let[k]) return x->let[k] < y->let[k] ? -1 : 1;
        if (x->blank[k] != y->blank[k]) return x->blank[k] < y->blank[k] ? -1 : 1;
    }
    return a < b ? -1 : (a > b ? 1 : 0);
}

/* The judge's verdict on a flagged move: 1 legal (score and direction set), 0 not, -1 error. */
static int judged(Found *f, PyObject *judge, PyObject *letters) {
    PyObject *tiles = PyTuple_New(f->nt);
    if (!tiles) return -1;
    for (int k = 0; k < f->nt; k++) {
        PyObject *tile = Py_BuildValue("(iOO)", (int)f->sq[k], PyTuple_GET_ITEM(letters, f->let[k]),
                                       f->blank[k] ? Py_True : Py_False);
        if (!tile) { Py_DECREF(tiles); return -1; }
        PyTuple_SET_ITEM(tiles, k, tile);
    }
    PyObject *move = PyObject_CallOneArg(judge, tiles);
    Py_DECREF(tiles);
    if (!move) return -1;
    if (move == Py_None) { Py_DECREF(move); return 0; }
    if (!PyTuple_Check(move) || PyTuple_GET_SIZE(move) < 3) {
        Py_DECREF(move);
        PyErr_SetString(PyExc_TypeError, "native movegen: the portal judge must return a Move or None");
        return -1;
    }
    long score = PyLong_AsLong(PyTuple_GET_ITEM(move, 0));
    int across = PyObject_IsTrue(PyTuple_GET_ITEM(move, 2));
    Py_DECREF(move);
    if ((score == -1 && PyErr_Occurred()) || across < 0) return -1;
    f->score = (int32_t)score;
    f->across = (uint8_t)across;
    f->check = 0;
    return 1;
}

/* The move's tiles in square order (each square once): its identity whatever the line. */
static void canonical(const Found *f, Found *out) {
    *out = *f;
    for (int k = 1; k < out->nt; k++) {
        uint16_t sq = out->sq[k];
        uint8_t let = out->let[k], blank = out->blank[k];
        int j = k;
        for (; j > 0 && out->sq[j - 1] > sq; j--) {
            out->sq[j] = out->sq[j - 1];
            out->let[j] = out->let[j - 1];
            out->blank[j] = out->blank[j - 1];
        }
        out->sq[j] = sq;
        out->let[j] = let;
        out->blank[j] = blank;
    }
}

/* With the GIL: drop the repeats among the flagged moves, have `judge` check and score the
   others (engine.movegen.portals.judged_move), and keep each play once. Returns 0 with a
   Python error set on failure. */
int portal_finish(Gen *g, PyObject *judge, PyObject *letters) {
    const size_t n = g->nfound;
    if (!n) return 1;
    uint8_t *alive = malloc(n);
    uint32_t *order = malloc(sizeof(uint32_t) * n);
    Found *canon = malloc(sizeof(Found) * n);
    int ok = 0;
    if (!alive || !order || !canon) { PyErr_NoMemory(); goto done; }
    memset(alive, 1, n);
    /* a flagged play found twice with its tiles in one order is judged once (the seen-set) */
    size_t nflag = 0;
    for (size_t m = 0; m < n; m++)
        if (g->found[m].check) order[nflag++] = (uint32_t)m;
    cmp_found = g->found;
    qsort(order, nflag, sizeof(uint32_t), by_placed);
    for (size_t k = 1; k < nflag; k++) {
        const Found *x = &g->found[order[k - 1]], *y = &g->found[order[k]];
        if (x->nt == y->nt && !memcmp(x->sq, y->sq, sizeof(uint16_t) * x->nt)
            && !memcmp(x->let, y->let, x->nt) && !memcmp(x->blank, y->blank, x->nt))
            alive[order[k]] = 0;
    }
    for (size_t m = 0; m < n; m++) {
        if (!alive[m] || !g->found[m].check) continue;
        int verdict = judged(&g->found[m], judge, letters);
        if (verdict < 0) goto done;
        alive[m] = (uint8_t)verdict;
    }
    /* each play once: group by tiles in square order; the first found stays, and when found
       twice it takes the direction check_placement tries first (one row and several columns) */
    size_t live = 0;
    for (size_t m = 0; m < n; m++) {
        if (!alive[m]) continue;
        canonical(&g->found[m], &canon[m]);
        order[live++] = (uint32_t)m;
    }
    cmp_found = canon;
    qsort(order, live, sizeof(uint32_t), by_placed);
    for (size_t k = 0; k < live;) {
        size_t end = k + 1;
        const Found *x = &canon[order[k]];
        while (end < live) {
            const Found *y = &canon[order[end]];
            if (x->nt != y->nt || memcmp(x->sq, y->sq, sizeof(uint16_t) * x->nt)
                || memcmp(x->let, y->let, x->nt) || memcmp(x->blank, y->blank, x->nt))
                break;
            alive[order[end++]] = 0;
        }
        if (end > k + 1) {
            Found *first = &g->found[order[k]];
            int one_row = 1, many_cols = 0;
            for (int t = 1; t < first->nt; t++) {
                one_row &= first->sq[t] / g->cols == first->sq[0] / g->cols;
                many_cols |= first->sq[t] % g->cols != first->sq[0] % g->cols;
            }
            first->across = (uint8_t)(one_row && many_cols);
        }
        k = end;
    }
    size_t kept = 0;
    for (size_t m = 0; m < n; m++)
        if (alive[m]) g->found[kept++] = g->found[m];
    g->nfound = kept;
    ok = 1;
done:
    cmp_found = NULL;
    free(alive);
    free(order);
    free(canon);
    return ok;
}
