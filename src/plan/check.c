/*
** check.c — rip_plan_check(): verify any plan, whatever strategy made it.
**
** The checker trusts nothing the strategy reports.  It verifies, in order:
**   1. every tensor's offset is >= 0 and a multiple of the alignment (and
**      the problem itself is sane: sizes > 0, first <= last);
**   2. every candidate's flags: r_i <= d_i, shifts only on GAP candidates;
**      a used candidate's input dies at its op and its output is born there
**      (otherwise the pair would share memory at other steps); each op
**      overwrites at most one input; the candidate's offset rule holds:
**        ALIAS         x_out == x_in
**        GAP, r = 0    x_in - x_out >= gap
**        GAP, r = 1    x_out == x_in
**      where, with simulate, the gap of a GAP candidate that carries its
**      conv layer is re-derived by the simulator (rip_sim_truth under
**      RIP_EXEC_DENSE_GATHER, or RIP_EXEC_DENSE_TAPS when the candidate was
**      made with taps), converted to bytes and rounded up to the alignment,
**      instead of the closed-form gap stored in the candidate;
**   3. no two tensors whose lifetimes meet overlap in memory, except the
**      pair of a used candidate (tensors are sorted by first step, so only
**      pairs that meet in time are compared: O(n log n + pairs));
**   4. a shifted input's block [x_in, x_in + gap + N_in) is free of every
**      other tensor live at the op's step and ends within the peak;
**   5. plan->peak equals rip_plan_peak().
** The first violation is reported.  Pooling GAP candidates (gap 0, no
** layer) are not simulated: the simulator models channel-mixing
** convolutions; their gap is App. I's alpha, beta <= 0 argument.
** Simulated gaps are cached per layer geometry within one call.
*/
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "sim.h"

typedef struct sim_entry {
    rip_layer L;
    rip_exec e;
    int64_t gap;   /* scalars */
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

/* Simulated gap of L under e in scalars; -1 if out of memory. */
static int64_t sim_gap(sim_cache *sc, const rip_layer *L, rip_exec e)
{
    for (size_t i = 0; i < sc->n; i++)
        if (sc->v[i].e == e && same_layer(&sc->v[i].L, L))
            return sc->v[i].gap;
    int64_t g;
    if (rip_sim_truth(L, e, RIP_ENGINE_FAST, &g) != 0)
        return -1;
    if (sc->n == sc->cap) {
        size_t nc = sc->cap ? 2 * sc->cap : 16;
        sim_entry *nv = realloc(sc->v, nc * sizeof *nv);
        if (nv == NULL)
            return g; /* no cache, still an answer */
        sc->v = nv;
        sc->cap = nc;
    }
    sc->v[sc->n++] = (sim_entry){*L, e, g};
    return g;
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

static bool blocks_overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    return a0 < b1 && b0 < a1;
}

int rip_plan_check(const rip_problem *p, const rip_plan *plan, bool simulate, char err[RIP_ERR_LEN])
{
    int rc = -1;
    keyed *order = NULL, *used = NULL;
    int *out_cand = NULL;
    int64_t *gap = NULL;
    sim_cache sc = {NULL, 0, 0};
    const int64_t align = p->align >= 1 ? p->align : 1;

    if (plan == NULL || plan->offset == NULL || (p->n_cand && (plan->in_place == NULL || plan->shift == NULL))) {
        snprintf(err, RIP_ERR_LEN, "no plan");
        return -1;
    }
    if (plan->bound_only) {
        snprintf(err, RIP_ERR_LEN, "strategy %s gives a lower bound, not a placement", plan->strategy);
        return -1;
    }
    order = malloc((p->n ? p->n : 1) * sizeof *order);
    out_cand = malloc((p->n ? p->n : 1) * sizeof *out_cand);
    used = malloc((p->n_cand ? p->n_cand : 1) * sizeof *used);
    gap = calloc(p->n_cand ? p->n_cand : 1, sizeof *gap);
    if (order == NULL || out_cand == NULL || used == NULL || gap == NULL) {
        snprintf(err, RIP_ERR_LEN, "check: out of memory");
        goto done;
    }

    /* 1. tensors */
    for (size_t i = 0; i < p->n; i++) {
        const rip_tensor *t = &p->t[i];
        if (t->size <= 0 || t->first > t->last) {
            snprintf(err, RIP_ERR_LEN, "tensor %s: size %lld, lifetime [%lld, %lld]: not a valid tensor", t->id,
                     (long long)t->size, (long long)t->first, (long long)t->last);
            goto done;
        }
        if (plan->offset[i] < 0 || plan->offset[i] % align != 0) {
            snprintf(err, RIP_ERR_LEN, "tensor %s: offset %lld is %s", t->id, (long long)plan->offset[i],
                     plan->offset[i] < 0 ? "negative" : "not a multiple of the alignment");
            if (plan->offset[i] >= 0) {
                size_t len = strlen(err);
                snprintf(err + len, RIP_ERR_LEN - len, " %lld", (long long)align);
            }
            goto done;
        }
        out_cand[i] = -1;
    }

    /* 2. candidates */
    size_t n_used = 0;
    for (size_t k = 0; k < p->n_cand; k++) {
        const rip_candidate *c = &p->cand[k];
        if (c->in < 0 || c->out < 0 || (size_t)c->in >= p->n || (size_t)c->out >= p->n || c->in == c->out) {
            snprintf(err, RIP_ERR_LEN, "candidate %zu: tensor indices %d -> %d out of range", k, c->in, c->out);
            goto done;
        }
        const rip_tensor *in = &p->t[c->in], *out = &p->t[c->out];
        if (plan->shift[k] && !plan->in_place[k]) {
            snprintf(err, RIP_ERR_LEN, "candidate %s -> %s: shifted (r = 1) but not in place (d = 0)", in->id,
                     out->id);
            goto done;
        }
        if (plan->shift[k] && c->kind != RIP_INPLACE_GAP) {
            snprintf(err, RIP_ERR_LEN, "candidate %s -> %s: a shift on an ALIAS candidate", in->id, out->id);
            goto done;
        }
        if (!plan->in_place[k])
            continue;
        if (in->last != c->op || in->first > c->op || out->first != c->op) {
            snprintf(err, RIP_ERR_LEN,
                     "candidate %s -> %s used in place, but the input [%lld, %lld] does not die at op step %d "
                     "or the output [%lld, %lld] is not born there",
                     in->id, out->id, (long long)in->first, (long long)in->last, c->op, (long long)out->first,
                     (long long)out->last);
            goto done;
        }
        if (out_cand[c->out] >= 0) {
            snprintf(err, RIP_ERR_LEN, "tensor %s is the in-place output of two candidates (inputs %s and %s)",
                     out->id, p->t[p->cand[out_cand[c->out]].in].id, in->id);
            goto done;
        }
        out_cand[c->out] = (int)k;
        used[n_used++] = (keyed){c->op, (int)k};

        gap[k] = c->gap;
        if (c->kind == RIP_INPLACE_GAP && simulate && c->has_layer) {
            int64_t g = sim_gap(&sc, &c->layer, c->taps ? RIP_EXEC_DENSE_TAPS : RIP_EXEC_DENSE_GATHER);
            if (g < 0) {
                snprintf(err, RIP_ERR_LEN, "check: the simulator is out of memory");
                goto done;
            }
            int64_t db = c->dtype_bytes >= 1 ? c->dtype_bytes : 1;
            gap[k] = rip_align_up(g * db, align);
        }
        int64_t xi = plan->offset[c->in], xo = plan->offset[c->out];
        if (c->kind == RIP_INPLACE_ALIAS && xo != xi) {
            snprintf(err, RIP_ERR_LEN, "ALIAS %s -> %s: output at %lld, input at %lld (must be equal)", in->id,
                     out->id, (long long)xo, (long long)xi);
            goto done;
        }
        if (c->kind == RIP_INPLACE_GAP && plan->shift[k] && xo != xi) {
            snprintf(err, RIP_ERR_LEN, "GAP %s -> %s with shift: output at %lld, input at %lld (must be equal)",
                     in->id, out->id, (long long)xo, (long long)xi);
            goto done;
        }
        if (c->kind == RIP_INPLACE_GAP && !plan->shift[k] && xi - xo < gap[k]) {
            snprintf(err, RIP_ERR_LEN,
                     "GAP %s -> %s: output at %lld is %lld bytes below the input at %lld, the gap needs %lld%s",
                     in->id, out->id, (long long)xo, (long long)(xi - xo), (long long)xi, (long long)gap[k],
                     simulate && c->has_layer ? " (simulated)" : "");
            goto done;
        }
    }
    qsort(used, n_used, sizeof *used, cmp_keyed);
    for (size_t u = 1; u < n_used; u++) {
        const rip_candidate *a = &p->cand[used[u - 1].idx], *b = &p->cand[used[u].idx];
        if (a->op == b->op) {
            snprintf(err, RIP_ERR_LEN, "op at step %d overwrites two inputs: %s (-> %s) and %s (-> %s)", a->op,
                     p->t[a->in].id, p->t[a->out].id, p->t[b->in].id, p->t[b->out].id);
            goto done;
        }
    }

    /* 3. pairs that meet in time */
    for (size_t i = 0; i < p->n; i++)
        order[i] = (keyed){p->t[i].first, (int)i};
    qsort(order, p->n, sizeof *order, cmp_keyed);
    for (size_t a = 0; a < p->n; a++) {
        int ia = order[a].idx;
        const rip_tensor *ta = &p->t[ia];
        int64_t a0 = plan->offset[ia], a1 = a0 + ta->size;
        for (size_t b = a + 1; b < p->n && order[b].key <= ta->last; b++) {
            int ib = order[b].idx;
            const rip_tensor *tb = &p->t[ib];
            int64_t b0 = plan->offset[ib], b1 = b0 + tb->size;
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
            goto done;
        }
    }

    /* 4. shifted input blocks */
    for (size_t u = 0; u < n_used; u++) {
        size_t k = (size_t)used[u].idx;
        const rip_candidate *c = &p->cand[k];
        if (!plan->shift[k])
            continue;
        int64_t x0 = plan->offset[c->in], x1 = x0 + gap[k] + p->t[c->in].size;
        if (x1 > plan->peak) {
            snprintf(err, RIP_ERR_LEN, "shifted input %s occupies [%lld, %lld) during op step %d, beyond the peak %lld",
                     p->t[c->in].id, (long long)x0, (long long)x1, c->op, (long long)plan->peak);
            goto done;
        }
        for (size_t i = 0; i < p->n; i++) {
            const rip_tensor *t = &p->t[i];
            if ((int)i == c->in || (int)i == c->out || t->first > c->op || t->last < c->op)
                continue;
            if (blocks_overlap(x0, x1, plan->offset[i], plan->offset[i] + t->size)) {
                snprintf(err, RIP_ERR_LEN,
                         "shift block [%lld, %lld) of input %s at op step %d overlaps tensor %s [%lld, %lld)",
                         (long long)x0, (long long)x1, p->t[c->in].id, c->op, t->id, (long long)plan->offset[i],
                         (long long)(plan->offset[i] + t->size));
                goto done;
            }
        }
    }

    /* 5. peak */
    int64_t peak = rip_plan_peak(p, plan);
    if (peak != plan->peak) {
        snprintf(err, RIP_ERR_LEN, "peak %lld reported, but the blocks end at %lld", (long long)plan->peak,
                 (long long)peak);
        goto done;
    }
    rc = 0;

done:
    free(order);
    free(out_cand);
    free(used);
    free(gap);
    free(sc.v);
    return rc;
}
