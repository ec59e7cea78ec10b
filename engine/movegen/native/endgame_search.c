/*
 * The native end-game search, part two: the transposition table, negamax with alpha-beta and
 * principal variation search, iterative deepening and the principal variation (Python:
 * engine/bots/endgame.py, Search.negamax / solve_endgame / Search.variation).
 */
#include "endgame.h"

/* -- the transposition table ---------------------------------------------------------------- */

#define EG_PROBES 8

static uint64_t node_key(const Search *s) {
    return s->at.board_hash ^ s->at.rack_hash ^ (s->at.seat ? s->z_seat : 0) ^ s->z_run[s->at.run]
        ^ (s->at.scored ? s->z_scored : 0);
}

static TTEntry *tt_find(Search *s, uint64_t key) {
    for (size_t k = 0; k < EG_PROBES; k++) {
        TTEntry *e = &s->tt[(key + k) & s->tt_mask];
        if (!e->used) return NULL;
        if (e->key == key) return e;
    }
    return NULL;
}

/* the entry's slot: its own, else the first free one, else (a full run of probes) the
   shallowest, whose subtree is the cheapest to search again */
static void tt_store(Search *s, uint64_t key, int depth, int flag, int value, uint64_t best,
                     int horizon) {
    TTEntry *slot = NULL;
    for (size_t k = 0; k < EG_PROBES; k++) {
        TTEntry *e = &s->tt[(key + k) & s->tt_mask];
        if (!e->used || e->key == key) { slot = e; break; }
        if (!slot || e->depth < slot->depth) slot = e;
    }
    slot->key = key;
    slot->depth = (int16_t)depth;
    slot->flag = (uint8_t)flag;
    slot->value = value;
    slot->best = best;
    slot->horizon = (uint8_t)horizon;
    slot->used = 1;
}

/* -- the search ------------------------------------------------------------------------------ */

static void tick(Search *s) {
    s->nodes++;
    if (s->node_limit >= 0 && s->nodes > s->node_limit) longjmp(s->out, 1);
    if (s->nodes % EG_CLOCK_EVERY == 0 && eg_now() > s->deadline) longjmp(s->out, 1);
}

static int points(const Search *s, int seat) {
    int total = 0;
    for (int l = 0; l <= s->nl; l++) total += s->at.racks[seat][l] * s->values[l];
    return total;
}

/* The mover's future gain within (alpha, beta) (a bound outside it); *horizon: whether the
   depth limit was reached somewhere below. Python: Search.negamax. */
static int negamax(Search *s, int depth, int alpha, int beta, int ply, int *horizon) {
    tick(s);
    if (depth == 0) {
        *horizon = 1;
        return points(s, 1 - s->at.seat) - points(s, s->at.seat);
    }
    const uint64_t key = node_key(s);
    const TTEntry *e = tt_find(s, key);
    uint64_t best_lead = 0;
    if (e) {
        best_lead = e->best;
        if (s->cutoffs && (e->depth >= depth || !e->horizon)
            && (e->flag == EG_EXACT || (e->flag == EG_LOWER && e->value >= beta)
                || (e->flag == EG_UPPER && e->value <= alpha))) {
            *horizon = e->horizon;
            return e->value;
        }
    }
    const int count = eg_generate(s, ply);
    Ply *p = &s->plies[ply];
    eg_lead(p, count, s->killers[ply]);
    eg_lead(p, count, best_lead);
    const int alpha0 = alpha;
    int best = -EG_INF, below = 0;
    uint64_t best_fp = EG_PASS_FP;
    for (int j = 0; j < count; j++) {
        const Found *m = eg_move_at(p, j);
        int gain, value, reached = 0;
        Undo u;
        const int ended = eg_play(s, m, &gain, &u);
        if (ended) {
            value = gain;
        } else if (j == 0) {
            value = gain - negamax(s, depth - 1, gain - beta, gain - alpha, ply + 1, &reached);
        } else { /* principal variation search: no better than alpha? else search it fully */
            value = gain - negamax(s, depth - 1, gain - alpha - 1, gain - alpha, ply + 1, &reached);
            if (alpha < value && value < beta) {
                int again = 0;
                value = gain - negamax(s, depth - 1, gain - beta, gain - value, ply + 1, &again);
                reached |= again;
            }
        }
        eg_unplay(s, m, ended, &u);
        below |= reached;
        if (value > best) {
            best = value;
            best_fp = eg_fingerprint(m);
            if (ply == 0) { s->partial_fp = best_fp; s->partial_value = value; }
        }
        if (value > alpha) alpha = value;
        if (alpha >= beta) { s->killers[ply] = eg_fingerprint(m); break; }
    }
    const int flag = best <= alpha0 ? EG_UPPER : best >= beta ? EG_LOWER : EG_EXACT;
    tt_store(s, key, depth, flag, best, best_fp, below);
    *horizon = below;
    return best;
}

/* back to the root after a longjmp (the board from its copy) */
static void load_root(Search *s, const EgState *r, const uint8_t *cells, const int32_t *face,
                      const uint8_t *oldbon) {
    s->at = *r;
    memcpy(s->cells, cells, (size_t)s->size);
    memcpy(s->face, face, sizeof(int32_t) * (size_t)s->size);
    memcpy(s->oldbon, oldbon, (size_t)s->size);
}

/* the best line from the table, `first` first (Python: Search.variation) */
static int variation(Search *s, uint64_t first, Found *pv) {
    int n = 0;
    uint64_t fp = first;
    while (n < EG_PVMAX) {
        const int count = eg_generate(s, n);
        const Ply *p = &s->plies[n];
        const Found *m = NULL;
        int j = 0;
        for (; j < count; j++)
            if (eg_fingerprint(m = eg_move_at(p, j)) == fp) break;
        if (j == count) break;
        if (m) pv[n] = *m;
        else pv[n].nt = 0;
        n++;
        int gain;
        Undo u;
        if (eg_play(s, m, &gain, &u)) break;
        const TTEntry *e = tt_find(s, node_key(s));
        if (!e) break;
        fp = e->best;
    }
    return n;
}

int eg_solve(Search *s, Found *pv, int *npv, int *exact, int *depth) {
    const EgState root = s->at;
    uint8_t *cells = malloc((size_t)s->size * 2);
    int32_t *face = malloc(sizeof(int32_t) * (size_t)s->size);
    if (!cells || !face) { free(cells); free(face); s->failed = 2; return 0; }
    memcpy(cells, s->cells, (size_t)s->size);
    memcpy(cells + s->size, s->oldbon, (size_t)s->size);
    memcpy(face, s->face, sizeof(int32_t) * (size_t)s->size);
    memset(s->killers, 0, sizeof s->killers);
    s->nodes = 0;
    const uint64_t root_key = node_key(s);
    volatile int finished = 0, done = 0, value = 0, d = 0, partial = 0;
    volatile uint64_t best = 0;
    while (!done && d < EG_MAXPLY) {
        d++;
        s->partial_fp = 0;
        if (setjmp(s->out)) {
            load_root(s, &root, cells, face, cells + s->size);
            /* cut short: its best root move so far (Python: solve_endgame) */
            if (s->partial_fp && !s->failed) {
                best = s->partial_fp;
                value = s->partial_value;
                partial = 1;
            }
            break;
        }
        int horizon = 0;
        const int v = negamax(s, d, -EG_INF, EG_INF, 0, &horizon);
        const TTEntry *e = tt_find(s, root_key);
        best = e ? e->best : EG_PASS_FP;
        value = v;
        finished = d;
        done = !horizon;
    }
    *npv = 0;
    if (!s->failed && !setjmp(s->out)) {
        if (!finished && !partial) { /* not even one move searched: the best-scoring move */
            const int count = eg_generate(s, 0);
            const Ply *p = &s->plies[0];
            const Found *m = count > 1 ? &p->found[0] : NULL;  /* canonical order: best first */
            int gain;
            Undo u;
            const int ended = eg_play(s, m, &gain, &u);
            eg_unplay(s, m, ended, &u);
            best = eg_fingerprint(m);
            value = gain;
        }
        *npv = variation(s, best, pv);
    }
    load_root(s, &root, cells, face, cells + s->size);
    free(cells);
    free(face);
    *exact = done;
    *depth = finished;
    return value;
}
