/*
** search.c — truth: the smallest gap for which a traversal completes.
**
** Completion is monotone in delta.  RiP: a larger gap moves every stored
** input up by the same amount and enlarges the workspace, so each write
** that cleared a live input or the end still clears it.  Herringbone: a
** larger gap only adds free slots.  So a binary search over rip_sim_run()
** on [0, N_out] finds the smallest completing delta, provided N_out itself
** completes, which it always does:
**   RiP          with delta = N_out every write address q*cout+gamma is
**                < N_out = delta, below all stored input, and below the
**                workspace size delta + n_stored;
**   herringbone  with delta = N_out the pool starts with at least N_out
**                free slots and only N_out writes are ever made.
** The search still checks the upper end, and reports an internal error
** rather than a wrong truth if that reasoning were ever broken.
*/
#include "sim_internal.h"

/*
** Contract (sim.h): *gap = min{ delta in [0, N_out] : run(delta) completes }.
** Returns 0, or -1 when the simulation cannot be built (out of memory, or L
** not derived) or, impossibly (see above), N_out does not complete; *gap is
** untouched on -1.  Cost: the build plus ceil(log2(N_out+1))+1 runs.
*/
int rip_sim_truth(const rip_layer *L, rip_exec e, rip_engine engine, int64_t *gap)
{
    if (gap == NULL)
        return -1;
    rip_sim *s = rip_sim_new(L, e, engine);
    if (s == NULL)
        return -1;
    int rc = -1;
    int64_t lo = 0, hi = L->n_out;
    if (!rip_sim_run(s, hi, NULL))
        goto out;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (rip_sim_run(s, mid, NULL))
            hi = mid;
        else
            lo = mid + 1;
    }
    *gap = lo;
    rc = 0;
out:
    rip_sim_free(s);
    return rc;
}
