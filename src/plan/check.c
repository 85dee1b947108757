/*
** check.c — rip_plan_check(): verify any plan, whatever strategy made it.
**
** The checker trusts nothing the strategy reports, nor the gaps the
** problem builder computed.  It verifies, in order:
**   1. the problem: every tensor's size > 0 and first <= last; every
**      tensor's offset >= 0 and a multiple of the alignment;
**   2. every candidate: indices in range; a candidate that carries its
**      operator (a GAP's conv layer or pool geometry, an ALIAS's depthwise
**      or upsampling geometry) must match the tensors it joins: the
**      geometry is derived again from its user-facing numbers (not the
**      stored derived fields) and h_in * w_in * c_in * dtype_bytes must be
**      the input tensor's size, h_out * w_out * c_out * dtype_bytes the
**      output's (dense NHWC, no padding stored: the builder's layout); an
**      ALIAS elementwise op joins two tensors of one size, a multiple of
**      its scalars;
**   3. every used candidate: r_i <= d_i, shifts only on GAP candidates (and
**      none when the problem has no_shift); its
**      input dies at its op and its output is born there (otherwise the
**      pair would share memory at other steps); each op overwrites at most
**      one input; the candidate's offset rule holds:
**        ALIAS         x_out == x_in
**        GAP, r = 0    x_in - x_out >= gap
**        GAP, r = 1    x_out == x_in
**      where, with simulate, gap is re-derived instead of trusting the
**      candidate: a conv's by the simulator (rip_sim_truth under
**      RIP_CONFIG_DENSE_GATHER, or RIP_CONFIG_DENSE_TAPS when the candidate was
**      made with taps), a pool's by pool_gap() below, a direct simulation
**      of the pool's reads and writes; each converted to bytes and rounded
**      up to the alignment; and, with simulate, every used ALIAS candidate's
**      operator (elementwise, upsampling, channel-in-place depthwise) is
**      replayed scalar by scalar at the placed offsets (check_replay.c):
**      no write may land on an input scalar read after it, nor, for the
**      depthwise, outside its input.  With simulate, a used candidate that
**      carries no operator (a hand-made problem) is refused: nothing is
**      taken on an operator class's word; without, a GAP keeps its gap and
**      an ALIAS its rule;
**   4. no two tensors whose lifetimes meet overlap in memory, except the
**      pair of a used candidate (tensors sorted by first step, so only
**      pairs that meet in time are compared: O(n log n + pairs));
**   5. a shifted input's block [x_in, x_in + gap + N_in) is free of every
**      other tensor live at the op's step and ends within the peak;
**   6. plan->peak equals rip_plan_peak().
** Block ends are computed in 128 bits, so offsets no valid plan has are
** reported, never wrapped.  The first violation is reported.  Simulated
** gaps and passed replays are cached per operator geometry within one
** call.
*/
#include <stdlib.h>
#include <string.h>

#include "check_replay.h"
#include "plan.h"
#include "sim.h"

__extension__ typedef __int128 wide;

/* A simulated operator: a gap re-derived, or an ALIAS replay passed. */
typedef struct sim_entry {
    rip_layer L;
    int kind;      /* rip_config for a conv, -1 for a pool, -2 - rip_alias_op for an ALIAS replay */
    int64_t n_in, n_out, dtype;   /* an ALIAS replay's bytes and scalar size (0 for gaps) */
    int64_t gap;   /* scalars (0 for a replay) */
} sim_entry;

typedef struct sim_cache {
    sim_entry *v;
    size_t n, cap;
} sim_cache;

static bool same_layer(const rip_layer *a, const rip_layer *b)
{
    return a->cin == b->cin && a->cout == b->cout && a->h_in == b->h_in && a->w_in == b->w_in &&
           a->k_h == b->k_h && a->k_w == b->k_w && a->s_h == b->s_h && a->s_w == b->s_w && a->d_h == b->d_h &&
           a->d_w == b->d_w && a->p_top == b->p_top && a->p_bottom == b->p_bottom && a->p_left == b->p_left &&
           a->p_right == b->p_right;
}

/*
** The minimal gap, in scalars, of a pool written in place below its input
** (dense NHWC, C channels a pixel), by simulating its reads and writes:
** output pixels are produced in row-major order, each after reading its
** whole window (taps outside the input are padding, not reads).  Writing
** output pixel P over [P C - D, P C - D + C) (relative to the input, D the
** distance below it) must spare every input pixel q a later output still
** reads; with m(P) the first such q, every D >= (P - m(P) + 1) C is safe,
** and the gap is the largest of these over P (0 if none is positive).
** last[q], the last output to read q, is found by replaying every window.
** -1 out of memory; -2 when the pool is beyond the simulation limits.
*/
static int64_t pool_gap(const rip_layer *L)
{
    const int64_t n_in = L->h_in * L->w_in, n_out = L->h_out * L->w_out;
    if (n_in > RIP_PLAN_POOL_PIXELS_MAX || n_out > RIP_PLAN_POOL_PIXELS_MAX ||
        n_out * L->k_h * L->k_w > RIP_PLAN_POOL_WORK_MAX)
        return -2;
    int64_t *last = malloc((size_t)n_in * sizeof *last);
    if (last == NULL)
        return -1;
    for (int64_t q = 0; q < n_in; q++)
        last[q] = -1;
    for (int64_t oy = 0; oy < L->h_out; oy++)
        for (int64_t ox = 0; ox < L->w_out; ox++)
            for (int64_t i = 0; i < L->k_h; i++)
                for (int64_t j = 0; j < L->k_w; j++) {
                    int64_t y = oy * L->s_h - L->p_top + i * L->d_h, x = ox * L->s_w - L->p_left + j * L->d_w;
                    if (y >= 0 && y < L->h_in && x >= 0 && x < L->w_in)
                        last[y * L->w_in + x] = oy * L->w_out + ox;
                }
    int64_t worst = 0, m = 0;
    for (int64_t P = 0; P < n_out; P++) {
        while (m < n_in && last[m] <= P)
            m++;
        if (m < n_in && P - m + 1 > worst)
            worst = P - m + 1;
    }
    free(last);
    return worst * L->cin;
}

/* The cached entry equal to e but for its gap, or NULL. */
static const sim_entry *cache_find(const sim_cache *sc, const sim_entry *e)
{
    for (size_t i = 0; i < sc->n; i++) {
        const sim_entry *v = &sc->v[i];
        if (v->kind == e->kind && v->n_in == e->n_in && v->n_out == e->n_out && v->dtype == e->dtype &&
            same_layer(&v->L, &e->L))
            return v;
    }
    return NULL;
}

/* Remember e; when out of memory, silently not (the answer stands). */
static void cache_put(sim_cache *sc, const sim_entry *e)
{
    if (sc->n == sc->cap) {
        size_t nc = sc->cap ? 2 * sc->cap : 16;
        sim_entry *nv = realloc(sc->v, nc * sizeof *nv);
        if (nv == NULL)
            return;
        sc->v = nv;
        sc->cap = nc;
    }
    sc->v[sc->n++] = *e;
}

/* Re-derived gap of candidate c in scalars; -1 out of memory, -2 too large. */
static int64_t derived_gap(sim_cache *sc, const rip_candidate *c)
{
    sim_entry e = {.L = c->layer, .kind = c->pool ? -1 : (int)(c->taps ? RIP_CONFIG_DENSE_TAPS : RIP_CONFIG_DENSE_GATHER)};
    const sim_entry *hit = cache_find(sc, &e);
    if (hit)
        return hit->gap;
    if (c->pool) {
        e.gap = pool_gap(&c->layer);
        if (e.gap < 0)
            return e.gap;
    } else if (rip_sim_truth(&c->layer, (rip_config)e.kind, RIP_ENGINE_FAST, &e.gap) != 0) {
        return -1;
    }
    cache_put(sc, &e);
    return e.gap;
}

/*
** Replay used ALIAS candidate c at x_in == x_out (check_replay.h; the
** outcome then depends on the operator alone, so a pass is cached per
** geometry).  RIP_OK, RIP_S_FAILED or RIP_S_NOMEM with err.
*/
static rip_status replayed(sim_cache *sc, const rip_problem *p, const rip_candidate *c, int64_t x,
                           char err[RIP_ERR_LEN])
{
    const rip_tensor *in = &p->t[c->in], *out = &p->t[c->out];
    sim_entry e = {.L = c->layer, .kind = -2 - (int)c->alias_op, .n_in = in->size, .n_out = out->size,
                   .dtype = c->dtype_bytes};
    if (cache_find(sc, &e))
        return RIP_OK;
    if (in->size / c->dtype_bytes + out->size / c->dtype_bytes > RIP_PLAN_REPLAY_SCALARS_MAX) {
        snprintf(err, RIP_ERR_LEN, "ALIAS %s -> %s: %lld B -> %lld B is too large to replay its operator", in->id,
                 out->id, (long long)in->size, (long long)out->size);
        return RIP_S_FAILED;
    }
    char why[RIP_ERR_LEN];
    rip_status st = rip_replay_alias(c, in->size, out->size, x, x, why);
    if (st == RIP_OK)
        cache_put(sc, &e);
    else
        snprintf(err, RIP_ERR_LEN, "ALIAS %s -> %s: %.400s", in->id, out->id, why);
    return st;
}

/* (key, index) pairs sorted by key then index: no globals, so the checker
** may run on several threads. */
typedef struct keyed {
    int64_t key;
    int idx;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static bool blocks_overlap(wide a0, wide a1, wide b0, wide b1)
{
    return a0 < b1 && b0 < a1;
}

/* 1. tensors and offsets.  RIP_OK or RIP_S_FAILED. */
static rip_status check_tensors(const rip_problem *p, const rip_plan *plan, int64_t align, char err[RIP_ERR_LEN])
{
    for (size_t i = 0; i < p->n; i++) {
        const rip_tensor *t = &p->t[i];
        if (t->size <= 0 || t->first > t->last) {
            snprintf(err, RIP_ERR_LEN, "tensor %s: size %lld, lifetime [%lld, %lld]: not a valid tensor", t->id,
                     (long long)t->size, (long long)t->first, (long long)t->last);
            return RIP_S_FAILED;
        }
        if (plan->offset[i] < 0 || plan->offset[i] % align != 0) {
            snprintf(err, RIP_ERR_LEN, "tensor %s: offset %lld is %s", t->id, (long long)plan->offset[i],
                     plan->offset[i] < 0 ? "negative" : "not a multiple of the alignment");
            if (plan->offset[i] >= 0) {
                size_t len = strlen(err);
                snprintf(err + len, RIP_ERR_LEN - len, " %lld", (long long)align);
            }
            return RIP_S_FAILED;
        }
        if ((wide)plan->offset[i] + t->size > INT64_MAX) {
            snprintf(err, RIP_ERR_LEN, "tensor %s: offset %lld + size %lld ends beyond 2^63 - 1 bytes", t->id,
                     (long long)plan->offset[i], (long long)t->size);
            return RIP_S_FAILED;
        }
    }
    return RIP_OK;
}

/*
** The candidate's geometry derived again from its user-facing numbers into
** *L; false when they are not a layer, or the stored derived sizes (which
** the simulator would use) disagree with them.
*/
static bool rederive(const rip_candidate *c, rip_layer *L)
{
    const rip_layer *s = &c->layer;
    *L = rip_layer_make(s->cin, s->cout, s->h_in, s->w_in, s->k_h, s->k_w, s->s_h, s->s_w, s->d_h, s->d_w, 0, 0);
    L->p_top = s->p_top, L->p_bottom = s->p_bottom, L->p_left = s->p_left, L->p_right = s->p_right;
    char why[RIP_ERR_LEN];
    return rip_layer_derive(L, why) == 0 && same_layer(L, s) && L->h_out == s->h_out && L->w_out == s->w_out &&
           L->keff_h == s->keff_h && L->keff_w == s->keff_w && L->h_p == s->h_p && L->w_p == s->w_p && L->n_in_padded == s->n_in_padded &&
           L->n_in_dense == s->n_in_dense && L->n_out == s->n_out;
}

/* An upsampling geometry: every extent in [1, 2^24], the output the input
** times the factors, one channel count.  Into *L as given. */
static bool upsample_layer(const rip_candidate *c, rip_layer *L)
{
    *L = c->layer;
    const int64_t lim = (int64_t)1 << 24;
    const int64_t v[] = {L->cin, L->h_in, L->w_in, L->s_h, L->s_w};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] < 1 || v[i] > lim)
            return false;
    return L->cout == L->cin && L->h_out == L->h_in * L->s_h && L->w_out == L->w_in * L->s_w;
}

/* The operator whose geometry candidate c carries: "conv layer", "pool",
** "depthwise", "upsampling", "elementwise op"; NULL for none (a hand-made
** candidate), "?" for an ALIAS operator out of range. */
static const char *carried_op(const rip_candidate *c)
{
    if (c->kind == RIP_INPLACE_GAP)
        return c->pool ? "pool" : c->has_layer ? "conv layer" : NULL;
    switch (c->alias_op) {
    case RIP_ALIAS_NONE: return NULL;
    case RIP_ALIAS_ELEMENTWISE: return "elementwise op";
    case RIP_ALIAS_UPSAMPLE: return "upsampling";
    case RIP_ALIAS_DEPTHWISE: return "depthwise";
    }
    return "?";
}

/* 2. a candidate's indices, and its geometry against its tensors.  RIP_OK or RIP_S_FAILED. */
static rip_status check_geometry(const rip_problem *p, size_t k, char err[RIP_ERR_LEN])
{
    const rip_candidate *c = &p->cand[k];
    if (c->in < 0 || c->out < 0 || (size_t)c->in >= p->n || (size_t)c->out >= p->n || c->in == c->out) {
        snprintf(err, RIP_ERR_LEN, "candidate %zu: tensor indices %d -> %d out of range", k, c->in, c->out);
        return RIP_S_FAILED;
    }
    const char *what = carried_op(c);
    if (what == NULL)
        return RIP_OK;
    const rip_tensor *in = &p->t[c->in], *out = &p->t[c->out];
    const char *kind = c->kind == RIP_INPLACE_GAP ? "GAP" : "ALIAS";
    const bool dtype_ok = c->dtype_bytes >= 1 && c->dtype_bytes <= 16;
    if (c->kind == RIP_INPLACE_ALIAS && c->alias_op == RIP_ALIAS_ELEMENTWISE) {
        if (!dtype_ok || in->size != out->size || in->size % c->dtype_bytes != 0) {
            snprintf(err, RIP_ERR_LEN,
                     "ALIAS %s -> %s: an elementwise op of %lld-byte scalars, but the tensors are %lld B -> %lld B",
                     in->id, out->id, (long long)c->dtype_bytes, (long long)in->size, (long long)out->size);
            return RIP_S_FAILED;
        }
        return RIP_OK;
    }
    /* every other operator has a geometry: a window (conv, pool, depthwise) or an upsampling */
    rip_layer L;
    const bool up = c->kind == RIP_INPLACE_ALIAS && c->alias_op == RIP_ALIAS_UPSAMPLE;
    const bool valid = strcmp(what, "?") != 0 && (up ? upsample_layer(c, &L) : rederive(c, &L));
    if (!valid || !dtype_ok || (strcmp(what, "conv layer") != 0 && L.cin != L.cout)) {
        snprintf(err, RIP_ERR_LEN, "%s %s -> %s: its %s is not a valid geometry (dtype %lld B)", kind, in->id,
                 out->id, what, (long long)c->dtype_bytes);
        return RIP_S_FAILED;
    }
    /* derive keeps each product below 2^62, upsample_layer each extent below 2^25; dtype <= 16: 128
    ** bits hold these */
    const wide n_in = (wide)L.h_in * L.w_in * L.cin * c->dtype_bytes;
    const wide n_out = (wide)L.h_out * L.w_out * L.cout * c->dtype_bytes;
    if (n_in != in->size || n_out != out->size) {
        snprintf(err, RIP_ERR_LEN,
                 "%s %s -> %s: its %s reads %lldx%lldx%lld and writes %lldx%lldx%lld (x %lld B: %lld B -> %lld B), "
                 "but the tensors are %lld B -> %lld B",
                 kind, in->id, out->id, what, (long long)L.h_in, (long long)L.w_in, (long long)L.cin,
                 (long long)L.h_out, (long long)L.w_out, (long long)L.cout, (long long)c->dtype_bytes,
                 (long long)(n_in > INT64_MAX ? INT64_MAX : n_in), (long long)(n_out > INT64_MAX ? INT64_MAX : n_out),
                 (long long)in->size, (long long)out->size);
        return RIP_S_FAILED;
    }
    return RIP_OK;
}

/*
** 3. a used candidate: flags, lifetimes, one output per candidate, its gap
** (re-derived with simulate) into *gap and its offset rule.  out_cand[t]
** is the used candidate whose output is t.  RIP_OK, RIP_S_FAILED, RIP_S_NOMEM.
*/
static rip_status check_used(const rip_problem *p, const rip_plan *plan, size_t k, bool simulate, int64_t align,
                             sim_cache *sc, int *out_cand, int64_t *gap, char err[RIP_ERR_LEN])
{
    const rip_candidate *c = &p->cand[k];
    const rip_tensor *in = &p->t[c->in], *out = &p->t[c->out];
    if (plan->shift[k] && !plan->in_place[k]) {
        snprintf(err, RIP_ERR_LEN, "candidate %s -> %s: shifted (r = 1) but not in place (d = 0)", in->id, out->id);
        return RIP_S_FAILED;
    }
    if (plan->shift[k] && p->no_shift) {
        snprintf(err, RIP_ERR_LEN, "candidate %s -> %s: shifted (r = 1), but the problem allows no shift", in->id,
                 out->id);
        return RIP_S_FAILED;
    }
    if (plan->shift[k] && c->kind != RIP_INPLACE_GAP) {
        snprintf(err, RIP_ERR_LEN, "candidate %s -> %s: a shift on an ALIAS candidate", in->id, out->id);
        return RIP_S_FAILED;
    }
    *gap = c->gap;
    if (!plan->in_place[k])
        return RIP_OK;
    if (in->last != c->op || in->first > c->op || out->first != c->op) {
        snprintf(err, RIP_ERR_LEN,
                 "candidate %s -> %s used in place, but the input [%lld, %lld] does not die at op step %d or the "
                 "output [%lld, %lld] is not born there",
                 in->id, out->id, (long long)in->first, (long long)in->last, c->op, (long long)out->first,
                 (long long)out->last);
        return RIP_S_FAILED;
    }
    if (out_cand[c->out] >= 0) {
        snprintf(err, RIP_ERR_LEN, "tensor %s is the in-place output of two candidates (inputs %s and %s)", out->id,
                 p->t[p->cand[out_cand[c->out]].in].id, in->id);
        return RIP_S_FAILED;
    }
    out_cand[c->out] = (int)k;

    if (simulate && carried_op(c) == NULL) {
        snprintf(err, RIP_ERR_LEN, "%s %s -> %s used in place, but no operator to replay (a hand-made candidate): "
                 "only a check without simulation takes it as given", c->kind == RIP_INPLACE_GAP ? "GAP" : "ALIAS",
                 in->id, out->id);
        return RIP_S_FAILED;
    }
    bool rederive = c->kind == RIP_INPLACE_GAP && simulate;
    if (rederive) {
        int64_t g = derived_gap(sc, c);
        if (g == -1) {
            snprintf(err, RIP_ERR_LEN, "check: out of memory re-deriving the gap of %s -> %s", in->id, out->id);
            return RIP_S_NOMEM;
        }
        if (g == -2) {
            snprintf(err, RIP_ERR_LEN, "GAP %s -> %s: the pool is too large to simulate its gap", in->id, out->id);
            return RIP_S_FAILED;
        }
        *gap = rip_align_up(g * c->dtype_bytes, align);
    }
    int64_t xi = plan->offset[c->in], xo = plan->offset[c->out];
    if (c->kind == RIP_INPLACE_ALIAS && xo != xi) {
        snprintf(err, RIP_ERR_LEN, "ALIAS %s -> %s: output at %lld, input at %lld (must be equal)", in->id, out->id,
                 (long long)xo, (long long)xi);
        return RIP_S_FAILED;
    }
    if (c->kind == RIP_INPLACE_ALIAS && simulate)
        return replayed(sc, p, c, xi, err);
    if (c->kind == RIP_INPLACE_GAP && plan->shift[k] && xo != xi) {
        snprintf(err, RIP_ERR_LEN, "GAP %s -> %s with shift: output at %lld, input at %lld (must be equal)", in->id,
                 out->id, (long long)xo, (long long)xi);
        return RIP_S_FAILED;
    }
    if (c->kind == RIP_INPLACE_GAP && !plan->shift[k] && (wide)xi - xo < *gap) {
        snprintf(err, RIP_ERR_LEN, "GAP %s -> %s: output at %lld is %lld bytes below the input at %lld, the gap needs %lld%s",
                 in->id, out->id, (long long)xo, (long long)((wide)xi - xo), (long long)xi, (long long)*gap,
                 rederive ? (c->pool ? " (pool simulated)" : " (simulated)") : "");
        return RIP_S_FAILED;
    }
    return RIP_OK;
}

/* 4. pairs of tensors that meet in time.  RIP_OK or RIP_S_FAILED. */
static rip_status check_pairs(const rip_problem *p, const rip_plan *plan, keyed *order, const int *out_cand,
                              char err[RIP_ERR_LEN])
{
    for (size_t i = 0; i < p->n; i++)
        order[i] = (keyed){p->t[i].first, (int)i};
    qsort(order, p->n, sizeof *order, cmp_keyed);
    for (size_t a = 0; a < p->n; a++) {
        int ia = order[a].idx;
        const rip_tensor *ta = &p->t[ia];
        wide a0 = plan->offset[ia], a1 = a0 + ta->size;
        for (size_t b = a + 1; b < p->n && order[b].key <= ta->last; b++) {
            int ib = order[b].idx;
            const rip_tensor *tb = &p->t[ib];
            wide b0 = plan->offset[ib], b1 = b0 + tb->size;
            if (!blocks_overlap(a0, a1, b0, b1))
                continue;
            if ((out_cand[ib] >= 0 && p->cand[out_cand[ib]].in == ia) ||
                (out_cand[ia] >= 0 && p->cand[out_cand[ia]].in == ib))
                continue;
            int64_t s0 = tb->first, s1 = ta->last < tb->last ? ta->last : tb->last;
            snprintf(err, RIP_ERR_LEN,
                     "tensors %s [%lld, %lld) and %s [%lld, %lld) overlap in memory and are both live at steps "
                     "%lld..%lld",
                     ta->id, (long long)a0, (long long)a1, tb->id, (long long)b0, (long long)b1, (long long)s0,
                     (long long)s1);
            return RIP_S_FAILED;
        }
    }
    return RIP_OK;
}

/* 5. shifted input blocks.  RIP_OK or RIP_S_FAILED. */
static rip_status check_shifts(const rip_problem *p, const rip_plan *plan, const keyed *used, size_t n_used,
                               const int64_t *gap, char err[RIP_ERR_LEN])
{
    for (size_t u = 0; u < n_used; u++) {
        size_t k = (size_t)used[u].idx;
        const rip_candidate *c = &p->cand[k];
        if (!plan->shift[k])
            continue;
        wide x0 = plan->offset[c->in], x1 = x0 + gap[k] + p->t[c->in].size;
        if (x1 > plan->peak) {
            snprintf(err, RIP_ERR_LEN, "shifted input %s occupies [%lld, %lld) during op step %d, beyond the peak %lld",
                     p->t[c->in].id, (long long)x0, (long long)(x1 > INT64_MAX ? INT64_MAX : x1), c->op,
                     (long long)plan->peak);
            return RIP_S_FAILED;
        }
        for (size_t i = 0; i < p->n; i++) {
            const rip_tensor *t = &p->t[i];
            if ((int)i == c->in || (int)i == c->out || t->first > c->op || t->last < c->op)
                continue;
            if (blocks_overlap(x0, x1, plan->offset[i], (wide)plan->offset[i] + t->size)) {
                snprintf(err, RIP_ERR_LEN, "shift block [%lld, %lld) of input %s at op step %d overlaps tensor %s [%lld, %lld)",
                         (long long)x0, (long long)x1, p->t[c->in].id, c->op, t->id, (long long)plan->offset[i],
                         (long long)(plan->offset[i] + t->size));
                return RIP_S_FAILED;
            }
        }
    }
    return RIP_OK;
}

rip_status rip_plan_check(const rip_problem *p, const rip_plan *plan, bool simulate, char err[RIP_ERR_LEN])
{
    rip_status rc = RIP_S_FAILED;
    keyed *order = NULL, *used = NULL;
    int *out_cand = NULL;
    int64_t *gap = NULL;
    sim_cache sc = {NULL, 0, 0};
    const int64_t align = p->align >= 1 ? p->align : 1;

    if (plan == NULL || plan->offset == NULL || (p->n_cand && (plan->in_place == NULL || plan->shift == NULL))) {
        snprintf(err, RIP_ERR_LEN, "no plan");
        return RIP_S_FAILED;
    }
    if (plan->bound_only) {
        snprintf(err, RIP_ERR_LEN, "strategy %s gives a lower bound, not a placement", plan->strategy);
        return RIP_S_FAILED;
    }
    order = malloc((p->n ? p->n : 1) * sizeof *order);
    out_cand = malloc((p->n ? p->n : 1) * sizeof *out_cand);
    used = malloc((p->n_cand ? p->n_cand : 1) * sizeof *used);
    gap = calloc(p->n_cand ? p->n_cand : 1, sizeof *gap);
    if (order == NULL || out_cand == NULL || used == NULL || gap == NULL) {
        snprintf(err, RIP_ERR_LEN, "check: out of memory");
        rc = RIP_S_NOMEM;
        goto done;
    }
    if ((rc = check_tensors(p, plan, align, err)) != RIP_OK)
        goto done;
    for (size_t i = 0; i < p->n; i++)
        out_cand[i] = -1;
    size_t n_used = 0;
    for (size_t k = 0; k < p->n_cand; k++) {
        if ((rc = check_geometry(p, k, err)) != RIP_OK ||
            (rc = check_used(p, plan, k, simulate, align, &sc, out_cand, &gap[k], err)) != RIP_OK)
            goto done;
        if (plan->in_place[k])
            used[n_used++] = (keyed){p->cand[k].op, (int)k};
    }
    qsort(used, n_used, sizeof *used, cmp_keyed);
    for (size_t u = 1; u < n_used; u++) {
        const rip_candidate *a = &p->cand[used[u - 1].idx], *b = &p->cand[used[u].idx];
        if (a->op == b->op) {
            snprintf(err, RIP_ERR_LEN, "op at step %d overwrites two inputs: %s (-> %s) and %s (-> %s)", a->op,
                     p->t[a->in].id, p->t[a->out].id, p->t[b->in].id, p->t[b->out].id);
            rc = RIP_S_FAILED;
            goto done;
        }
    }
    if ((rc = check_pairs(p, plan, order, out_cand, err)) != RIP_OK ||
        (rc = check_shifts(p, plan, used, n_used, gap, err)) != RIP_OK)
        goto done;
    int64_t peak = rip_plan_peak(p, plan);
    if (peak != plan->peak) {
        snprintf(err, RIP_ERR_LEN, "peak %lld reported, but the blocks end at %lld", (long long)plan->peak,
                 (long long)peak);
        rc = RIP_S_FAILED;
        goto done;
    }
    rc = RIP_OK;

done:
    free(order);
    free(out_cand);
    free(used);
    free(gap);
    free(sc.v);
    return rc;
}
