/*
** milp_start.c — the milp strategy's start portfolio (milp.c describes the
** strategy): the greedy strategies and, for buffer lists, the exact search,
** each run on its share of the time (or its budget under opts.reproducible),
** checked and compacted onto the U grid; the best becomes the start of the
** neighbourhood search and of CBC.
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "milp_internal.h"
#include "plan.h"
#include "plan_log.h"
#include "status.h"
#include "strategies.h"

/*
** Run the start heuristics; the best checked, compacted plan goes to best.
** Each time-limited heuristic gets its share, at most what remains before
** the deadline (0: none); once it has passed, only naive (linear time)
** still runs, and only if no plan was found yet.  Under opts.reproducible
** no heuristic looks at the clock (hill-climb runs its iteration budget,
** exact MILP_EXACT_START_NODES nodes) and *clocked is set when the
** deadline passed over a heuristic all the same.  A heuristic that finds
** no plan is passed over, one that runs out of memory is not: RIP_S_NOMEM,
** like running out here (a start missed for want of memory would make a
** worse plan look like the solver's result).
*/
rip_status mp_start(const mp *m, const rip_plan_opts *o, double deadline, rip_plan *best, char *src,
                    size_t srclen, bool *clocked, char err[RIP_ERR_LEN])
{
    static const char *const names[] = {"tinyengine", "greedy-size", "hill-climb", "exact", "naive"};
    const rip_problem *p = m->p;
    bool have = false;
    double best_obj = 0;
    bool *below = malloc(((size_t)m->npair + 1) * sizeof *below);
    if (!below) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    for (size_t h = 0; h < sizeof names / sizeof names[0]; h++) {
        const rip_strategy *st = rip_strategy_by_name(names[h]);
        if (!st)
            continue;
        if (have && best->peak <= best->lower_bound && strcmp(names[h], "naive") != 0)
            break;   /* the bound is reached: nothing can do better */
        bool exact = strcmp(names[h], "exact") == 0, naive = strcmp(names[h], "naive") == 0;
        if (exact && p->n_cand > 0)
            continue;   /* the exact search places raw buffers only */
        double left = deadline > 0 ? deadline - mp_now() : 0;
        if (deadline > 0 && left <= 0 && (have || !naive)) {
            *clocked = true;
            continue;   /* time is up */
        }
        rip_plan *pl = rip_plan_new(p, names[h]);
        if (!pl) {
            free(below);
            snprintf(err, RIP_ERR_LEN, "out of memory");
            return RIP_S_NOMEM;
        }
        rip_plan_opts ho = *o;
        ho.verbose = false;
        ho.capacity = 0;
        ho.time_limit = 1.0;
        if (o->time_limit > 0 && o->time_limit / 10 < ho.time_limit)
            ho.time_limit = o->time_limit / 10;
        if (exact)
            ho.time_limit = o->time_limit > 0 && o->time_limit / 4 < 30 ? o->time_limit / 4 : 30;
        if (deadline > 0 && left < ho.time_limit)
            ho.time_limit = left > 0.001 ? left : 0.001;
        if (o->reproducible) {
            ho.time_limit = 0;
            ho.node_limit = exact ? MILP_EXACT_START_NODES : 0;
        }
        char herr[RIP_ERR_LEN];
        int hs = st->run(p, &ho, pl, herr), cs = 0;   /* cs: mp_compact's, or -1 when the check ran out */
        if (hs == 0 && !pl->bound_only) {
            mp_orient(m, pl->offset, below);
            cs = mp_compact(m, pl->in_place, pl->shift, below, pl->offset);
            if (cs == 0) {
                pl->peak = rip_plan_peak(p, pl);
                rip_status ck = rip_plan_check(p, pl, false, herr);
                if (ck == RIP_S_NOMEM) {
                    cs = -1;
                } else if (ck == RIP_OK) {
                    double obj = mp_objective(p, pl);
                    if (o->verbose)
                        rip_plan_log(o, "milp: start %s: peak %lld", names[h], (long long)pl->peak);
                    if (!have || obj < best_obj) {
                        have = true;
                        best_obj = obj;
                        memcpy(best->offset, pl->offset, p->n * sizeof *pl->offset);
                        if (p->n_cand) {
                            memcpy(best->in_place, pl->in_place, p->n_cand * sizeof *pl->in_place);
                            memcpy(best->shift, pl->shift, p->n_cand * sizeof *pl->shift);
                        }
                        best->peak = pl->peak;
                        snprintf(src, srclen, "%s", names[h]);
                    }
                } else if (o->verbose) {
                    rip_plan_log(o, "milp: start %s rejected: %s", names[h], herr);
                }
            }
        }
        rip_plan_free(pl);
        if (hs == RIP_S_NOMEM || cs < 0) {
            free(below);
            snprintf(err, RIP_ERR_LEN, "out of memory (start %s)", names[h]);
            return RIP_S_NOMEM;
        }
    }
    free(below);
    if (!have) {
        snprintf(err, RIP_ERR_LEN, "no start heuristic gave a valid plan");
        return RIP_S_INTERNAL;
    }
    return RIP_OK;
}
