/*
 * War of Words wildcards in the native core: a wildcard shows "*" and stands for any letter in
 * each word it is part of, so one placement is one move however many letters would make the
 * words. As in engine/movegen/wildcards.py, the search then walks *sets* of DAWG nodes: a tile
 * moves every node of the set along its letter, a wildcard (placed, or on the board) moves it
 * along every tile letter, and a word ends where any node of the set ends one. A placement is
 * thus walked once from its leftmost anchor, so no move is found twice.
 *
 * The same sets recur from anchor to anchor and line to line (the set after "*", after "*E",
 * ...), and stepping a set is most of the work of such a generation (measured: 70 % of the C
 * call with two wildcards). So each set is *interned* for the whole generation: stored once,
 * named by a number, with its child letters and whether it ends a word kept beside it, and
 * each step of a set by a letter is computed once and remembered (WildSets.memo), as
 * wildcards.py keeps its steps. Set 0 is the empty set. When the sets would outgrow
 * MAX_SET_NODES, Gen.failed = 3 and the position goes back to the Python generator
 * (engine/movegen/native_bridge.py; never seen in the tests).
 */
#include "movegen.h"

#define NOSET UINT32_MAX          /* a step not computed yet */
#define MAX_SET_NODES (1u << 24)  /* nodes over all sets of one generation */

typedef struct {
    uint32_t off, count;  /* its nodes: WildSets.nodes[off .. off + count - 1], ascending */
    uint32_t hash;
    uint8_t term;         /* some node ends a word */
    uint64_t kids;        /* the tile letters leaving some node */
} SetInfo;

struct WildSets {
    uint32_t *nodes;                 /* every set's nodes, one set after another */
    size_t nnodes, capnodes;
    SetInfo *sets;
    uint32_t nsets, capsets;
    uint32_t *memo;                  /* [set * (nl + 1) + letter]: the set reached; nl: any */
    uint32_t *table;                 /* open addressing: set numbers, 0 = free */
    uint32_t tcap;                   /* a power of two */
    uint32_t *stamp;                 /* per DAWG node: the step that holds it already */
    uint32_t stamp_now;
    uint32_t *scratch;               /* the step being built */
    size_t capscratch;
    uint32_t root;                   /* the set {root} */
};

static uint32_t single(Gen *g, uint32_t node);

int wild_init(Gen *g) {
    struct WildSets *w = calloc(1, sizeof *w);
    if (!w) return 0;
    g->ws = w;
    w->capnodes = 1 << 12;
    w->capsets = 1 << 10;
    w->tcap = 1 << 11;
    w->capscratch = 1 << 10;
    w->nodes = malloc(sizeof(uint32_t) * w->capnodes);
    w->sets = malloc(sizeof(SetInfo) * w->capsets);
    w->memo = malloc(sizeof(uint32_t) * w->capsets * (g->nl + 1));
    w->table = calloc(w->tcap, sizeof(uint32_t));
    w->stamp = calloc(g->nodes, sizeof(uint32_t));
    w->scratch = malloc(sizeof(uint32_t) * w->capscratch);
    if (!w->nodes || !w->sets || !w->memo || !w->table || !w->stamp || !w->scratch) return 0;
    /* set 0: the empty set, which every step leaves empty */
    memset(&w->sets[0], 0, sizeof(SetInfo));
    for (int l = 0; l <= g->nl; l++) w->memo[l] = 0;
    w->nsets = 1;
    w->root = single(g, g->root);
    return !g->failed;
}

void wild_free(Gen *g) {
    struct WildSets *w = g->ws;
    if (!w) return;
    free(w->nodes);
    free(w->sets);
    free(w->memo);
    free(w->table);
    free(w->stamp);
    free(w->scratch);
    free(w);
    g->ws = NULL;
}

static uint32_t hash_nodes(const uint32_t *nodes, uint32_t n) {
    uint32_t h = 2166136261u;
    for (uint32_t k = 0; k < n; k++) h = (h ^ nodes[k]) * 16777619u;
    return h ? h : 1;
}

static int by_node(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int grow_table(struct WildSets *w) {
    uint32_t cap = w->tcap * 2, *table = calloc(cap, sizeof(uint32_t));
    if (!table) return 0;
    for (uint32_t id = 1; id < w->nsets; id++) {
        uint32_t pos = w->sets[id].hash & (cap - 1);
        while (table[pos]) pos = (pos + 1) & (cap - 1);
        table[pos] = id;
    }
    free(w->table);
    w->table = table;
    w->tcap = cap;
    return 1;
}

/* The number of the set of the n nodes in `nodes` (distinct; sorted here), stored if new. */
static uint32_t intern(Gen *g, uint32_t *nodes, uint32_t n) {
    struct WildSets *w = g->ws;
    if (!n) return 0;
    if (n < 16) { /* most sets are small */
        for (uint32_t k = 1; k < n; k++) {
            uint32_t v = nodes[k], j = k;
            for (; j > 0 && nodes[j - 1] > v; j--) nodes[j] = nodes[j - 1];
            nodes[j] = v;
        }
    } else {
        qsort(nodes, n, sizeof(uint32_t), by_node);
    }
    const uint32_t h = hash_nodes(nodes, n);
    uint32_t pos = h & (w->tcap - 1);
    for (uint32_t id; (id = w->table[pos]); pos = (pos + 1) & (w->tcap - 1)) {
        const SetInfo *s = &w->sets[id];
        if (s->hash == h && s->count == n && !memcmp(w->nodes + s->off, nodes, 4 * (size_t)n))
            return id;
    }
    if (w->nnodes + n > MAX_SET_NODES) { g->failed = 3; return 0; }
    if (w->nnodes + n > w->capnodes) {
        size_t cap = w->capnodes;
        while (cap < w->nnodes + n) cap *= 2;
        uint32_t *more = realloc(w->nodes, sizeof(uint32_t) * cap);
        if (!more) { g->failed = 2; return 0; }
        w->nodes = more;
        w->capnodes = cap;
    }
    if (w->nsets == w->capsets) {
        uint32_t cap = w->capsets * 2;
        SetInfo *sets = realloc(w->sets, sizeof(SetInfo) * cap);
        if (sets) w->sets = sets;
        uint32_t *memo = sets ? realloc(w->memo, sizeof(uint32_t) * cap * (g->nl + 1)) : NULL;
        if (!memo) { g->failed = 2; return 0; }
        w->memo = memo;
        w->capsets = cap;
    }
    const uint32_t id = w->nsets++;
    SetInfo *s = &w->sets[id];
    s->off = (uint32_t)w->nnodes;
    s->count = n;
    s->hash = h;
    s->term = 0;
    s->kids = 0;
    for (uint32_t k = 0; k < n; k++) {
        w->nodes[w->nnodes++] = nodes[k];
        s->term |= g->terminal[nodes[k]];
        s->kids |= g->kids[nodes[k]];
    }
    memset(w->memo + (size_t)id * (g->nl + 1), 0xFF, sizeof(uint32_t) * (g->nl + 1));
    w->table[pos] = id; /* the free slot the search above ended on */
    /* keep the table at most half full */
    if (2 * (size_t)w->nsets > w->tcap && !grow_table(w)) { g->failed = 2; return 0; }
    return id;
}

static uint32_t single(Gen *g, uint32_t node) {
    uint32_t one = node;
    return intern(g, &one, 1);
}

/* The set `id` moved along `letter` (g->nl: along every tile letter): computed once per
   generation, then remembered. */
static uint32_t step(Gen *g, uint32_t id, int letter) {
    struct WildSets *w = g->ws;
    const size_t slot = (size_t)id * (g->nl + 1) + letter;
    if (w->memo[slot] != NOSET) return w->memo[slot];
    if (++w->stamp_now == 0) { /* wrapped: forget every mark */
        memset(w->stamp, 0, sizeof(uint32_t) * g->nodes);
        w->stamp_now = 1;
    }
    const uint32_t mark = w->stamp_now;
    const int any = letter == g->nl;
    const SetInfo s = w->sets[id];
    uint32_t n = 0;
    for (uint32_t k = 0; k < s.count; k++) {
        uint32_t node = w->nodes[s.off + k];
        uint32_t e = g->first[node], end = g->first[node + 1];
        for (; e < end; e++) {
            int l = g->elet[e];
            if (l == NOLETTER || (!any && l != letter)) continue;
            uint32_t child = g->targets[e];
            if (w->stamp[child] == mark) continue;
            w->stamp[child] = mark;
            if (n == w->capscratch) {
                uint32_t *more = realloc(w->scratch, sizeof(uint32_t) * w->capscratch * 2);
                if (!more) { g->failed = 2; return 0; }
                w->scratch = more;
                w->capscratch *= 2;
            }
            w->scratch[n++] = child;
        }
    }
    const uint32_t out = intern(g, w->scratch, n);
    if (g->failed) return 0;
    w->memo[slot] = out; /* memo may have moved while interning: indexed afresh */
    return out;
}

static inline uint64_t kids_of(const Gen *g, uint32_t id) { return g->ws->sets[id].kids; }

static inline int ends_word(const Gen *g, uint32_t id) { return g->ws->sets[id].term; }

/* Cross-check bits: the tile letters L such that prefix + L + suffix is a word, wildcards in
   prefix and suffix (letter nl) standing for any letter. */
uint64_t wild_cross_bits(Gen *g, const int *prefix, int nb, const int *suffix, int na) {
    uint32_t p = g->ws->root;
    for (int k = 0; k < nb && p; k++) p = step(g, p, prefix[k]);
    uint64_t bits = 0, kids = kids_of(g, p);
    for (int l = 0; l < g->nl && !g->failed; l++) {
        if (!((kids >> l) & 1)) continue;
        /* the union of the children by l: a word ends after the suffix from any of them */
        uint32_t q = step(g, p, l);
        for (int j = 0; j < na && q; j++) q = step(g, q, suffix[j]);
        if (q && ends_word(g, q)) bits |= (uint64_t)1 << l;
    }
    return bits;
}

/* Extend right from square i of the line with the node set `set` (as extend in movegen.c). */
static void extend(Gen *g, int i, uint32_t set, int msum, int wf, int bon, int xsum, int nt) {
    const int n = g->n, nl = g->nl;
    while (i < n && g->let[i] >= 0) {
        set = step(g, set, g->let[i]);
        if (!set) return;
        msum += g->face[g->sq[i]];
        bon |= g->oldbon[g->sq[i]];
        i++;
    }
    if (i > g->anchor_i && ends_word(g, set)) record(g, i, nt, msum, wf, bon, xsum);
    if (i == n || nt >= g->tiles || g->failed) return;
    const uint64_t kids = kids_of(g, set), cs = g->cross[i];
    const uint64_t fit = kids & cs & (g->blanks ? g->all_bits : g->lav);
    const int wild_here = g->wilds && cs && kids; /* some letter fits across: a wildcard does */
    if (!fit && !wild_here) return;
    const int s = g->sq[i];
    const int32_t *xs = g->xs + (size_t)i * (nl + 1);
    const int32_t *nv = g->nv + (size_t)s * nl;
    const int nwf = g->additive ? wf + g->wm[s] : wf * g->wm[s];
    const int np = g->np++;
    g->psq[np] = s;
    for (int letter = 0; letter < nl && !g->failed; letter++) {
        const uint64_t bit = (uint64_t)1 << letter;
        if (!(fit & bit)) continue;
        const uint32_t child = step(g, set, letter);
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
    if (wild_here && !g->failed) {
        const uint32_t child = step(g, set, nl);
        g->wilds--;
        g->plet[np] = nl;
        g->pblank[np] = 0;
        /* a wildcard is worth 0 and never the Bonus Letter; its cross word scores as a blank */
        extend(g, i + 1, child, msum, nwf, bon, xsum + xs[nl], nt + 1);
        g->wilds++;
    }
    g->np = np;
}

/* Extend from anchor a after the left part in psq/plet/pblank[0..k-1] (squares a-k..a-1). */
static void from_left_part(Gen *g, int a, uint32_t set, int k) {
    int msum = 0, wf = g->additive ? 0 : 1, bon = 0;
    for (int j = 0; j < k; j++) {
        int s = g->sq[a - k + j], letter = g->plet[j];
        g->psq[j] = s;
        if (!g->pblank[j] && letter < g->nl) {
            msum += g->nv[(size_t)s * g->nl + letter];
            bon |= letter == g->bonus;
        }
        wf = g->additive ? wf + g->wm[s] : wf * g->wm[s];
    }
    g->start = a - k;
    g->np = k;
    extend(g, a, set, msum, wf, bon, 0, k);
}

/* what the rack can play now: every letter while a blank or a wildcard is left */
static inline uint64_t playable(const Gen *g) {
    return g->blanks || g->wilds ? g->all_bits : g->lav;
}

static void left_parts(Gen *g, int a, uint32_t set, int k, int limit) {
    const uint64_t kids = kids_of(g, set);
    if ((kids & g->cross[a] & (g->blanks ? g->all_bits : g->lav)) || (g->wilds && g->cross[a] && kids))
        from_left_part(g, a, set, k);
    if (k >= limit || g->failed) return;
    const int nl = g->nl;
    for (int letter = 0; letter < nl && !g->failed; letter++) {
        const uint64_t bit = (uint64_t)1 << letter;
        if (!(kids & bit) || (!g->counts[letter] && !g->blanks)) continue;
        const uint32_t child = step(g, set, letter);
        const uint64_t next = kids_of(g, child);
        if (g->counts[letter]) {
            if (--g->counts[letter] == 0) g->lav &= ~bit;
            if (next & playable(g)) {
                g->plet[k] = letter;
                g->pblank[k] = 0;
                left_parts(g, a, child, k + 1, limit);
            }
            if (g->counts[letter]++ == 0) g->lav |= bit;
        }
        if (g->blanks) {
            g->blanks--;
            if (next & playable(g)) {
                g->plet[k] = letter;
                g->pblank[k] = 1;
                left_parts(g, a, child, k + 1, limit);
            }
            g->blanks++;
        }
    }
    if (g->wilds && kids && !g->failed) {
        const uint32_t child = step(g, set, nl);
        g->wilds--;
        if (kids_of(g, child) & playable(g)) {
            g->plet[k] = nl;
            g->pblank[k] = 0;
            left_parts(g, a, child, k + 1, limit);
        }
        g->wilds++;
    }
}

/* Every move from anchor a of the line in hand: after the tiles left of it, or after every
   left part of up to `limit` rack tiles. */
void wild_from_anchor(Gen *g, int a, int limit) {
    uint32_t set = g->ws->root;
    if (a > 0 && g->let[a - 1] >= 0) {
        int start = a - 1;
        while (start > 0 && g->let[start - 1] >= 0) start--;
        int msum = 0, bon = 0;
        for (int j = start; j < a && set; j++) {
            set = step(g, set, g->let[j]);
            msum += g->face[g->sq[j]];
            bon |= g->oldbon[g->sq[j]];
        }
        if (set) {
            g->start = start;
            g->np = 0;
            extend(g, a, set, msum, g->additive ? 0 : 1, bon, 0, 0);
        }
    } else if (set) {
        left_parts(g, a, set, 0, limit);
    }
}
