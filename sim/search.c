/*
** search.c — truth: the smallest gap for which a traversal completes.
**
** Completion is monotone in delta.  RiP: a larger gap moves every stored
** input up by the same amount and enlarges the workspace, so each write
** that cleared a live input or the end still clears it.  Herringbone: a
** larger gap only adds free slots.  So the truth g is pinned down by two
** runs: run(g) completes and run(g-1) fails (or g = 0).
**
** Two ways to find g:
**   bracket (default)  take g from one pass over the tables (bound.c) and
**                      let the two runs above confirm it: three passes in
**                      all instead of 1 + ceil(log2(N_out+1));
**   bisect             binary search over rip_sim_run() on [0, N_out], as
**                      a check of the bracket and for those who want the
**                      simulator alone to answer.
** The simulator stays the ground truth: the one-pass value only says where
** to look.  If the runs do not confirm it, that is an internal error, never
** a truth.  The bisection needs N_out itself to complete, which it always
** does:
**   RiP          with delta = N_out every write address q*cout+gamma is
**                < N_out = delta, below all stored input, and below the
**                workspace size delta + n_stored;
**   herringbone  with delta = N_out the pool starts with at least N_out
**                free slots and only N_out writes are ever made.
** It still checks the upper end, and reports an internal error rather than
** a wrong truth if that reasoning were ever broken.
*/
#include <stdio.h>

#include "sim_internal.h"

/* Contract (sim.h): run(g) completes and g == 0 or run(g-1) fails. */
bool rip_sim_confirm(rip_sim *s, int64_t g)
{
    if (s == NULL || g < 0 || g > s->L.n_out)
        return false;
    return rip_sim_run(s, g, NULL) && (g == 0 || !rip_sim_run(s, g - 1, NULL));
}

/* Binary search on [0, N_out]; -1 if N_out does not complete (see above). */
static int64_t bisect(rip_sim *s)
{
    int64_t lo = 0, hi = s->L.n_out;
    if (!rip_sim_run(s, hi, NULL))
        return -1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (rip_sim_run(s, mid, NULL))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/*
** Contract (sim.h): *gap = the truth of s by `how`.  Returns 0, or
** RIP_SIM_INTERNAL with one line in err (may be NULL) when the runs
** contradict the bracket or N_out fails; -1 when s or gap is NULL or how
** is out of range.  *gap is untouched unless 0 is returned.
*/
int rip_sim_search(rip_sim *s, rip_search how, int64_t *gap, char err[RIP_ERR_LEN])
{
    if (s == NULL || gap == NULL || (how != RIP_SEARCH_BRACKET && how != RIP_SEARCH_BISECT))
        return -1;
    const char *name = rip_config_name(s->exec);
    if (how == RIP_SEARCH_BISECT) {
        const int64_t g = bisect(s);
        if (g < 0) {
            if (err)
                snprintf(err, RIP_ERR_LEN, "simulator: %s does not complete at gap N_out = %lld "
                         "(internal error)", name, (long long)s->L.n_out);
            return RIP_SIM_INTERNAL;
        }
        *gap = g;
        return 0;
    }
    const int64_t g = rip_sim_bound(s);
    if (!rip_sim_confirm(s, g)) {
        if (err)
            snprintf(err, RIP_ERR_LEN, "simulator: %s: the one-pass gap %lld is not confirmed by the runs "
                     "(at %lld: %s; at %lld: %s) (internal error)", name, (long long)g, (long long)g,
                     rip_sim_run(s, g, NULL) ? "completes" : "fails", (long long)(g - 1),
                     g <= 0 ? "not run" : rip_sim_run(s, g - 1, NULL) ? "completes" : "fails");
        return RIP_SIM_INTERNAL;
    }
    *gap = g;
    return 0;
}

/*
** Contract (sim.h): the truth of L under e by `how`, one build.  0, -1
** (memory, refused arguments) or RIP_SIM_INTERNAL (see rip_sim_search).
*/
int rip_sim_truth_by(const rip_layer *L, rip_config e, rip_engine engine, rip_search how, int64_t *gap,
                     char err[RIP_ERR_LEN])
{
    if (gap == NULL)
        return -1;
    rip_sim *s = rip_sim_new(L, e, engine);
    if (s == NULL)
        return -1;
    const int rc = rip_sim_search(s, how, gap, err);
    rip_sim_free(s);
    return rc;
}

/* Contract (sim.h): rip_sim_truth_by with the bracket and no message. */
int rip_sim_truth(const rip_layer *L, rip_config e, rip_engine engine, int64_t *gap)
{
    return rip_sim_truth_by(L, e, engine, RIP_SEARCH_BRACKET, gap, NULL);
}

/*
** Contract (sim.h): all seven truths, tables built once per layout: the
** first six configurations come in pairs (padded gather/taps, dense
** gather/taps, herringbone window/reader) and the second of a pair reuses
** the first's object through rip_sim_retarget(); herringbone_pruned (even
** index, its own store) gets its own build.  On failure gaps[] may be partly set.
*/
int rip_sim_truths(const rip_layer *L, rip_engine engine, rip_search how, int64_t gaps[RIP_CONFIG_COUNT],
                   rip_sim_each_fn *each, void *ctx, char err[RIP_ERR_LEN])
{
    if (gaps == NULL)
        return -1;
    rip_sim *s = NULL;
    int rc = 0;
    for (int e = 0; e < RIP_CONFIG_COUNT && rc == 0; e++) {
        if (each)
            each(ctx, (rip_config)e);
        if (e % 2 == 0) {
            rip_sim_free(s);
            s = rip_sim_new(L, (rip_config)e, engine);
        } else if (s != NULL && rip_sim_retarget(s, (rip_config)e) != 0) {
            rip_sim_free(s);
            s = NULL;
        }
        if (s == NULL) {
            if (err)
                snprintf(err, RIP_ERR_LEN, "out of memory while simulating %s", rip_config_name((rip_config)e));
            rc = -1;
            break;
        }
        rc = rip_sim_search(s, how, &gaps[e], err);
    }
    rip_sim_free(s);
    return rc;
}
