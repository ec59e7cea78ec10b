/*
 * Shared by the native move generator's files: movegen.c (the plain search and the module),
 * wildcards.c (War of Words wildcards, walked as sets of DAWG nodes) and portals.c (War of
 * Words lines read through open portal pairs).
 */
#ifndef WORDARENA_MOVEGEN_H
#define WORDARENA_MOVEGEN_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXLINE 64   /* longest row or column */
#define MAXSPAN 256  /* longest line: a row or column, or a chain through portals */
#define MAXTILES 16  /* most tiles on a rack */
#define MAXLETTERS 64
#define NOLETTER 255

typedef struct {
    int32_t score;
    uint8_t nt, across;
    uint16_t sq[MAXTILES];
    uint8_t let[MAXTILES];
    uint8_t blank[MAXTILES];
    uint8_t check;  /* portals: a play the engine's validator must judge (portals.c) */
} Found;

typedef struct {
    /* lexicon */
    const uint32_t *first, *targets;
    const uint8_t *terminal, *elet;
    const uint64_t *kids;
    uint32_t root;
    /* board and tables */
    int rows, cols, nl;
    const uint8_t *cells;     /* letter index per square, NOLETTER when empty */
    const int32_t *face;      /* face value of the tile on each square */
    const uint8_t *oldbon;    /* the tile on the square shows the Bonus Letter */
    const int32_t *nv;        /* [square * nl + letter]: value of a new tile there */
    const int32_t *wm;        /* word multiplier fed into the main word's factor */
    const int32_t *xf;        /* factor of a cross word through a new tile there */
    const uint8_t *blocked, *freestart;
    const int32_t *bingo;
    int nbingo, additive, bonus, bp, min_tiles;
    uint64_t all_bits;
    int ordered;  /* each node's edges in ascending letter order, NOLETTER last (kid_bits) */
    /* rack */
    int counts[MAXLETTERS];
    uint64_t lav;           /* the letters on the rack now (blanks aside) */
    int blanks, tiles;
    /* the line in hand */
    int n, across;
    int sq[MAXSPAN];
    int let[MAXSPAN];       /* letter index, -1 when empty */
    uint64_t cross[MAXSPAN];
    int xlen[MAXSPAN];
    uint8_t anchor[MAXSPAN];
    int32_t *xs;            /* [i * (nl + 1) + letter], letter nl = a blank */
    uint8_t *board_anchor;
    /* the move being built */
    int anchor_i, start, np;
    int psq[MAXTILES], plet[MAXTILES], pblank[MAXTILES];
    /* War of Words wildcards (letter index nl on the board and in a move): wildcards.c */
    int wilds;              /* wildcards on the rack now */
    int wild_mode;          /* a wildcard on the rack or the board: the node-set search */
    struct WildSets *ws;    /* the generation's node sets and their steps (wildcards.c) */
    size_t nodes;           /* DAWG nodes */
    /* War of Words portals (portals.c); partner is NULL without an open pair */
    const int32_t *partner;   /* per square: its partner square, -1 when not a portal */
    const int32_t *perp;      /* [across * size + square]: the id of its line that way */
    uint8_t *relaxed;         /* per square: shares a cross line with another of the line's */
    int end_only;             /* a ring cut open: only words ending at its last square */
    int any_relaxed;
    /* a cache of cross-check bits per (letters before, letters after), kept across calls by a
       caller that generates on many similar boards (the end-game search); NULL: none */
    uint64_t *xc_keys, *xc_bits;
    size_t xc_mask;
    /* the moves of each line, per the line's content and the rack (linecache.c); NULL: none */
    struct LineCache *lines;
    /* the rack's left parts, listed once per rack and walked at each anchor (movegen.c);
       lefts_depth: the longest listed + 1 (0: none yet) */
    struct LeftPart *lefts;
    size_t nlefts, caplefts;
    int lefts_depth;
    uint64_t rack_key;        /* the rack's hash, set by the caller with `lines` */
    /* output */
    Found *found;
    size_t nfound, capfound;
    int failed;             /* 1: past the bingo table, 2: out of memory, 3: sets too large */
} Gen;

/* How many of a node's letters `kids` come before `letter`: on an ordered DAWG, the place of
   its edge among the node's edges. */
static inline uint32_t edge_rank(uint64_t kids, int letter) {
    return (uint32_t)__builtin_popcountll(kids & (((uint64_t)1 << letter) - 1));
}

static inline int64_t child_of(const Gen *g, uint32_t node, int letter) {
    if (g->ordered) { /* the edge's place among the node's letters, counted */
        const uint64_t kids = g->kids[node];
        if (letter > 63 || !((kids >> letter) & 1)) return -1;
        return g->targets[g->first[node] + edge_rank(kids, letter)];
    }
    uint32_t e = g->first[node], end = g->first[node + 1];
    for (; e < end; e++)
        if (g->elet[e] == letter) return g->targets[e];
    return -1;
}

/* A move to sort: a 64-bit key that never contradicts the full order (score, then the first
   two tiles' square, letter rank and blank), so most comparisons are one integer compare. */
typedef struct {
    uint64_t key;
    uint32_t index;
} SortItem;

/* `items` (of `size` bytes each, `*cap` of them) with room for `need`: the same buffer, or a
   larger one (at least `least` items, doubling), *cap updated; NULL when out of memory (the
   old buffer is then still the caller's). */
void *grow_items(void *items, size_t *cap, size_t need, size_t size, size_t least);
void find_anchors(Gen *g, int opening, int start);
void generate_plain(Gen *g, int opening, int start);
uint64_t sort_key(const Found *f, const uint8_t *rank);
int compare_moves(const Found *a, const Found *b, const Py_UCS4 *codes);
void record(Gen *g, int i, int nt, int msum, int wf, int bon, int xsum);
Found *new_found(Gen *g);
void run_line(Gen *g);
void cross_word(Gen *g, int i, int s, const int *prefix, int nb, const int *after, int na,
                int base, int hasbon);

/* linecache.c */
int line_cached(Gen *g, int across, int k, int opening, uint64_t *key);
void line_store(Gen *g, uint64_t key, size_t before);
uint64_t *cross_cached(Gen *g, const int *prefix, int nb, const int *after, int na,
                       uint64_t *bits);
struct LineCache *line_cache_new(size_t slots, size_t moves);
void line_cache_free(struct LineCache *c);

/* wildcards.c */
int wild_init(Gen *g);
void wild_free(Gen *g);
uint64_t wild_cross_bits(Gen *g, const int *prefix, int nb, const int *suffix, int na);
void wild_from_anchor(Gen *g, int a, int limit);

/* portals.c */
void portal_anchors(Gen *g);
void portal_cross_check(Gen *g, int i, int s);
void portal_relax(Gen *g);
int portal_record(Gen *g, int i, int nt);
void portal_lines(Gen *g, const int32_t *squares, const int32_t *info, Py_ssize_t chains);
int portal_finish(Gen *g, PyObject *judge, PyObject *letters);

#endif
