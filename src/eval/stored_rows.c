/*
** stored_rows.c — the simulator's rows for the database (stored_rows.h).
*/
#include "stored_rows.h"

#include <stdio.h>
#include <string.h>

#include "optimum.h"
#include "sim.h"

rip_status rip_eval_pruned_row(const rip_layer *L, int64_t *n_in_read, int64_t *gap, char why[RIP_ERR_LEN])
{
    char e[RIP_ERR_LEN];
    if ((*n_in_read = rip_sim_read_scalars(L)) < 0) {
        snprintf(why, RIP_ERR_LEN, "out of memory simulating herringbone_pruned");
        return RIP_S_NOMEM;
    }
    if (rip_sim_truth_by(L, RIP_CONFIG_HB_PRUNED, RIP_ENGINE_FAST, RIP_SEARCH_BRACKET, gap, e) != 0) {
        snprintf(why, RIP_ERR_LEN, "herringbone_pruned not simulated (%.300s)", e);
        return RIP_S_INTERNAL;
    }
    return RIP_OK;
}

rip_status rip_eval_optimum_row(const rip_layer *L, int64_t max_pixels, int64_t *gap, int64_t *lower,
                                int64_t *row_gap, int64_t *order, int64_t *n_pix, char why[RIP_ERR_LEN])
{
    rip_optimum o;
    rip_status s = rip_optimum_search(L, max_pixels, &o, why);
    if (s != RIP_OK)
        return s;
    if (o.n_pix > max_pixels) {
        snprintf(why, RIP_ERR_LEN, "the optimum's order has %lld pixels, above %lld", (long long)o.n_pix,
                 (long long)max_pixels);
        rip_optimum_free(&o);
        return RIP_S_INTERNAL;
    }
    *gap = o.gap;
    *lower = o.lower;
    *row_gap = o.row_gap;
    *n_pix = o.n_pix;
    memcpy(order, o.order, (size_t)o.n_pix * sizeof *order);
    rip_optimum_free(&o);
    return RIP_OK;
}
