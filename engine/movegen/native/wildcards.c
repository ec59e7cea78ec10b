/*
 * War of Words wildcards in the native core: a wildcard shows "*" and stands for any letter in
 * each word it is part of, so one placement is one move however many letters would make the
 * words. As in engine/movegen/wildcards.py, the search then walks *sets* of DAWG nodes: a tile
 * moves every node of the set along its letter, a wildcard (placed, or on the board) moves it
 * along every tile letter, and a word ends where any node of the set ends one. A placement is
 * thus walked once from its leftmost anchor, so no move is found twice.
 *
 * Sets live on a stack (Gen.arena): each step pushes its result, and the caller pops it when
 * done. A set never holds a node twice (Gen.stamp marks the nodes of the set being built).
 * When the stack would overflow, Gen.failed = 3 and the position goes back to the Python
 * generator (engine/movegen/native_bridge.py).
 */
#include "movegen.h"

typedef struct {
    size_t off, count;
} Set;

static inline uint32_t next_stamp(Gen *g) {
    if (++g->stamp_now == 0) { /* wrapped: forget every mark */
        memset(g->stamp, 0, sizeof(uint32_t) * g->nodes);
        g->stamp_now = 1;
    }
    return g->stamp_now;
}

/* The set `in` moved along `letter` (g->nl: along every tile letter), pushed on the stack. */
static Set step(Gen *g, Set in, int letter) {
    Set out = {g->arena_top, 0};
    const uint32_t mark = next_stamp(g);
    const int any = letter == g->nl;
    for (size_t k = 0; k < in.count; k++) {
        uint32_t node = g->arena[in.off + k];
        uint32_t e = g->first[node], end = g->first[node + 1];
        for (; e < end; e++) {
            int l = g->elet[e];
            if (l == NOLETTER || (!any && l != letter)) continue;
            uint32_t child = g->targets[e];
            if (g->stamp[child] == mark) continue;
            g->stamp[child] = mark;
            if (g->arena_top >= g->arena_cap) {
                g->failed = 3;
                out.count = 0;
                return out;
            }
            g->arena[g->arena_top++] = child;
            out.count++;
        }
    }
    return out;
}

static Set single(Gen *g, uint32_t node) {
    Set out = {g->arena_top, 0};
    if (g->arena_top >= g->arena_cap) {
        g->failed = 3;
        return out;
    }
    g->arena[g->arena_top++] = node;
    out.count = 1;
    return out;
}

static uint64_t kids_of(const Gen *g, Set set) {
    uint64_t bits = 0;
    for (size_t k = 0; k < set.count; k++) bits |= g->kids[g->arena[set.off + k]];
    return bits;
}

static int ends_word(const Gen *g, Set set) {
    for (size_t k = 0; k < set.count; k++)
        if (g->terminal[g->arena[set.off + k]]) return 1;
    return 0;
}

/* Cross-check bits: the tile letters L such that prefix + L + suffix is a word, wildcards in
   prefix and suffix (letter nl) standing for any letter. */
uint64_t wild_cross_bits(Gen *g, const int *prefix, int nb, const int *suffix, int na) {
    const size_t top = g->arena_top;
    Set p = single(g, g->root);
    for (int k = 0; k < nb && p.count; k++) p = step(g, p, prefix[k]);
    uint64_t bits = 0;
    for (size_t k = 0; k < p.count && !g->failed; k++) {
        uint32_t node = g->arena[p.off + k];
        uint32_t e = g->first[node], end = g->first[node + 1];
        for (; e < end; e++) {
            int l = g->elet[e];
            if (l == NOLETTER || ((bits >> l) & 1)) continue;
            const size_t mark = g->arena_top;
            Set q = single(g, g->targets[e]);
            for (int j = 0; j < na && q.count; j++) q = step(g, q, suffix[j]);
            if (q.count && ends_word(g, q)) bits |= (uint64_t)1 << l;
            g->arena_top = mark;
        }
    }
    g->arena_top = top;
    return bits;
}

/* Extend right from square i of the line with the node set `set` (as extend in movegen.c). */
static void extend(Gen *g, int i, Set set, int msum, int wf, int bon, int xsum, int nt) {
    const int n = g->n, nl = g->nl;
    const size_t top = g->arena_top;
    while (i < n && g->let[i] >= 0) {
        set = step(g, set, g->let[i]);
        if (!set.count) { g->arena_top = top; return; }
        msum += g->face[g->sq[i]];
        bon |= g->oldbon[g->sq[i]];
        i++;
    }
    if (i > g->anchor_i && ends_word(g, set)) record(g, i, nt, msum, wf, bon, xsum);
    if (i == n || nt >= g->tiles || g->failed) { g->arena_top = top; return; }
    const uint64_t kids = kids_of(g, set), cs = g->cross[i];
    const uint64_t fit = kids & cs & (g->blanks ? g->all_bits : g->lav);
    const int wild_here = g->wilds && cs && kids; /* some letter fits across: a wildcard does */
    if (!fit && !wild_here) { g->arena_top = top; return; }
    const int s = g->sq[i];
    const int32_t *xs = g->xs + (size_t)i * (nl + 1);
    const int32_t *nv = g->nv + (size_t)s * nl;
    const int nwf = g->additive ? wf + g->wm[s] : wf * g->wm[s];
    const int np = g->np++;
    g->psq[np] = s;
    for (int letter = 0; letter < nl && !g->failed; letter++) {
        const uint64_t bit = (uint64_t)1 << letter;
        if (!(fit & bit)) continue;
        const size_t mark = g->arena_top;
        Set child = step(g, set, letter);
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
        g->arena_top = mark;
    }
    if (wild_here && !g->failed) {
        Set child = step(g, set, nl);
        g->wilds--;
        g->plet[np] = nl;
        g->pblank[np] = 0;
        /* a wildcard is worth 0 and never the Bonus Letter; its cross word scores as a blank */
        extend(g, i + 1, child, msum, nwf, bon, xsum + xs[nl], nt + 1);
        g->wilds++;
    }
    g->np = np;
    g->arena_top = top;
}

/* Extend from anchor a after the left part in psq/plet/pblank[0..k-1] (squares a-k..a-1). */
static void from_left_part(Gen *g, int a, Set set, int k) {
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

static void left_parts(Gen *g, int a, Set set, int k, int limit) {
    const uint64_t kids = kids_of(g, set);
    if ((kids & g->cross[a] & (g->blanks ? g->all_bits : g->lav)) || (g->wilds && g->cross[a] && kids))
        from_left_part(g, a, set, k);
    if (k >= limit || g->failed) return;
    const int nl = g->nl;
    for (int letter = 0; letter < nl && !g->failed; letter++) {
        const uint64_t bit = (uint64_t)1 << letter;
        if (!(kids & bit) || (!g->counts[letter] && !g->blanks)) continue;
        const size_t mark = g->arena_top;
        Set child = step(g, set, letter);
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
        g->arena_top = mark;
    }
    if (g->wilds && kids && !g->failed) {
        const size_t mark = g->arena_top;
        Set child = step(g, set, nl);
        g->wilds--;
        if (kids_of(g, child) & playable(g)) {
            g->plet[k] = nl;
            g->pblank[k] = 0;
            left_parts(g, a, child, k + 1, limit);
        }
        g->wilds++;
        g->arena_top = mark;
    }
}

/* Every move from anchor a of the line in hand: after the tiles left of it, or after every
   left part of up to `limit` rack tiles. */
void wild_from_anchor(Gen *g, int a, int limit) {
    const size_t top = g->arena_top;
    Set set = single(g, g->root);
    if (a > 0 && g->let[a - 1] >= 0) {
        int start = a - 1;
        while (start > 0 && g->let[start - 1] >= 0) start--;
        int msum = 0, bon = 0;
        for (int j = start; j < a && set.count; j++) {
            set = step(g, set, g->let[j]);
            msum += g->face[g->sq[j]];
            bon |= g->oldbon[g->sq[j]];
        }
        if (set.count) {
            g->start = start;
            g->np = 0;
            extend(g, a, set, msum, g->additive ? 0 : 1, bon, 0, 0);
        }
    } else if (set.count) {
        left_parts(g, a, set, 0, limit);
    }
    g->arena_top = top;
}
