/*
 * The moves of one line (a row or a column), cached per the line's inputs, for callers that
 * generate on many boards that differ in a few squares (the end-game search: a node's
 * children differ from each other by one move, and most of the board's lines by nothing).
 *
 * A line's moves depend on the rack, whether it is the opening, and per square of the line:
 * its tile (letter, face value, Bonus Letter) or, when empty, the tiles of the runs before and
 * after it the other way (its cross word, and whether it is an anchor); the static tables are
 * the line's own. The key hashes exactly these (64 bits); plain boards only (no wildcards,
 * no portals: the end-game families).
 *
 * Below the lines, the cross-check bits of an empty square per (letters before, letters
 * after) — the DAWG walks of cross_word — cached the same way (g->xc_keys / xc_bits).
 */
#include "movegen.h"

typedef struct LineCache {
    uint64_t *keys;
    uint32_t *at, *count;
    size_t mask, used;
    Found *arena;
    size_t cap, fill;
} LineCache;

LineCache *line_cache_new(size_t slots, size_t moves) {
    LineCache *c = calloc(1, sizeof(LineCache));
    if (!c) return NULL;
    c->mask = slots - 1;
    c->keys = calloc(slots, sizeof(uint64_t));
    c->at = malloc(sizeof(uint32_t) * slots);
    c->count = malloc(sizeof(uint32_t) * slots);
    c->cap = moves;
    c->arena = malloc(sizeof(Found) * moves);
    if (!c->keys || !c->at || !c->count || !c->arena) { line_cache_free(c); return NULL; }
    return c;
}

void line_cache_free(LineCache *c) {
    if (!c) return;
    free(c->keys);
    free(c->at);
    free(c->count);
    free(c->arena);
    free(c);
}

static inline uint64_t step(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

static inline uint64_t tile_code(const Gen *g, int s) {
    return 1 + (uint64_t)g->cells[s] + ((uint64_t)(uint32_t)g->face[s] << 8)
        + ((uint64_t)g->oldbon[s] << 40);
}

static uint64_t line_key(const Gen *g, int across, int k, int opening) {
    const int rows = g->rows, cols = g->cols;
    const int n = across ? cols : rows;
    uint64_t h = step(g->rack_key, (uint64_t)(across * 1000 + k) * 4 + (uint64_t)opening);
    for (int i = 0; i < n; i++) {
        const int s = across ? k * cols + i : i * cols + k;
        if (g->cells[s] != NOLETTER) { h = step(h, tile_code(g, s)); continue; }
        h = step(h, 0xE0);
        /* the runs the other way: up / down for an across line, left / right for a down one */
        const int stride = across ? cols : 1;
        const int p = across ? s / cols : s % cols, limit = across ? rows : cols;
        for (int j = s, q = p; q > 0 && g->cells[j - stride] != NOLETTER; j -= stride, q--)
            h = step(h, tile_code(g, j - stride));
        h = step(h, 0xF0);
        for (int j = s, q = p; q < limit - 1 && g->cells[j + stride] != NOLETTER; j += stride, q++)
            h = step(h, tile_code(g, j + stride));
        h = step(h, 0xF1);
    }
    return h | 1;  /* 0: a free slot */
}

/* 1 when the line's moves were in the cache (appended to g->found); else 0, with *key set
   for line_store */
int line_cached(Gen *g, int across, int k, int opening, uint64_t *key) {
    LineCache *c = g->lines;
    *key = line_key(g, across, k, opening);
    for (size_t at = *key & c->mask, probe = 0; probe < 8; probe++, at = (at + 1) & c->mask) {
        if (!c->keys[at]) return 0;
        if (c->keys[at] != *key) continue;
        for (uint32_t m = 0; m < c->count[at]; m++) {
            Found *f = new_found(g);
            if (!f) return 1;
            *f = c->arena[c->at[at] + m];
        }
        return 1;
    }
    return 0;
}

/* keep the moves found since g->found[before] as the line's */
void line_store(Gen *g, uint64_t key, size_t before) {
    LineCache *c = g->lines;
    const size_t n = g->nfound - before;
    if (n > c->cap) return;
    if (c->fill + n > c->cap || c->used >= c->mask / 2) {  /* full: start again */
        memset(c->keys, 0, sizeof(uint64_t) * (c->mask + 1));
        c->fill = c->used = 0;
    }
    size_t at = key & c->mask;
    for (size_t probe = 0; probe < 8 && c->keys[at] && c->keys[at] != key; probe++)
        at = (at + 1) & c->mask;
    if (c->keys[at] && c->keys[at] != key) at = key & c->mask;  /* a full run: overwrite */
    if (!c->keys[at]) c->used++;
    c->keys[at] = key;
    c->at[at] = (uint32_t)c->fill;
    c->count[at] = (uint32_t)n;
    memcpy(c->arena + c->fill, g->found + before, sizeof(Found) * n);
    c->fill += n;
}

/* The cached cross-check bits of (prefix, after): NULL when found (*bits set), else the slot
   whose key is now set, for cross_word to fill with the bits it computes. */
uint64_t *cross_cached(Gen *g, const int *prefix, int nb, const int *after, int na,
                       uint64_t *bits) {
    uint64_t key = step((uint64_t)nb << 32 | (uint64_t)na, 0xC5);
    for (int k = 0; k < nb; k++) key = step(key, (uint64_t)prefix[k] + 1);
    key = step(key, 0xFF);
    for (int k = 0; k < na; k++) key = step(key, (uint64_t)after[k] + 1);
    key |= 1;  /* 0: a free slot */
    size_t at = key & g->xc_mask;
    int probe = 0;
    for (; probe < 8; probe++, at = (at + 1) & g->xc_mask) {
        if (g->xc_keys[at] == key) { *bits = g->xc_bits[at]; return NULL; }
        if (!g->xc_keys[at]) break;
    }
    if (probe == 8) at = key & g->xc_mask;  /* a full run of probes: overwrite the first */
    g->xc_keys[at] = key;
    return &g->xc_keys[at];
}
