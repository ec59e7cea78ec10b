/*
 * The native end-game search: negamax with alpha-beta over incremental state (see
 * engine/bots/endgame.py's module doc for the method; this is the same search, in C).
 *
 * A node is the board (cells, faces, Bonus Letter flags: placed and lifted per move), both
 * racks as letter counts, the seat to move, the run of zero turns and whether anyone has
 * scored. The moves are the native generator's (generate_plain on our arrays, so a play's
 * score is the generator's own), sorted in its canonical order, then ordered as the Python
 * search orders them: the table's best move, the ply's killer, plays that go out, the rest,
 * the pass. The end of the game is scored by the engine's end_game through a Python callback
 * (s->final), cached per (racks, reason, out seat). Keys are Zobrist hashes of the same
 * parts the Python table keys on; moves are known by a fingerprint of (score, tiles, across),
 * the parts Python's Move equality compares.
 */
#include "endgame.h"
#include <time.h>

double eg_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

uint64_t eg_mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t eg_fingerprint(const Found *f) {
    if (!f) return EG_PASS_FP;
    uint64_t h = eg_mix((uint64_t)(uint32_t)f->score ^ ((uint64_t)f->nt << 40)
                     ^ ((uint64_t)f->across << 48));
    for (int k = 0; k < f->nt; k++)
        h = eg_mix(h ^ ((uint64_t)f->sq[k] << 16) ^ ((uint64_t)f->let[k] << 1) ^ f->blank[k]);
    return h | (1ull << 63);
}

int eg_init(Search *s) {
    const int size = s->size, nl = s->nl;
    uint64_t seed = 0x5EED;
    s->z_square = malloc(sizeof(uint64_t) * (size_t)size * nl * 2);
    s->tt = calloc(s->tt_mask + 1, sizeof(TTEntry));
    s->ends_mask = (1u << 16) - 1;
    s->ends = calloc(s->ends_mask + 1, sizeof(EndEntry));
    s->cache_mask = (1u << 17) - 1;
    s->cache = calloc(s->cache_mask + 1, sizeof(CacheSlot));
    s->arena_cap = (size_t)1 << 18;
    s->arena = malloc(sizeof(Found) * s->arena_cap);
    if (!s->cache || !s->arena) return 0;
    s->g.xc_mask = ((size_t)1 << 16) - 1;
    s->g.xc_keys = calloc(s->g.xc_mask + 1, sizeof(uint64_t));
    s->g.xc_bits = malloc(sizeof(uint64_t) * (s->g.xc_mask + 1));
    if (!s->g.xc_keys || !s->g.xc_bits) return 0;
    s->g.lines = line_cache_new((size_t)1 << 16, (size_t)1 << 18);
    if (!s->g.lines) return 0;
    s->g.xs = malloc(sizeof(int32_t) * MAXSPAN * (nl + 1));
    s->g.board_anchor = malloc((size_t)size);
    if (!s->z_square || !s->tt || !s->ends || !s->g.xs || !s->g.board_anchor) return 0;
    for (size_t k = 0; k < (size_t)size * nl * 2; k++) s->z_square[k] = eg_mix(seed++);
    for (int seat = 0; seat < 2; seat++)
        for (int l = 0; l <= nl; l++) {
            s->z_rack[seat][l][0] = 0;
            for (int c = 1; c <= MAXTILES; c++) s->z_rack[seat][l][c] = eg_mix(seed++);
        }
    s->z_seat = eg_mix(seed++);
    s->z_scored = eg_mix(seed++);
    for (int r = 0; r <= EG_MAXPLY; r++) s->z_run[r] = r ? eg_mix(seed++) : 0;
    s->at.rack_hash = 0;
    for (int seat = 0; seat < 2; seat++) {
        s->at.mover_hash[seat] = 0;
        for (int l = 0; l <= nl; l++) s->at.mover_hash[seat] ^= s->z_rack[seat][l][s->at.racks[seat][l]];
        s->at.rack_hash ^= s->at.mover_hash[seat];
    }
    return 1;
}

void eg_free(Search *s) {
    free(s->z_square);
    free(s->tt);
    free(s->ends);
    free(s->cache);
    free(s->arena);
    free(s->scratch);
    line_cache_free(s->g.lines);
    free(s->g.xc_keys);
    free(s->g.xc_bits);
    free(s->g.xs);
    free(s->g.lefts);
    free(s->g.board_anchor);
    for (int p = 0; p < EG_MAXPLY + 2; p++) {
        free(s->plies[p].found);
        free(s->plies[p].items);
        free(s->plies[p].ordered);
    }
}

void eg_fail(Search *s, int why) {
    s->failed = why;
    longjmp(s->out, 1);
}

/* -- the end of the game: the engine's end_game, called back and cached -------------------- */

static PyObject *rack_tuple(Search *s, int seat) {
    PyObject *out = PyTuple_New(s->at.rack_n[seat]);
    if (!out) return NULL;
    Py_ssize_t k = 0;
    for (int l = 0; l <= s->nl; l++)
        for (int c = 0; c < s->at.racks[seat][l]; c++) {
            PyObject *letter = PyTuple_GET_ITEM(s->letters, l);
            Py_INCREF(letter);
            PyTuple_SET_ITEM(out, k++, letter);
        }
    return out;
}

/* What end_game adds to each seat's score with the racks as they are now: `out` (out_seat
   went out) or a run of zero turns. Returns 1; on an error in the callback, longjmps. */
int eg_adjust(Search *s, int out, int out_seat, int32_t adj[2]) {
    uint64_t key = eg_mix(s->at.rack_hash ^ (out ? 0xA5A5ull + (uint64_t)out_seat : 0x77ull));
    size_t at = key & s->ends_mask;
    for (;; at = (at + 1) & s->ends_mask) {
        EndEntry *e = &s->ends[at];
        if (!e->used) break;
        if (e->key == key) { adj[0] = e->adj[0]; adj[1] = e->adj[1]; return 1; }
    }
    PyGILState_STATE gil = PyGILState_Ensure();  /* the search runs without it */
    int ok = 0;
    PyObject *r0 = rack_tuple(s, 0), *r1 = rack_tuple(s, 1), *result = NULL;
    if (r0 && r1) {
        PyObject *seat = out ? PyLong_FromLong(out_seat) : (Py_INCREF(Py_None), Py_None);
        if (seat)
            result = PyObject_CallFunction(s->final, "OOsO", r0, r1, out ? "out" : "zero-turns",
                                           seat);
        Py_XDECREF(seat);
    }
    int a = 0, b = 0;
    if (result && PyArg_ParseTuple(result, "ii", &a, &b)) ok = 1;
    Py_XDECREF(result);
    Py_XDECREF(r0);
    Py_XDECREF(r1);
    PyGILState_Release(gil);
    if (!ok) eg_fail(s, 1);
    if (++s->ends_used > s->ends_mask / 2) { /* full enough: start again, as Python's cache */
        memset(s->ends, 0, sizeof(EndEntry) * (s->ends_mask + 1));
        s->ends_used = 1;
        at = key & s->ends_mask;
    }
    EndEntry *e = &s->ends[at];
    e->key = key;
    e->adj[0] = adj[0] = a;
    e->adj[1] = adj[1] = b;
    e->used = 1;
    return 1;
}

/* -- moves ----------------------------------------------------------------------------------- */

static int item_before(const SortItem *a, const SortItem *b, const Found *f, const Py_UCS4 *c) {
    if (a->key != b->key) return a->key < b->key;
    return compare_moves(&f[a->index], &f[b->index], c) <= 0;
}

/* merge sort (stable) of items[0..n-1] into the canonical order */
static void sort_moves(SortItem *a, SortItem *tmp, size_t n, const Found *f, const Py_UCS4 *c) {
    if (n <= 12) {
        for (size_t m = 1; m < n; m++) {
            SortItem item = a[m];
            size_t j = m;
            while (j > 0 && !item_before(&a[j - 1], &item, f, c)) { a[j] = a[j - 1]; j--; }
            a[j] = item;
        }
        return;
    }
    size_t half = n / 2;
    sort_moves(a, tmp, half, f, c);
    sort_moves(a + half, tmp, n - half, f, c);
    size_t i = 0, j = half, k = 0;
    while (i < half && j < n) tmp[k++] = item_before(&a[i], &a[j], f, c) ? a[i++] : a[j++];
    while (i < half) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, sizeof(SortItem) * n);
}

static void *grow(void *buf, size_t *cap, size_t need, size_t item, Search *s) {
    void *got = grow_items(buf, cap, need, item, need);
    if (!got) eg_fail(s, 2);
    return got;
}

/* Generate the mover's plays into p->found, in canonical order. */
static size_t fresh(Search *s, Ply *p) {
    Gen *g = &s->g;
    const int nl = s->nl, seat = s->at.seat;
    g->found = p->found;
    g->capfound = p->cap;
    g->nfound = 0;
    g->failed = 0;
    g->np = 0;
    g->lav = 0;
    g->tiles = 0;
    for (int l = 0; l < nl; l++) {
        g->counts[l] = s->at.racks[seat][l];
        g->tiles += g->counts[l];
        if (g->counts[l]) g->lav |= (uint64_t)1 << l;
    }
    g->blanks = s->at.racks[seat][nl];
    g->tiles += g->blanks;
    const int opening = s->opening_ok && s->at.on_board == 0;
    g->min_tiles = opening ? s->min_tiles : 1;
    g->rack_key = s->at.mover_hash[seat] ^ (seat ? 0x51ED270B27422BCDull : 0);
    if (g->tiles) generate_plain(g, opening, s->start);
    p->found = g->found;
    p->cap = g->capfound;
    if (g->failed) eg_fail(s, g->failed == 2 ? 2 : 3);
    const size_t n = g->nfound;
    p->items = grow(p->items, &p->icap, 2 * (n + 1), sizeof(SortItem), s);
    SortItem *tmp = p->items + n + 1;
    for (size_t m = 0; m < n; m++) {
        p->items[m].key = sort_key(&p->found[m], s->rank);
        p->items[m].index = (uint32_t)m;
    }
    sort_moves(p->items, tmp, n, p->found, s->codes);
    s->scratch = grow(s->scratch, &s->scratch_cap, n + 1, sizeof(Found), s);
    for (size_t m = 0; m < n; m++) s->scratch[m] = p->found[p->items[m].index];
    memcpy(p->found, s->scratch, sizeof(Found) * n);
    return n;
}

/* The plays of the seat to move, in the order to try them (Python's `order`, leads aside):
   plays that go out, the other plays (each in the generator's canonical order), the pass.
   Fills plies[ply].ordered (indexes into .found, -1 the pass); returns how many. The
   generated plays are cached per (board, rack) (Python: Search.generated). */
int eg_generate(Search *s, int ply) {
    Ply *p = &s->plies[ply];
    const uint64_t key = eg_mix(s->at.board_hash ^ s->at.mover_hash[s->at.seat] ^ (uint64_t)s->at.seat);
    size_t at = key & s->cache_mask, n;
    for (; s->cache[at].count && s->cache[at].key != key; at = (at + 1) & s->cache_mask) {}
    CacheSlot *slot = &s->cache[at];
    if (slot->count) {
        n = slot->count - 1;
        p->found = grow(p->found, &p->cap, n + 1, sizeof(Found), s);
        memcpy(p->found, s->arena + slot->at, sizeof(Found) * n);
    } else {
        n = fresh(s, p);
        if (s->arena_used + n > s->arena_cap || s->cache_used >= s->cache_mask / 2) {
            memset(s->cache, 0, sizeof(CacheSlot) * (s->cache_mask + 1)); /* start again */
            s->arena_used = s->cache_used = 0;
            for (at = key & s->cache_mask; s->cache[at].count; at = (at + 1) & s->cache_mask) {}
            slot = &s->cache[at];
        }
        if (s->arena_used + n <= s->arena_cap) {
            memcpy(s->arena + s->arena_used, p->found, sizeof(Found) * n);
            slot->key = key;
            slot->at = (uint32_t)s->arena_used;
            slot->count = (uint32_t)n + 1;  /* 0: a free slot */
            s->arena_used += n;
            s->cache_used++;
        }
    }
    p->ordered = grow(p->ordered, &p->ocap, n + 1, sizeof(int), s);
    int k = 0;
    const int size = s->at.rack_n[s->at.seat];
    for (size_t m = 0; m < n; m++)
        if (p->found[m].nt == size) p->ordered[k++] = (int)m;
    for (size_t m = 0; m < n; m++)
        if (p->found[m].nt != size) p->ordered[k++] = (int)m;
    p->ordered[k++] = -1;
    return k;
}

const Found *eg_move_at(const Ply *p, int j) {
    return p->ordered[j] < 0 ? NULL : &p->found[p->ordered[j]];
}

/* put the move with fingerprint `fp` (when there) first */
void eg_lead(Ply *p, int count, uint64_t fp) {
    if (!fp) return;
    for (int j = 0; j < count; j++) {
        if (eg_fingerprint(eg_move_at(p, j)) != fp) continue;
        int idx = p->ordered[j];
        memmove(p->ordered + 1, p->ordered, sizeof(int) * (size_t)j);
        p->ordered[0] = idx;
        return;
    }
}

/* -- playing a move -------------------------------------------------------------------------- */

static void take(Search *s, int seat, int letter, int delta) {
    int *c = &s->at.racks[seat][letter];
    const uint64_t change = s->z_rack[seat][letter][*c] ^ s->z_rack[seat][letter][*c + delta];
    *c += delta;
    s->at.rack_hash ^= change;
    s->at.mover_hash[seat] ^= change;
    s->at.rack_n[seat] += delta;
}

static void rack_move(Search *s, int seat, const Found *m, int delta) {
    for (int k = 0; k < m->nt; k++) take(s, seat, m->blank[k] ? s->nl : m->let[k], delta);
}

/* Play `m` (NULL: pass) for the seat to move. Returns 1 when the game ends (*gain then holds
   the end's adjustment too, and only the rack changed), else 0 and the child is set up. */
int eg_play(Search *s, const Found *m, int *gain, Undo *u) {
    const int seat = s->at.seat, other = 1 - seat;
    *gain = m ? m->score : 0;
    const int kind = m ? (*gain ? EG_WORD : EG_SCORELESS) : EG_PASS;
    const int run = kind & s->zero_kinds ? s->at.run + 1 : 0;
    const int scored = s->at.scored || *gain > 0;
    if (m) rack_move(s, seat, m, -1);
    int32_t adj[2];
    if (m && s->at.rack_n[seat] == 0) {
        eg_adjust(s, 1, seat, adj);
        *gain += adj[seat] - adj[other];
        return 1;
    }
    if (run >= s->limits[scored ? 0 : 1]) {
        eg_adjust(s, 0, -1, adj);
        *gain += adj[seat] - adj[other];
        return 1;
    }
    if (m) {
        for (int k = 0; k < m->nt; k++) {
            const int sq = m->sq[k], l = m->let[k], b = m->blank[k];
            s->cells[sq] = (uint8_t)l;
            s->face[sq] = s->face_of[l * 2 + b];
            s->oldbon[sq] = l == s->bonus && !b;
            s->at.board_hash ^= s->z_square[((size_t)sq * s->nl + l) * 2 + b];
        }
        s->at.on_board += m->nt;
    }
    u->run = s->at.run;
    u->scored = s->at.scored;
    s->at.seat = other;
    s->at.run = run;
    s->at.scored = scored;
    return 0;
}

void eg_unplay(Search *s, const Found *m, int ended, const Undo *u) {
    if (!ended) {
        s->at.seat = 1 - s->at.seat;
        s->at.run = u->run;
        s->at.scored = u->scored;
        if (m) {
            for (int k = 0; k < m->nt; k++) {
                const int sq = m->sq[k];
                s->at.board_hash ^= s->z_square[((size_t)sq * s->nl + m->let[k]) * 2 + m->blank[k]];
                s->cells[sq] = NOLETTER;
                s->face[sq] = 0;
                s->oldbon[sq] = 0;
            }
            s->at.on_board -= m->nt;
        }
    }
    if (m) rack_move(s, s->at.seat, m, 1);
}

