/*
** bound.c — the minimum gap in one pass over an engine's tables.
**
** A run fails at the first write that lands too high: on live input, past
** the workspace, or into an empty pool.  Every such condition compares a
** write end against a limit that grows with delta one for one, so the run
** completes iff delta >= (write end - limit at delta 0) for every step, and
** the smallest completing delta is the maximum of that difference over the
** traversal (and 0).  This file computes that maximum from the tables
** rip_sim_new() built; search.c only uses it as a bracket and lets two runs
** of the simulator confirm it (sim/README.md, "Truth").
**
** Per engine, with end(q) = (q+1)*cout the end of step q's writes:
**   RiP fast   limit of step q: min(first, n_stored), first the first
**              scalar of the lowest live stored pixel at q (first_live[q]
**              for taps, [q+1] for gather); computed while first_live is
**              built (rip_fast.c).
**   RiP plain  per stored scalar x with last reader lr (>= 0): its cell
**              x + delta is written at step floor((x+delta)/cout), which
**              must come after its last read: x + delta >= (lr+taps)*cout;
**              plus the workspace end, N_out <= delta + n_stored.  That is
**              the same maximum, taken over scalars instead of steps.
**   herringbone (both engines share released[]): before step t the pool
**              has delta + released_at_start + sum_{u<t}(released[u] - cout)
**              free slots, at least cout are needed.
** All quantities stay below 2^63: sizes are capped at 2^62 by
** rip_sim_new(), and every difference here lies in [-2^62, 2^62].
*/
#include "sim_internal.h"

static bool exec_is_herringbone(rip_config e)
{
    return e == RIP_CONFIG_HB_TAPS || e == RIP_CONFIG_HB_TAPS_READER || e == RIP_CONFIG_HB_PRUNED;
}

/* max over steps of end(q) - min(first, n_stored), at least 0: taken
** by rip_fast_build() in the pass that builds first_live (the table is
** read once instead of twice), for gather and taps alike. */
static int64_t rip_fast_bound(const rip_sim *s)
{
    return s->taps ? s->bound_taps : s->bound_gather;
}

/* max over read stored scalars of (lr+taps)*cout - x, and N_out - n_stored. */
static int64_t rip_plain_bound(const rip_sim *s)
{
    const int64_t cout = s->L.cout, taps = s->taps ? 1 : 0;
    int64_t best = s->L.n_out - s->n_stored;
    for (int64_t x = 0; x < s->n_stored; x++) {
        const int64_t lr = s->last_reader[x];
        if (lr < 0)
            continue; /* never read: any write may land on it */
        const int64_t need = (lr + taps) * cout - x;
        if (need > best)
            best = need;
    }
    return best > 0 ? best : 0;
}

/* max over steps of cout - (free slots before step t at delta 0). */
static int64_t hb_bound(const rip_sim *s)
{
    const int64_t cout = s->L.cout;
    int64_t free0 = s->released_at_start; /* free slots before step t, delta 0 */
    int64_t best = 0;
    for (int64_t t = 0; t < s->n_pix; t++) {
        if (cout - free0 > best)
            best = cout - free0;
        free0 += s->released[t] - cout;
    }
    return best;
}

/*
** Contract (sim.h): the one-pass minimum gap of s, >= 0; -1 when s is NULL.
** Cost one pass over the tables: O(n_pix) fast, O(n_stored) plain RiP.
*/
int64_t rip_sim_bound(const rip_sim *s)
{
    if (s == NULL)
        return -1;
    if (exec_is_herringbone(s->exec))
        return hb_bound(s);
    return s->engine == RIP_ENGINE_PLAIN ? rip_plain_bound(s) : rip_fast_bound(s);
}
