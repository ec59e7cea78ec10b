/*
 * The native move-generation core: Appel–Jacobson over the compiled DAWG, in C.
 *
 * The Python layer (engine/movegen/native_bridge.py) hands down, per position, flat arrays it builds
 * once from engine.movegen.tables (the scorer's own per-square numbers) and the lexicon's
 * arrays (engine.lexicon.dawg: first / targets / terminal, plus the tile-letter index of each
 * edge and the child-letter bitset of each node, computed here once per lexicon). This file
 * finds anchors, cross-checks and cross scores, left parts, extends right over the board and
 * records every move with its score: (main word letter sum + Bonus Letter) x word factor
 * + cross words + bingo, exactly as engine.movegen.generator does. The moves come back as
 * engine.movegen.move.Move tuples, sorted best first (score, then tiles: the canonical order
 * engine.movegen.api.sort_moves gives the Python generator's moves too).
 *
 * A War of Words wildcard on the rack or the board switches the search to sets of DAWG nodes
 * (wildcards.c); open War of Words portal pairs make lines chains through the portals
 * (portals.c). The search below reads a line as the squares g->sq[0..n-1], whichever they are.
 */
#include "movegen.h"
#include "endgame.h"

/* -- the DAWG ----------------------------------------------------------------------------- */

/* node reached from `node` by the letters of `path` (count `len`), -1 off the DAWG */
static int64_t walk(const Gen *g, uint32_t node, const int *path, int len) {
    int64_t cur = node;
    for (int k = 0; k < len && cur >= 0; k++) cur = child_of(g, (uint32_t)cur, path[k]);
    return cur;
}

static inline int32_t nv_of(const Gen *g, int s, int letter) {
    return g->nv[(size_t)s * g->nl + letter];
}

/* -- output ------------------------------------------------------------------------------- */

void *grow_items(void *items, size_t *cap, size_t need, size_t size, size_t least) {
    if (need <= *cap) return items;
    size_t more = *cap ? *cap : least;
    while (more < need) more *= 2;
    void *got = realloc(items, more * size);
    if (got) *cap = more;
    return got;
}

Found *new_found(Gen *g) {
    if (g->nfound == g->capfound) {
        Found *more = grow_items(g->found, &g->capfound, g->nfound + 1, sizeof(Found), 1024);
        if (!more) { g->failed = 2; return NULL; }
        g->found = more;
    }
    return &g->found[g->nfound++];
}

void record(Gen *g, int i, int nt, int msum, int wf, int bon, int xsum) {
    if (g->partner && portal_record(g, i, nt)) return;
    if (i - g->start < 2 || nt < g->min_tiles) return;
    int direction = g->across;
    if (nt == 1) {
        if (g->across) direction = i - g->start >= g->xlen[g->anchor_i];
        else if (g->xlen[g->anchor_i] > 1) return; /* found in the across pass */
    }
    if (nt >= g->nbingo) { g->failed = 1; return; }
    Found *f = new_found(g);
    if (!f) return;
    f->check = 0;
    f->score = (msum + (bon ? g->bp : 0)) * (wf ? wf : 1) + xsum + g->bingo[nt];
    f->nt = (uint8_t)nt;
    f->across = (uint8_t)direction;
    for (int k = 0; k < g->np; k++) {
        f->sq[k] = (uint16_t)g->psq[k];
        f->let[k] = (uint8_t)g->plet[k];
        f->blank[k] = (uint8_t)g->pblank[k];
    }
}

/* -- extend right ------------------------------------------------------------------------- */

static void extend(Gen *g, int i, uint32_t node, int msum, int wf, int bon, int xsum, int nt) {
    const int n = g->n;
    while (i < n && g->let[i] >= 0) {
        int64_t child = child_of(g, node, g->let[i]);
        if (child < 0) return;
        node = (uint32_t)child;
        msum += g->face[g->sq[i]];
        bon |= g->oldbon[g->sq[i]];
        i++;
    }
    if (i > g->anchor_i && g->terminal[node]) record(g, i, nt, msum, wf, bon, xsum);
    if (i == n || nt >= g->tiles) return;
    uint64_t fit = g->kids[node] & g->cross[i] & (g->blanks ? g->all_bits : g->lav);
    if (!fit) return;
    const int s = g->sq[i];
    /* what a child must offer to be worth a call: the next square's tile, or (empty) a word
       end or a letter the rest of the rack could put there */
    const int next_tile = i + 1 < n ? g->let[i + 1] : -1;
    const uint64_t next_fit = i + 1 < n && next_tile < 0 && nt + 1 < g->tiles ? g->cross[i + 1] : 0;
    const int nl = g->nl;
    const int32_t *xs = g->xs + (size_t)i * (nl + 1);
    const int32_t *nv = g->nv + (size_t)s * nl;
    const int nwf = g->additive ? wf + g->wm[s] : wf * g->wm[s];
    const int np = g->np++;
    g->psq[np] = s;
    /* the letters of `fit`, in ascending order: on an ordered DAWG straight from the bits
       (each edge found by counting), otherwise by reading every edge */
    const uint32_t base = g->first[node], end = g->first[node + 1];
    const uint64_t kids = g->kids[node];
    uint64_t left = fit;
    for (uint32_t e = base; g->ordered ? left != 0 : e < end;) {
        int letter;
        uint32_t child;
        if (g->ordered) {
            letter = __builtin_ctzll(left);
            left &= left - 1;
            child = g->targets[base + edge_rank(kids, letter)];
        } else {
            letter = g->elet[e];
            child = g->targets[e++];
            if (letter == NOLETTER || !((fit >> letter) & 1)) continue;
        }
        const uint64_t ck = g->kids[child];
        if (next_tile >= 0) {
            if (!((ck >> next_tile) & 1)) continue;
        } else if (!g->terminal[child] && !(ck & next_fit)) {
            continue;
        }
        const uint64_t bit = (uint64_t)1 << letter;
        if (g->counts[letter]) {
            if (--g->counts[letter] == 0) g->lav &= ~bit;
            g->plet[np] = letter;
            g->pblank[np] = 0;
            extend(g, i + 1, child, msum + nv[letter], nwf, bon | (letter == g->bonus),
                   xsum + xs[letter], nt + 1);
            if (g->counts[letter]++ == 0) g->lav |= bit;
        }
        if (g->blanks) {
            g->blanks--;
            g->plet[np] = letter;
            g->pblank[np] = 1;
            extend(g, i + 1, child, msum, nwf, bon, xsum + xs[nl], nt + 1);
            g->blanks++;
        }
    }
    g->np = np;
}

/* -- left parts --------------------------------------------------------------------------- */

/* Extend from anchor `a` after the left part in psq/plet/pblank[0..k-1] (squares a-k..a-1). */
static void from_left_part(Gen *g, int a, uint32_t node, int k) {
    int msum = 0, wf = g->additive ? 0 : 1, bon = 0;
    for (int j = 0; j < k; j++) {
        int s = g->sq[a - k + j];
        g->psq[j] = s;
        if (!g->pblank[j]) {
            msum += g->nv[(size_t)s * g->nl + g->plet[j]];
            bon |= g->plet[j] == g->bonus;
        }
        wf = g->additive ? wf + g->wm[s] : wf * g->wm[s];
    }
    g->start = a - k;
    g->np = k;
    extend(g, a, node, msum, wf, bon, 0, k);
}

static inline uint64_t playable(const Gen *g) {
    return g->blanks ? g->all_bits : g->lav;
}

/* A left part of the rack: a path from the DAWG's root, listed in the order the classic
   per-anchor search visits it. The list depends on the rack alone, so it is made once per rack
   and walked at every anchor instead of walking the DAWG again there (with a blank on the
   rack, re-walking it anchor after anchor took about half of a generation). */
typedef struct LeftPart {
    uint64_t fit;        /* the node's child letters the rest of the rack can play */
    uint32_t node, skip; /* skip: the index after this part's longer parts */
    uint8_t k, letter, blank;
} LeftPart;

static LeftPart *new_left(Gen *g) {
    if (g->nlefts == g->caplefts) {
        LeftPart *more = grow_items(g->lefts, &g->caplefts, g->nlefts + 1, sizeof(LeftPart), 256);
        if (!more) { g->failed = 2; return NULL; }
        g->lefts = more;
    }
    return &g->lefts[g->nlefts++];
}

/* List the left parts below `node` (k letters so far, the last one `letter`/`blank`) up to
   `limit` letters: a part, then each longer one whose node some tile still on the rack can
   leave. Each is extended from anchor `a` as it is listed, as the walk of the list does at
   the anchors after it. */
static void list_lefts(Gen *g, int a, uint32_t node, int k, int limit, int letter, int blank) {
    const uint64_t fit = g->kids[node] & playable(g);
    const size_t at = g->nlefts;
    LeftPart *p = new_left(g);
    if (!p) return;
    *p = (LeftPart){.fit = fit, .node = node, .k = (uint8_t)k, .letter = (uint8_t)letter,
                    .blank = (uint8_t)blank};
    if (k) {
        g->plet[k - 1] = letter;
        g->pblank[k - 1] = blank;
    }
    if (fit & g->cross[a]) from_left_part(g, a, node, k);
    if (k < limit) {
        uint32_t e = g->first[node], end = g->first[node + 1];
        for (; e < end && !g->failed; e++) {
            int l = g->elet[e];
            if (l == NOLETTER) continue;
            uint32_t child = g->targets[e];
            if (!g->kids[child]) continue;
            const uint64_t bit = (uint64_t)1 << l;
            if (g->counts[l]) {
                if (--g->counts[l] == 0) g->lav &= ~bit;
                if (g->kids[child] & playable(g)) list_lefts(g, a, child, k + 1, limit, l, 0);
                if (g->counts[l]++ == 0) g->lav |= bit;
            }
            if (g->blanks) {
                g->blanks--;
                if (g->kids[child] & playable(g)) list_lefts(g, a, child, k + 1, limit, l, 1);
                g->blanks++;
            }
        }
    }
    if (!g->failed) g->lefts[at].skip = (uint32_t)g->nlefts;
}

/* Take a listed left part's tile from the rack (take 1) or put it back (take 0). */
static inline void rack_take(Gen *g, const LeftPart *p, int take) {
    if (p->blank) { g->blanks += take ? -1 : 1; return; }
    const uint64_t bit = (uint64_t)1 << p->letter;
    if (take) { if (--g->counts[p->letter] == 0) g->lav &= ~bit; }
    else if (g->counts[p->letter]++ == 0) g->lav |= bit;
}

/* Every move from anchor `a` with a left part of at most `limit` letters on the free squares
   before it: each of the rack's left parts after which some tile the rack still holds goes on
   at `a`, extended. The rack's first anchor (and one that needs longer parts than those
   listed) lists them while it walks the DAWG; the others walk the list. */
static void left_parts(Gen *g, int a, int limit) {
    if (limit > g->lefts_depth - 1) {
        g->nlefts = 0;
        list_lefts(g, a, g->root, 0, limit, 0, 0);
        g->lefts_depth = limit + 1;
        return;
    }
    const LeftPart *parts = g->lefts;
    const LeftPart *stack[MAXTILES + 1];
    int depth = 0;
    for (size_t m = 0; m < g->nlefts && !g->failed;) {
        const LeftPart *p = &parts[m];
        while (depth >= p->k && depth > 0) rack_take(g, stack[depth--], 0);
        if (p->k) {
            rack_take(g, p, 1);
            stack[++depth] = p;
            g->plet[p->k - 1] = p->letter;
            g->pblank[p->k - 1] = p->blank;
        }
        if (p->fit & g->cross[a]) from_left_part(g, a, p->node, p->k);
        m = p->k >= limit ? p->skip : m + 1;
    }
    while (depth > 0) rack_take(g, stack[depth--], 0);
}

/* -- one line ----------------------------------------------------------------------------- */

/* Cross-check bits, cross scores and cross-run length of the empty square `s` for plays whose
   main word runs along the line (the cross word runs the other way). */
static void cross_check(Gen *g, int i, int s) {
    const int nl = g->nl;
    int32_t *xs = g->xs + (size_t)i * (nl + 1);
    memset(xs, 0, sizeof(int32_t) * (nl + 1));
    g->xlen[i] = 1;
    if (g->blocked[s]) { g->cross[i] = 0; return; }
    int step, pos, limit;
    if (g->across) { step = g->cols; pos = s / g->cols; limit = g->rows; }
    else { step = 1; pos = s % g->cols; limit = g->cols; }
    int before[MAXLINE], after[MAXLINE], nb = 0, na = 0;
    int base = 0, hasbon = 0;
    for (int j = s, p = pos; p > 0 && g->cells[j - step] != NOLETTER; j -= step, p--) {
        before[nb++] = g->cells[j - step];
        base += g->face[j - step];
        hasbon |= g->oldbon[j - step];
    }
    for (int j = s, p = pos; p < limit - 1 && g->cells[j + step] != NOLETTER; j += step, p++) {
        after[na++] = g->cells[j + step];
        base += g->face[j + step];
        hasbon |= g->oldbon[j + step];
    }
    int prefix[MAXLINE];
    for (int k = 0; k < nb; k++) prefix[k] = before[nb - 1 - k];
    cross_word(g, i, s, prefix, nb, after, na, base, hasbon);
}

/* The cross-check of square i of the line (square s) between the letters prefix (nb of them,
   in reading order) and suffix (na): the letters that make a word there, and each one's cross
   score from the tiles' face values (base) and whether one shows the Bonus Letter. */
void cross_word(Gen *g, int i, int s, const int *prefix, int nb, const int *after, int na,
                int base, int hasbon) {
    const int nl = g->nl;
    int32_t *xs = g->xs + (size_t)i * (nl + 1);
    if (!nb && !na) { g->cross[i] = g->all_bits; return; }
    g->xlen[i] = nb + na + 1;
    uint64_t bits = 0, *slot = NULL;
    if (g->xc_keys && !g->wild_mode) {  /* a caller's cache (linecache.c) */
        slot = cross_cached(g, prefix, nb, after, na, &bits);
        if (!slot) goto scored;
    }
    int64_t node = g->wild_mode ? -1 : walk(g, g->root, prefix, nb);
    if (g->wild_mode) bits = wild_cross_bits(g, prefix, nb, after, na);
    if (node >= 0) {
        uint32_t e = g->first[node], end = g->first[node + 1];
        for (; e < end; e++) {
            int letter = g->elet[e];
            if (letter == NOLETTER) continue;
            int64_t last = walk(g, g->targets[e], after, na);
            if (last >= 0 && g->terminal[last]) bits |= (uint64_t)1 << letter;
        }
    }
    if (slot) g->xc_bits[slot - g->xc_keys] = bits;
scored:
    g->cross[i] = bits;
    const int factor = g->xf[s];
    for (int l = 0; l < nl; l++)
        xs[l] = (base + nv_of(g, s, l) + ((hasbon || l == g->bonus) ? g->bp : 0)) * factor;
    xs[nl] = (base + (hasbon ? g->bp : 0)) * factor;
}

/* The longest left part before anchor a: its free squares (empty, open, no anchor), at most
   the tiles on the rack but one. */
static int left_limit(const Gen *g, int a) {
    int limit = 0;
    for (int j = a - 1; j >= 0 && g->let[j] < 0 && !g->blocked[g->sq[j]] && !g->anchor[j]; j--)
        limit++;
    return limit > g->tiles - 1 ? g->tiles - 1 : limit;
}

/* Every move whose main word lies on the line g->sq[0..g->n-1], read g->across. */
void run_line(Gen *g) {
    const int n = g->n;
    int any = 0;
    for (int i = 0; i < n; i++) {
        int s = g->sq[i];
        g->let[i] = g->cells[s] == NOLETTER ? -1 : g->cells[s];
        g->anchor[i] = g->board_anchor[s];
        any |= g->anchor[i];
    }
    if (!any) return;
    for (int i = 0; i < n; i++) {
        if (g->let[i] >= 0) { g->cross[i] = 0; g->xlen[i] = 1; }
        else if (g->partner) portal_cross_check(g, i, g->sq[i]);
        else cross_check(g, i, g->sq[i]);
    }
    if (g->partner) portal_relax(g);
    for (int a = 0; a < n && !g->failed; a++) {
        if (!g->anchor[a] || !g->cross[a]) continue;
        g->anchor_i = a;
        if (g->wild_mode) {
            wild_from_anchor(g, a, left_limit(g, a));
            continue;
        }
        if (a > 0 && g->let[a - 1] >= 0) {
            int start = a - 1;
            while (start > 0 && g->let[start - 1] >= 0) start--;
            int msum = 0, bon = 0;
            int64_t node = g->root;
            for (int j = start; j < a && node >= 0; j++) {
                node = child_of(g, (uint32_t)node, g->let[j]);
                msum += g->face[g->sq[j]];
                bon |= g->oldbon[g->sq[j]];
            }
            if (node < 0) continue;
            g->start = start;
            g->np = 0;
            extend(g, a, (uint32_t)node, msum, g->additive ? 0 : 1, bon, 0, 0);
            continue;
        }
        left_parts(g, a, left_limit(g, a));
    }
}

static void generate_line(Gen *g, int across, int k) {
    g->across = across;
    g->n = across ? g->cols : g->rows;
    for (int i = 0; i < g->n; i++) g->sq[i] = across ? k * g->cols + i : i * g->cols + k;
    run_line(g);
}

void find_anchors(Gen *g, int opening, int start) {
    if (g->partner && !opening) { portal_anchors(g); return; }
    const int rows = g->rows, cols = g->cols, size = rows * cols;
    const uint8_t *cells = g->cells;
    for (int i = 0; i < size; i++) {
        if (opening) {
            g->board_anchor[i] = start < 0 ? !g->blocked[i] : i == start;
            continue;
        }
        if (cells[i] != NOLETTER || g->blocked[i]) { g->board_anchor[i] = 0; continue; }
        if (g->freestart[i]) { g->board_anchor[i] = 1; continue; }
        int r = i / cols, c = i % cols;
        g->board_anchor[i] = (r > 0 && cells[i - cols] != NOLETTER)
            || (r < rows - 1 && cells[i + cols] != NOLETTER)
            || (c > 0 && cells[i - 1] != NOLETTER)
            || (c < cols - 1 && cells[i + 1] != NOLETTER);
    }
}

/* -- the opening's symmetry ------------------------------------------------------------ */

/* Whether every per-square table reads the same on square (r, c) as on (c, r) and the start
   square, if any, lies on that diagonal. Then an empty board's down plays are its across plays
   transposed, with the same scores, and the down pass need not be searched. */
static int transposable(const Gen *g, int start) {
    const int n = g->cols;
    if (g->rows != n || (start >= 0 && start / n != start % n)) return 0;
    const size_t row = sizeof(int32_t) * (size_t)g->nl;
    for (int r = 0; r < n; r++)
        for (int c = r + 1; c < n; c++) {
            const int s = r * n + c, t = c * n + r;
            if (g->wm[s] != g->wm[t] || g->xf[s] != g->xf[t] || g->blocked[s] != g->blocked[t]
                || g->freestart[s] != g->freestart[t]
                || memcmp(g->nv + (size_t)s * g->nl, g->nv + (size_t)t * g->nl, row))
                return 0;
        }
    return 1;
}

/* The down plays of a transposable empty board: the across plays found, transposed. (Every
   opening play has two tiles or more, so its direction is the line it was found on.) */
static void add_transposed(Gen *g) {
    const size_t across = g->nfound;
    const int n = g->cols;
    for (size_t m = 0; m < across; m++) {
        Found *f = new_found(g); /* may move g->found: index it afresh */
        if (!f) return;
        *f = g->found[m];
        f->across = 0;
        for (int k = 0; k < f->nt; k++) f->sq[k] = (uint16_t)((f->sq[k] % n) * n + f->sq[k] / n);
    }
}

/* Every plain move of the rack (no portals): the anchors, then each row and column. The
   caller sets up g (board, tables, rack, buffers); the moves land in g->found. */
void generate_plain(Gen *g, int opening, int start) {
    g->lefts_depth = 0; /* a new rack: its left parts are listed afresh */
    find_anchors(g, opening, start);
    for (int across = 1; across >= 0; across--)
        for (int k = 0; k < (across ? g->rows : g->cols) && !g->failed; k++) {
            uint64_t key = 0;
            if (g->lines && line_cached(g, across, k, opening, &key)) continue;
            const size_t before = g->nfound;
            generate_line(g, across, k);
            if (g->lines && !g->failed) line_store(g, key, before);
        }
}

/* -- canonical order: score (best first), then the tiles as Python compares the tuples ------ */

/* the full order: score (best first), then the tiles as Python compares the tuples, the
   letters by their code points `codes` */
int compare_moves(const Found *a, const Found *b, const Py_UCS4 *sort_codes) {
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    int n = a->nt < b->nt ? a->nt : b->nt;
    for (int k = 0; k < n; k++) {
        if (a->sq[k] != b->sq[k]) return a->sq[k] < b->sq[k] ? -1 : 1;
        Py_UCS4 ca = sort_codes[a->let[k]], cb = sort_codes[b->let[k]];
        if (ca != cb) return ca < cb ? -1 : 1;
        if (a->blank[k] != b->blank[k]) return a->blank[k] < b->blank[k] ? -1 : 1;
    }
    return a->nt < b->nt ? -1 : (a->nt > b->nt ? 1 : 0);
}


/* The fields of a generation's sort key: two tiles of (square, letter rank, blank) below the
   score's distance from the best score, each as wide as the position needs (so fewer radix
   passes). */
typedef struct {
    int rank_bits, tile_bits, score_bits, max_score;
} KeyShape;

static int bit_length(uint64_t v) {
    int bits = 0;
    while (v) { bits++; v >>= 1; }
    return bits;
}

/* Sort by key (LSD radix over `bits` bits, in passes of at most 11 bits), then each run of
   equal keys by the full order (insertion: such runs are short). Returns 0 when out of
   memory. */
static int sort_items(SortItem *items, size_t n, const Found *found, const Py_UCS4 *codes,
                      int bits) {
    SortItem *tmp = malloc(sizeof(SortItem) * (n + 1));
    if (!tmp) return 0;
    SortItem *src = items, *dst = tmp;
    size_t count[2048];
    const int passes = bits < 1 ? 1 : (bits + 10) / 11, width = (bits + passes - 1) / passes;
    const uint64_t digits = (uint64_t)1 << (width < 1 ? 1 : width), mask = digits - 1;
    for (int shift = 0; shift < bits; shift += width) {
        memset(count, 0, sizeof(size_t) * digits);
        for (size_t m = 0; m < n; m++) count[(src[m].key >> shift) & mask]++;
        if (count[(src[0].key >> shift) & mask] == n) continue; /* one digit everywhere */
        size_t total = 0;
        for (uint64_t d = 0; d < digits; d++) {
            size_t c = count[d];
            count[d] = total;
            total += c;
        }
        for (size_t m = 0; m < n; m++) dst[count[(src[m].key >> shift) & mask]++] = src[m];
        SortItem *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != items) memcpy(items, src, sizeof(SortItem) * n);
    free(tmp);
    for (size_t m = 1; m < n; m++) {
        if (items[m].key != items[m - 1].key) continue;
        SortItem item = items[m];
        size_t j = m;
        while (j > 0 && items[j - 1].key == item.key
               && compare_moves(&found[items[j - 1].index], &found[item.index], codes) > 0) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = item;
    }
    return 1;
}

/* A fixed-shape key (the end-game search's: any position of up to 512 squares and 63
   letters) that never contradicts the full order. */
uint64_t sort_key(const Found *f, const uint8_t *rank) {
    uint64_t score = f->score < 0 ? 0 : (f->score > 0xFFFFF ? 0xFFFFF : (uint64_t)f->score);
    uint64_t key = (0xFFFFF - score) << 38;
    for (int k = 0; k < 2 && k < f->nt; k++) {
        uint64_t tile = ((uint64_t)f->sq[k] << 7) | ((uint64_t)rank[f->let[k]] << 1) | f->blank[k];
        key |= tile << (19 * (1 - k));
    }
    return key;
}

/* The key's fields for this generation, clamped to what is left of 64 bits (clamped keys
   tie: the full order decides). */
static KeyShape key_shape(const Gen *g) {
    KeyShape shape;
    int lo = 0, hi = 0;
    for (size_t m = 0; m < g->nfound; m++) {
        int score = g->found[m].score;
        if (m == 0 || score < lo) lo = score;
        if (m == 0 || score > hi) hi = score;
    }
    shape.rank_bits = bit_length((uint64_t)g->nl);  /* a rank is at most nl */
    shape.tile_bits = bit_length((uint64_t)(g->rows * g->cols - 1)) + shape.rank_bits + 1;
    shape.max_score = hi;
    shape.score_bits = bit_length((uint64_t)((int64_t)hi - lo));
    if (shape.score_bits > 64 - 2 * shape.tile_bits) shape.score_bits = 64 - 2 * shape.tile_bits;
    return shape;
}

static uint64_t shaped_key(const Found *f, const uint8_t *rank, const KeyShape *shape) {
    const int tb = shape->tile_bits;
    const uint64_t most = ((uint64_t)1 << shape->score_bits) - 1;
    uint64_t distance = (uint64_t)((int64_t)shape->max_score - f->score);
    uint64_t key = (distance > most ? most : distance) << (2 * tb);
    for (int k = 0; k < 2 && k < f->nt; k++) {
        uint64_t tile = ((uint64_t)f->sq[k] << (shape->rank_bits + 1))
                        | ((uint64_t)rank[f->let[k]] << 1) | f->blank[k];
        key |= tile << (tb * (1 - k));
    }
    return key;
}

/* -- Python glue -------------------------------------------------------------------------- */

typedef struct {
    Py_buffer first, targets, terminal, elet, kids, faces, nv, wm, xf, blocked, freestart, bingo,
        counts;
} Buffers;

/* The board from the cells tuple (None, or a tile whose items 0 and 1 are its letter and
   whether it is a blank): letter index per square (NOLETTER: empty), the face value of its tile
   (faces[2 * letter + blank], the bridge's tile_value per letter and blank) and whether it shows
   the Bonus Letter. Returns 1, 0 when a tile's letter is not among `codes` (the position goes
   to the Python generator), -1 on a malformed tile (exception set). *empty: no tile at all. */
static int read_cells(Gen *g, PyObject *cells, const Py_UCS4 *codes, const int32_t *faces,
                      uint8_t *board, int32_t *face, uint8_t *oldbon, int *empty) {
    const Py_ssize_t size = (Py_ssize_t)g->rows * g->cols;
    *empty = 1;
    for (Py_ssize_t s = 0; s < size; s++) {
        PyObject *tile = PyTuple_GET_ITEM(cells, s);
        board[s] = NOLETTER;
        face[s] = 0;
        oldbon[s] = 0;
        if (tile == Py_None) continue;
        *empty = 0;
        if (!PyTuple_Check(tile) || PyTuple_GET_SIZE(tile) < 2
            || !PyUnicode_Check(PyTuple_GET_ITEM(tile, 0))) {
            PyErr_SetString(PyExc_TypeError, "native movegen: a cell is neither None nor a tile");
            return -1;
        }
        PyObject *letter = PyTuple_GET_ITEM(tile, 0), *flag = PyTuple_GET_ITEM(tile, 1);
        if (PyUnicode_GET_LENGTH(letter) != 1) return 0;
        const Py_UCS4 code = PyUnicode_READ_CHAR(letter, 0);
        int k = 0;
        while (k <= g->nl && codes[k] != code) k++;
        if (k > g->nl) return 0;  /* a letter outside the tile set */
        const int blank = flag == Py_True ? 1 : flag == Py_False ? 0 : PyObject_IsTrue(flag);
        if (blank < 0) return -1;
        board[s] = (uint8_t)k;
        face[s] = faces[2 * k + blank];
        oldbon[s] = k == g->bonus && !blank;
    }
    return 1;
}

static int need(Py_buffer *b, Py_ssize_t bytes, const char *name) {
    if (b->len < bytes) {
        PyErr_Format(PyExc_ValueError, "native movegen: %s holds %zd bytes, needs %zd", name,
                     b->len, bytes);
        return 0;
    }
    return 1;
}

/* A new Move (a tuple subclass of 4 items) whose items the caller sets, all of them, before
   anything else runs. Not tracked by the cyclic collector: its items (an int, a tuple of
   untracked tile tuples, a bool, an int) never form a cycle. Through tp_alloc it would be
   zeroed and tracked only to be untracked again (a tenth of the output's cost); CPython 3.14
   gives tuples a cached hash that tp_alloc initialises, so there tp_alloc it is. */
static PyObject *new_move(PyTypeObject *type) {
#if PY_VERSION_HEX < 0x030E0000
    if (type->tp_itemsize == sizeof(PyObject *)
        && type->tp_basicsize == PyTuple_Type.tp_basicsize && (type->tp_flags & Py_TPFLAGS_HAVE_GC)
        && type->tp_dictoffset == 0 && type->tp_weaklistoffset == 0)
        return (PyObject *)PyObject_GC_NewVar(PyObject, type, 4);
#endif
    PyObject *move = type->tp_alloc(type, 4);
    if (move) PyObject_GC_UnTrack(move);
    return move;
}

/* The (square, letter, blank) tuples already made in this call, by square, letter and blank:
   kept between calls (only the entries made are cleared), so a call does not zero a table of
   rows x cols x letters x 2 pointers. */
static PyObject **tile_slots;
static size_t tile_cap;
static uint32_t *tile_made;

/* The first `count` moves of `order` (at most g->nfound) as a list of Moves. */
static PyObject *build_moves(Gen *g, const uint32_t *order, size_t count, PyObject *letters,
                             PyObject *move_type) {
    const int nl = g->nl, size = g->rows * g->cols;
    const size_t slots = (size_t)size * (nl + 1) * 2;
    if (count > g->nfound) count = g->nfound;
    PyObject *out = PyList_New((Py_ssize_t)count);
    if (!out) return NULL;
    if (slots > tile_cap) {
        PyObject **more = calloc(slots, sizeof(PyObject *));
        uint32_t *made = malloc(sizeof(uint32_t) * slots);
        if (!more || !made) {
            free(more);
            free(made);
            Py_DECREF(out);
            return PyErr_NoMemory();
        }
        free(tile_slots);
        free(tile_made);
        tile_slots = more;
        tile_made = made;
        tile_cap = slots;
    }
    PyObject **tiles = tile_slots;
    size_t nmade = 0;
    PyObject *cols = PyLong_FromLong(g->cols);
    PyTypeObject *type = (PyTypeObject *)move_type;
    if (!cols) goto fail;
    for (size_t m = 0; m < count; m++) {
        Found *f = &g->found[order[m]];
        PyObject *key = PyTuple_New(f->nt);
        if (!key) goto fail;
        for (int k = 0; k < f->nt; k++) {
            size_t slot = ((size_t)f->sq[k] * (nl + 1) + f->let[k]) * 2 + f->blank[k];
            PyObject *tile = tiles[slot];
            if (!tile) {
                PyObject *letter = PyTuple_GET_ITEM(letters, f->let[k]);
                tile = Py_BuildValue("(iOO)", (int)f->sq[k], letter,
                                     f->blank[k] ? Py_True : Py_False);
                if (!tile) { Py_DECREF(key); goto fail; }
                tiles[slot] = tile;
                tile_made[nmade++] = (uint32_t)slot;
                PyObject_GC_UnTrack(tile);
            }
            Py_INCREF(tile);
            PyTuple_SET_ITEM(key, k, tile);
        }
        /* ints, strs and bools only: never part of a cycle, so kept out of the collector's
           sight (CPython untracks such tuples itself, but only after scanning them once) */
        PyObject_GC_UnTrack(key);
        PyObject *score = PyLong_FromLong(f->score);
        if (!score) { Py_DECREF(key); goto fail; }
        PyObject *move = new_move(type);
        if (!move) { Py_DECREF(score); Py_DECREF(key); goto fail; }
        PyObject *across = f->across ? Py_True : Py_False;
        Py_INCREF(across);
        Py_INCREF(cols);
        PyTuple_SET_ITEM(move, 0, score);
        PyTuple_SET_ITEM(move, 1, key);
        PyTuple_SET_ITEM(move, 2, across);
        PyTuple_SET_ITEM(move, 3, cols);
        PyList_SET_ITEM(out, (Py_ssize_t)m, move);
    }
    for (size_t k = 0; k < nmade; k++) Py_CLEAR(tiles[tile_made[k]]);
    Py_DECREF(cols);
    return out;
fail:
    for (size_t k = 0; k < nmade; k++) Py_CLEAR(tiles[tile_made[k]]);
    Py_XDECREF(cols);
    Py_DECREF(out);
    return NULL;
}

PyDoc_STRVAR(generate_doc,
"generate(first, targets, terminal, edge_letters, kid_bits, root, rows, cols, cells, faces,\n"
"         new_value, word_mult, cross_factor, blocked, free_start, bingo, additive, bonus,\n"
"         bonus_points, counts, blanks, wildcards, first_min_tiles, start_rule, start, shown,\n"
"         move_type, portals=None, limit=-1, ordered=0) -> list of moves, best first, or None\n\n"
"Every legal play of the rack on the board (see engine/movegen/native_bridge.py for the arrays).\n"
"``cells``: the board's tuple (None or a tile: letter, blank, ...); ``faces``: int32 face value\n"
"per letter index and blank (2 * letter + blank); ``start_rule``: an empty board's first play\n"
"must cover ``start`` with at least ``first_min_tiles`` tiles.\n"
"``shown``: the tile letters, then the wildcard's '*' (letter index len(shown) - 1 on the board).\n"
"``portals``: None, or (partner, perp, squares, chains, judge) for open War of Words portal\n"
"pairs (portals.c). ``limit`` >= 0: only the first ``limit`` moves of that list.\n"
"``ordered``: kid_bits found the DAWG's edges in letter order (a letter's edge is then counted).\n"
"None: a tile's letter outside ``shown``, or node sets of wildcards too large; the Python\n"
"generator answers.");

static PyObject *py_generate(PyObject *self, PyObject *args) {
    Buffers b;
    memset(&b, 0, sizeof b);
    Gen g;
    memset(&g, 0, sizeof g);
    unsigned int root;
    int blanks, wilds, first_min, start_rule, start, opening = 0;
    PyObject *cells, *letters, *move_type, *portals = Py_None, *judge = NULL;
    Py_ssize_t limit = -1;
    uint8_t *board = NULL, *oldbon = NULL;
    int32_t *face = NULL;
    Py_buffer partner = {0}, perp = {0}, psq = {0}, pinfo = {0};
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*IiiO!y*y*y*y*y*y*y*iiiy*iiiiiO!O!|Oni:generate",
                          &b.first, &b.targets, &b.terminal, &b.elet, &b.kids, &root,
                          &g.rows, &g.cols, &PyTuple_Type, &cells, &b.faces, &b.nv, &b.wm, &b.xf,
                          &b.blocked, &b.freestart, &b.bingo, &g.additive, &g.bonus, &g.bp,
                          &b.counts, &blanks, &wilds, &first_min, &start_rule, &start,
                          &PyTuple_Type, &letters, &PyType_Type, &move_type, &portals, &limit,
                          &g.ordered))
        return NULL;
    PyObject *result = NULL;
    uint32_t *order = NULL;
    Py_buffer *all[] = {&b.first, &b.targets, &b.terminal, &b.elet, &b.kids, &b.faces, &b.nv,
                        &b.wm, &b.xf, &b.blocked, &b.freestart, &b.bingo, &b.counts};
    g.nl = (int)PyTuple_GET_SIZE(letters) - 1;
    const Py_ssize_t size = (Py_ssize_t)g.rows * g.cols;
    const Py_ssize_t nodes = b.terminal.len;
    if (g.rows < 1 || g.cols < 1 || g.rows > MAXLINE || g.cols > MAXLINE || g.nl < 1
        || g.nl >= MAXLETTERS || nodes < 1 || root >= (unsigned)nodes) {
        PyErr_SetString(PyExc_ValueError, "native movegen: board or alphabet out of range");
        goto done;
    }
    if (!need(&b.first, 4 * (nodes + 1), "first") || !need(&b.kids, 8 * nodes, "kid_bits")
        || !need(&b.faces, 8 * (g.nl + 1), "faces") || !need(&b.nv, 4 * size * g.nl, "new_value")
        || !need(&b.wm, 4 * size, "word_mult") || !need(&b.xf, 4 * size, "cross_factor")
        || !need(&b.blocked, size, "blocked") || !need(&b.freestart, size, "free_start")
        || !need(&b.counts, g.nl, "counts") || !need(&b.bingo, 4, "bingo"))
        goto done;
    g.first = b.first.buf;
    g.targets = b.targets.buf;
    g.terminal = b.terminal.buf;
    g.elet = b.elet.buf;
    g.kids = b.kids.buf;
    g.root = root;
    g.nv = b.nv.buf;
    g.wm = b.wm.buf;
    g.xf = b.xf.buf;
    g.blocked = b.blocked.buf;
    g.freestart = b.freestart.buf;
    g.bingo = b.bingo.buf;
    g.nbingo = (int)(b.bingo.len / 4);
    g.all_bits = g.nl == 64 ? ~(uint64_t)0 : (((uint64_t)1 << g.nl) - 1);
    g.blanks = blanks;
    g.wilds = wilds;
    g.wild_mode = wilds > 0;
    g.tiles = blanks + wilds;
    for (int l = 0; l < g.nl; l++) {
        g.counts[l] = ((const uint8_t *)b.counts.buf)[l];
        g.tiles += g.counts[l];
        if (g.counts[l]) g.lav |= (uint64_t)1 << l;
    }
    Py_UCS4 codes[MAXLETTERS + 1];
    for (int l = 0; l <= g.nl; l++) {
        PyObject *letter = PyTuple_GET_ITEM(letters, l);
        if (!PyUnicode_Check(letter) || PyUnicode_GET_LENGTH(letter) != 1) {
            PyErr_SetString(PyExc_ValueError, "native movegen: letters must be 1-character str");
            goto done;
        }
        codes[l] = PyUnicode_READ_CHAR(letter, 0);
    }
    if (PyTuple_GET_SIZE(cells) != size) {
        PyErr_SetString(PyExc_ValueError, "native movegen: cells is not rows x cols long");
        goto done;
    }
    board = malloc((size_t)size);
    oldbon = malloc((size_t)size);
    face = malloc(sizeof(int32_t) * (size_t)size);
    if (!board || !oldbon || !face) { PyErr_NoMemory(); goto done; }
    int empty;
    int read = read_cells(&g, cells, codes, b.faces.buf, board, face, oldbon, &empty);
    if (read < 0) goto done;
    if (read == 0) { /* a letter outside the tile set: the Python generator answers */
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    g.cells = board;
    g.face = face;
    g.oldbon = oldbon;
    for (Py_ssize_t s = 0; s < size; s++) g.wild_mode |= board[s] == g.nl;
    opening = empty && start_rule;
    g.min_tiles = opening ? first_min : 1;
    if (g.tiles >= MAXTILES || g.tiles >= g.nbingo) {
        PyErr_SetString(PyExc_ValueError, "native movegen: too many tiles on the rack");
        goto done;
    }
    Py_ssize_t chains = 0;
    if (portals != Py_None) {
        if (!PyArg_ParseTuple(portals, "y*y*y*y*O:portals", &partner, &perp, &psq, &pinfo, &judge))
            goto done;
        chains = pinfo.len / (4 * 4);
        const int32_t *info = pinfo.buf, *sqs = psq.buf;
        if (!need(&partner, 4 * size, "partner") || !need(&perp, 8 * size, "perp"))
            goto done;
        for (Py_ssize_t c = 0; c < chains; c++) {
            const int32_t *ci = info + 4 * c;
            if (ci[1] < 1 || ci[1] > MAXSPAN || ci[0] < 0 || (ci[0] + ci[1]) * 4 > psq.len) {
                PyErr_SetString(PyExc_ValueError, "native movegen: a portal line out of range");
                goto done;
            }
            for (int32_t k = 0; k < ci[1]; k++)
                if (sqs[ci[0] + k] < 0 || sqs[ci[0] + k] >= size) {
                    PyErr_SetString(PyExc_ValueError, "native movegen: a portal square off the board");
                    goto done;
                }
        }
        g.partner = partner.buf;
        g.perp = perp.buf;
        g.relaxed = calloc((size_t)size, 1);
        if (!g.relaxed) { PyErr_NoMemory(); goto done; }
    }
    result = PyList_New(0);
    if (g.tiles == 0) goto done;
    Py_CLEAR(result);
    g.xs = malloc(sizeof(int32_t) * MAXSPAN * (g.nl + 1));
    g.board_anchor = malloc((size_t)size);
    if (!g.xs || !g.board_anchor) { PyErr_NoMemory(); goto done; }
    if (g.wild_mode) {
        g.nodes = (size_t)nodes;
        if (!wild_init(&g)) { PyErr_NoMemory(); goto done; }
    }
    find_anchors(&g, opening, start);
    Py_BEGIN_ALLOW_THREADS
    if (g.partner) {
        portal_lines(&g, psq.buf, pinfo.buf, chains);
    } else if (opening && transposable(&g, start)) {
        for (int k = 0; k < g.rows && !g.failed; k++) generate_line(&g, 1, k);
        if (!g.failed) add_transposed(&g);
    } else {
        for (int k = 0; k < g.rows && !g.failed; k++) generate_line(&g, 1, k);
        for (int k = 0; k < g.cols && !g.failed; k++) generate_line(&g, 0, k);
    }
    Py_END_ALLOW_THREADS
    if (g.failed == 3) { /* node sets too large: the Python generator answers */
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    if (g.failed) {
        if (g.failed == 2) PyErr_NoMemory();
        else PyErr_SetString(PyExc_ValueError, "native movegen: a move past the bingo table");
        goto done;
    }
    if (g.partner && !portal_finish(&g, judge, letters)) goto done;
    {
        uint8_t rank[MAXLETTERS + 1];
        for (int l = 0; l <= g.nl; l++) {
            rank[l] = 0;
            for (int m = 0; m <= g.nl; m++) rank[l] += codes[m] < codes[l];
        }
        order = malloc(sizeof(uint32_t) * (g.nfound + 1));
        if (!order) { PyErr_NoMemory(); goto done; }
        if (limit == 1 && g.nfound > 1) { /* the best move alone: one pass, no sort */
            size_t best = 0;
            for (size_t m = 1; m < g.nfound; m++)
                if (compare_moves(&g.found[m], &g.found[best], codes) < 0) best = m;
            order[0] = (uint32_t)best;
            goto built;
        }
        SortItem *items = malloc(sizeof(SortItem) * (g.nfound + 1));
        if (!items) { PyErr_NoMemory(); goto done; }
        const KeyShape shape = key_shape(&g);
        for (size_t m = 0; m < g.nfound; m++) {
            items[m].key = shaped_key(&g.found[m], rank, &shape);
            items[m].index = (uint32_t)m;
        }
        int sorted = g.nfound < 2
                     || sort_items(items, g.nfound, g.found, codes,
                                   shape.score_bits + 2 * shape.tile_bits);
        if (!sorted) { free(items); PyErr_NoMemory(); goto done; }
        for (size_t m = 0; m < g.nfound; m++) order[m] = items[m].index;
        free(items);
    }
built:
    {
        /* tens of thousands of new tuples, none in a cycle: no collection while building */
        int collecting = PyGC_Disable();
        result = build_moves(&g, order, limit < 0 ? g.nfound : (size_t)limit, letters, move_type);
        if (collecting) PyGC_Enable();
    }
done:
    free(board);
    free(oldbon);
    free(face);
    free(order);
    free(g.found);
    free(g.xs);
    free(g.lefts);
    free(g.board_anchor);
    wild_free(&g);
    free(g.relaxed);
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        if (all[k]->obj) PyBuffer_Release(all[k]);
    Py_buffer *more[] = {&partner, &perp, &psq, &pinfo};
    for (size_t k = 0; k < sizeof more / sizeof more[0]; k++)
        if (more[k]->obj) PyBuffer_Release(more[k]);
    return result;
}

PyDoc_STRVAR(kid_bits_doc,
"kid_bits(first, edge_letters, out) -> bool\n\n"
"Fill ``out`` (8 bytes per node) with the bitset of the tile letters leaving each node. True\n"
"when every node's edges come in ascending letter order, any edge of no tile letter last: then\n"
"``generate(..., ordered=1)`` finds a letter's edge by counting the node's letters before it.");

static PyObject *py_kid_bits(PyObject *self, PyObject *args) {
    Py_buffer first, elet, out;
    if (!PyArg_ParseTuple(args, "y*y*w*:kid_bits", &first, &elet, &out)) return NULL;
    Py_ssize_t nodes = out.len / 8;
    PyObject *result = NULL;
    if (first.len < 4 * (nodes + 1)) {
        PyErr_SetString(PyExc_ValueError, "kid_bits: first is shorter than the node count");
        goto done;
    }
    const uint32_t *f = first.buf;
    const uint8_t *l = elet.buf;
    uint64_t *o = out.buf;
    if ((Py_ssize_t)f[nodes] > elet.len) {
        PyErr_SetString(PyExc_ValueError, "kid_bits: edge_letters is shorter than the edges");
        goto done;
    }
    int ordered = 1;
    for (Py_ssize_t n = 0; n < nodes; n++) {
        uint64_t bits = 0;
        int last = -1;
        for (uint32_t e = f[n]; e < f[n + 1]; e++) {
            if (l[e] != NOLETTER) bits |= (uint64_t)1 << l[e];
            /* ascending letters, then any NOLETTER edges */
            if (l[e] != NOLETTER && (int)l[e] <= last) ordered = 0;
            last = l[e];
        }
        o[n] = bits;
    }
    result = PyBool_FromLong(ordered);
done:
    PyBuffer_Release(&first);
    PyBuffer_Release(&elet);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"generate", py_generate, METH_VARARGS, generate_doc},
    {"kid_bits", py_kid_bits, METH_VARARGS, kid_bits_doc},
    {"endgame_search", py_endgame_search, METH_VARARGS, endgame_search_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "native_core",
    "The native move-generation core (engine/movegen/native/movegen.c).", -1, methods,
};

PyMODINIT_FUNC PyInit_native_core(void) { return PyModule_Create(&module); }
