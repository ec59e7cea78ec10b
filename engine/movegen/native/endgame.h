/*
 * The native end-game search (endgame.c: negamax over incremental state; endgame_py.c: the
 * Python glue). It mirrors engine/bots/endgame.py move for move — same values, same ordering,
 * same table rules — so the two find the same move and value (tests/unit/bots/test_endgame*.py).
 */
#ifndef WORDARENA_ENDGAME_H
#define WORDARENA_ENDGAME_H

#include "movegen.h"
#include <setjmp.h>

#define EG_MAXPLY 256
#define EG_INF (1 << 30)
#define EG_PASS_FP 1u  /* the pass's fingerprint; 0: no move */
#define EG_CLOCK_EVERY 256

enum { EG_EXACT = 0, EG_LOWER = 1, EG_UPPER = 2 };
enum { EG_WORD = 1, EG_SCORELESS = 2, EG_PASS = 4 };  /* kinds of turn (zero-turn counting) */

typedef struct {
    uint64_t key;
    uint64_t best;    /* fingerprint of the best move */
    int32_t value;
    int16_t depth;
    uint8_t flag, horizon, used;
} TTEntry;

typedef struct {
    uint64_t key;
    int32_t adj[2];
    uint8_t used;
} EndEntry;

typedef struct {
    uint64_t key;
    uint32_t at, count; /* the moves: arena[at .. at + count - 1], in canonical order */
} CacheSlot;

typedef struct {
    Found *found;      /* generated moves of this ply's node */
    size_t cap;
    SortItem *items;   /* and as many again: the sort's room */
    int *ordered;      /* indexes into found, -1: the pass */
    size_t icap, ocap;
} Ply;

/* The search's position apart from the board arrays: what a play changes and a longjmp back to
   the root restores in one assignment. */
typedef struct {
    int racks[2][MAXLETTERS + 1];  /* index nl: blanks */
    int rack_n[2];
    int seat, run, scored;         /* to move; zero-turn run; has anyone scored */
    int on_board;                  /* tiles on the board */
    uint64_t board_hash, rack_hash;
    uint64_t mover_hash[2];        /* each seat's rack alone */
} EgState;

typedef struct Search {
    Gen g;                    /* the generator, its tables pointing at ours */
    int size, nl;
    uint8_t *cells, *oldbon;  /* the board now */
    int32_t *face;
    const int32_t *face_of;   /* [letter * 2 + blank]: face value of a laid tile */
    int bonus;
    int opening_ok, start, min_tiles;
    const Py_UCS4 *codes;     /* letter code points (canonical order) */
    uint8_t rank[MAXLETTERS + 1];
    EgState at;               /* the position now (the board arrays above are its squares) */
    const int32_t *values;    /* face value per rack letter (nl: blank) for the horizon guess */
    int limits[2];            /* zero-turn limits: [0] someone scored, [1] 0-0 */
    int zero_kinds;
    /* Zobrist keys */
    uint64_t *z_square;       /* [(square * nl + letter) * 2 + blank] */
    uint64_t z_rack[2][MAXLETTERS + 1][MAXTILES + 1];
    uint64_t z_seat, z_scored, z_run[EG_MAXPLY + 1];
    /* tables */
    TTEntry *tt;
    size_t tt_mask;
    EndEntry *ends;
    size_t ends_mask, ends_used;
    uint64_t killers[EG_MAXPLY + 1];
    /* the iteration's best root move so far and its value (Python: Search.partial) */
    uint64_t partial_fp;      /* 0: none yet */
    int partial_value;
    /* generated moves per (board, rack of the mover), as Python's Search.generated caches */
    CacheSlot *cache;
    size_t cache_mask, cache_used;
    Found *arena, *scratch;
    size_t arena_cap, arena_used, scratch_cap;
    Ply plies[EG_MAXPLY + 2];
    /* budget */
    long long nodes, node_limit;  /* node_limit < 0: none */
    double deadline;
    int cutoffs;
    jmp_buf out;                  /* out of time, or an error (failed set) */
    int failed;                   /* 1: the callback raised, 2: out of memory, 3: generator */
    /* the engine's end_game, called back (the GIL taken for the call) */
    PyObject *final, *letters;
} Search;

typedef struct { int run, scored; } Undo;

/* endgame.c */
uint64_t eg_mix(uint64_t z);
uint64_t eg_fingerprint(const Found *f);
void eg_fail(Search *s, int why);
int eg_generate(Search *s, int ply);
const Found *eg_move_at(const Ply *p, int j);
void eg_lead(Ply *p, int count, uint64_t fp);
int eg_play(Search *s, const Found *m, int *gain, Undo *u);
void eg_unplay(Search *s, const Found *m, int ended, const Undo *u);
int eg_init(Search *s);
void eg_free(Search *s);
double eg_now(void);
#define EG_PVMAX 40
/* The search from the position in s: the value, its line (pv[0..*npv-1], a pass has nt 0),
   whether it is exact and the depth of the last finished iteration. s->failed set: an error. */
int eg_solve(Search *s, Found *pv, int *npv, int *exact, int *depth);
int eg_adjust(Search *s, int out, int out_seat, int32_t adj[2]);
/* endgame_search.c */

/* endgame_py.c */
PyObject *py_endgame_search(PyObject *self, PyObject *args);
extern const char endgame_search_doc[];

#endif
