/*
** sim.c — the public face of the simulator: configuration names, the
** rip_sim object's life cycle, and the dispatch of a run to its engine.
**
** The engines themselves live in rip_plain.c, rip_fast.c (row-major RiP)
** and hb_plain.c, hb_fast.c (herringbone); the one-pass gap in bound.c,
** the search in search.c.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

static const char *const exec_names[RIP_CONFIG_COUNT] = {
    [RIP_CONFIG_PADDED_GATHER] = "rip_padded_gather",
    [RIP_CONFIG_PADDED_TAPS] = "rip_padded_taps",
    [RIP_CONFIG_DENSE_GATHER] = "rip_dense_gather",
    [RIP_CONFIG_DENSE_TAPS] = "rip_dense_taps",
    [RIP_CONFIG_HB_TAPS] = "herringbone_taps",
    [RIP_CONFIG_HB_TAPS_READER] = "herringbone_taps_reader",
    [RIP_CONFIG_HB_PRUNED] = "herringbone_pruned",
};

/* Name of e, or "unknown" for a value outside the enum (never NULL, so a
** caller may print it unchecked). */
const char *rip_config_name(rip_config e)
{
    if ((int)e < 0 || e >= RIP_CONFIG_COUNT)
        return "unknown";
    return exec_names[e];
}

/* The configuration called name, RIP_CONFIG_COUNT if none (or name NULL). */
rip_config rip_config_from_name(const char *name)
{
    if (name == NULL)
        return RIP_CONFIG_COUNT;
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        if (strcmp(name, exec_names[e]) == 0)
            return (rip_config)e;
    return RIP_CONFIG_COUNT;
}

int64_t *rip_sim_alloc_i64(int64_t n)
{
    if (n < 0 || (uint64_t)n >= SIZE_MAX / sizeof(int64_t))
        return NULL;
    return calloc(n > 0 ? (size_t)n : 1, sizeof(int64_t));
}

int64_t *rip_sim_alloc_i64_raw(int64_t n)
{
    if (n < 0 || (uint64_t)n >= SIZE_MAX / sizeof(int64_t))
        return NULL;
    return malloc((n > 0 ? (size_t)n : 1) * sizeof(int64_t));
}

/*
** True iff the derived fields of L agree with its user-facing ones, i.e. L
** went through rip_layer_derive().  The engines index arrays with these
** sizes, so a layer that was never derived must be refused rather than
** trusted: a wrong h_out would write out of bounds.
*/
static bool layer_is_derived(const rip_layer *L)
{
    if (L->cin < 1 || L->cout < 1 || L->h_in < 1 || L->w_in < 1 || L->k_h < 1 ||
        L->k_w < 1 || L->s_h < 1 || L->s_w < 1 || L->d_h < 1 || L->d_w < 1 ||
        L->p_top < 0 || L->p_bottom < 0 || L->p_left < 0 || L->p_right < 0)
        return false;
    /* Recompute every derived field with overflow checks: a garbage layer
    ** must not reach signed overflow (undefined behaviour) here either. */
    int64_t kh, kw, hp, wp, t, in_p, in_d, out;
    if (__builtin_mul_overflow(L->d_h, L->k_h - 1, &kh) || __builtin_add_overflow(kh, 1, &kh) ||
        __builtin_mul_overflow(L->d_w, L->k_w - 1, &kw) || __builtin_add_overflow(kw, 1, &kw) ||
        __builtin_add_overflow(L->h_in, L->p_top, &hp) || __builtin_add_overflow(hp, L->p_bottom, &hp) ||
        __builtin_add_overflow(L->w_in, L->p_left, &wp) || __builtin_add_overflow(wp, L->p_right, &wp))
        return false;
    if (L->keff_h != kh || L->keff_w != kw || L->h_p != hp || L->w_p != wp ||
        hp < kh || wp < kw)
        return false;
    if (L->h_out != (hp - kh) / L->s_h + 1 || L->w_out != (wp - kw) / L->s_w + 1)
        return false;
    if (__builtin_mul_overflow(hp, wp, &t) || __builtin_mul_overflow(t, L->cin, &in_p) ||
        __builtin_mul_overflow(L->h_in, L->w_in, &t) || __builtin_mul_overflow(t, L->cin, &in_d) ||
        __builtin_mul_overflow(L->h_out, L->w_out, &t) || __builtin_mul_overflow(t, L->cout, &out))
        return false;
    /* The engines add an address and a gap; keep sizes clear of the top. */
    if (in_p > (INT64_C(1) << 62) || out > (INT64_C(1) << 62))
        return false;
    return L->n_in_padded == in_p && L->n_in_dense == in_d && L->n_out == out;
}

static bool exec_is_rip(rip_config e)
{
    return e == RIP_CONFIG_PADDED_GATHER || e == RIP_CONFIG_PADDED_TAPS ||
           e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS;
}

/* Contract (sim.h): rip_sim_new_order() with the herringbone order. */
rip_sim *rip_sim_new(const rip_layer *L, rip_config e, rip_engine engine)
{
    return rip_sim_new_order(L, e, engine, NULL);
}

/*
** True iff the visit time vt (pixel -> step) is non-decreasing along every
** row and every column of the H x W grid: then the latest visit over any
** up-left rectangle, and over any product of row and column sets, is the
** visit time of its largest corner (hb_fast.c relies on this, and checks it
** here instead of assuming it of the herringbone order).
*/
static bool visit_monotone(const int64_t *vt, int64_t H, int64_t W)
{
    for (int64_t r = 0; r < H; r++)
        for (int64_t c = 0; c < W; c++) {
            if (r > 0 && vt[(r - 1) * W + c] > vt[r * W + c])
                return false;
            if (c > 0 && vt[r * W + c - 1] > vt[r * W + c])
                return false;
        }
    return true;
}

/*
** Fill s->order from order (NULL: the herringbone order) and set
** s->order_monotone.  Returns 0, or -1 when memory runs out or order is
** not a permutation of the n_pix output pixels.  The herringbone order is
** taken as it is: it is a permutation and monotone by construction (pixel
** (r,c) lies on leg min(r,c), legs are visited in turn and each runs away
** from the diagonal), which tests/test_sim.c checks on every grid up to
** 24 x 24; checking it again per layer cost a sweep 5% of its CPU.
*/
static int set_order(rip_sim *s, const int64_t *order)
{
    int rc = -1;
    int64_t *vt = NULL;
    if ((s->order = rip_sim_alloc_i64_raw(s->n_pix)) == NULL)
        goto out;
    if (order == NULL) {
        if (rip_herringbone_order(s->L.h_out, s->L.w_out, s->order) != 0)
            goto out;
        s->order_monotone = true;
        rc = 0;
        goto out;
    }
    if ((vt = rip_sim_alloc_i64_raw(s->n_pix)) == NULL)
        goto out;
    for (int64_t t = 0; t < s->n_pix; t++)
        s->order[t] = order[t];
    for (int64_t q = 0; q < s->n_pix; q++)
        vt[q] = -1;
    for (int64_t t = 0; t < s->n_pix; t++) {
        const int64_t q = s->order[t];
        if (q < 0 || q >= s->n_pix || vt[q] >= 0)
            goto out; /* out of range or visited twice: not a permutation */
        vt[q] = t;
    }
    s->order_monotone = visit_monotone(vt, s->L.h_out, s->L.w_out);
    rc = 0;
out:
    free(vt);
    return rc;
}

/*
** Contract (sim.h): a simulation of derived layer L under e with engine,
** visiting the output pixels in order (herringbone configurations; NULL:
** the herringbone order).  Returns NULL when L is not derived, e or engine
** is out of range, order is given for a RiP configuration or
** herringbone_pruned or is not a permutation, or memory runs out; never a
** half-built object.
*/
rip_sim *rip_sim_new_order(const rip_layer *L, rip_config e, rip_engine engine, const int64_t *order)
{
    if (L == NULL || (int)e < 0 || e >= RIP_CONFIG_COUNT ||
        (engine != RIP_ENGINE_PLAIN && engine != RIP_ENGINE_FAST) || !layer_is_derived(L) ||
        (order != NULL && exec_is_rip(e)))
        return NULL;

    rip_sim *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->L = *L;
    s->exec = e;
    s->engine = engine;
    s->n_pix = L->h_out * L->w_out;
    s->taps = (e == RIP_CONFIG_PADDED_TAPS || e == RIP_CONFIG_DENSE_TAPS);
    s->n_stored = (e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS)
                      ? L->n_in_dense : L->n_in_padded;

    int rc;
    if (exec_is_rip(e))
        rc = engine == RIP_ENGINE_PLAIN ? rip_plain_build(s) : rip_fast_build(s);
    else if (e == RIP_CONFIG_HB_PRUNED)   /* visits in herringbone order only (App. E.3) */
        rc = order != NULL ? -1 : hb_pruned_build(s);
    else if ((rc = set_order(s, order)) == 0)
        rc = engine == RIP_ENGINE_PLAIN ? hb_plain_build(s) : hb_fast_build(s);
    if (rc != 0) {
        rip_sim_free(s);
        return NULL;
    }
    return s;
}

static bool exec_is_dense(rip_config e)
{
    return e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS;
}

/*
** Contract (sim.h): switch s to configuration e of the same layout.  RiP:
** the tables (last_reader, first_live) do not depend on gather or taps,
** only the liveness test does.  Herringbone: the order is kept and the
** releases are recomputed for e's rule (fast), or everything is rebuilt
** (plain, whose per-scalar pass is the point of that engine).
** herringbone_pruned stores another input, so it is never a target or a
** source (-1).
*/
int rip_sim_retarget(rip_sim *s, rip_config e)
{
    if (s == NULL || (int)e < 0 || e >= RIP_CONFIG_COUNT)
        return -1;
    if (exec_is_rip(s->exec) != exec_is_rip(e))
        return -1;
    if (exec_is_rip(e)) {
        if (exec_is_dense(s->exec) != exec_is_dense(e))
            return -1;
        s->exec = e;
        s->taps = (e == RIP_CONFIG_PADDED_TAPS || e == RIP_CONFIG_DENSE_TAPS);
        return 0;
    }
    if (s->exec == e)
        return 0;
    if (s->exec == RIP_CONFIG_HB_PRUNED || e == RIP_CONFIG_HB_PRUNED)
        return -1; /* another stored input: its own tables */
    s->exec = e;
    if (s->engine == RIP_ENGINE_FAST)
        return hb_fast_release(s);
    free(s->released); /* the order stays: both rules visit the same one */
    s->released = NULL;
    s->released_at_start = 0;
    return hb_plain_build(s);
}

/* Frees s and every table it owns; s may be NULL. */
void rip_sim_free(rip_sim *s)
{
    if (s == NULL)
        return;
    free(s->last_reader);
    free(s->first_live);
    free(s->order);
    free(s->released);
    free(s);
}

/*
** Contract (sim.h): run with gap delta.  s == NULL or delta < 0 is not a
** run: the answer is false with rep->step = -1 (outcome OVERFLOW for RiP,
** NO_SLOT for herringbone, the failure a too-small workspace would give).
*/
bool rip_sim_run(rip_sim *s, int64_t delta, rip_run_report *rep)
{
    rip_run_report local;
    if (rep == NULL)
        rep = &local;
    rep->outcome = RIP_RUN_OK;
    rep->step = rep->pixel_r = rep->pixel_c = rep->address = -1;
    if (s == NULL || delta < 0) {
        rep->outcome = (s != NULL && !exec_is_rip(s->exec)) ? RIP_RUN_NO_SLOT : RIP_RUN_OVERFLOW;
        return false;
    }
    if (exec_is_rip(s->exec))
        return s->engine == RIP_ENGINE_PLAIN ? rip_plain_run(s, delta, rep)
                                             : rip_fast_run(s, delta, rep);
    return s->engine == RIP_ENGINE_PLAIN ? hb_plain_run(s, delta, rep)
                                         : hb_fast_run(s, delta, rep);
}
