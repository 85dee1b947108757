/*
** stored_rows.h — the simulator's rows that the database stores but does
** not compute (db.h's rip_db_pruned_fn and rip_db_optimum_fn): the caller
** of rip_db_migrate and rip_db_optima_fill passes these, so that db/ only
** stores and reads while sim/ stays the one that computes.
*/
#ifndef RIPSIM_STORED_ROWS_H
#define RIPSIM_STORED_ROWS_H

#include <stdint.h>

#include "layer.h"
#include "status.h"

/*
** For a converted layer L (derived): the padded input scalars some tap
** reads (rip_sim_read_scalars) into *n_in_read and the truth of
** herringbone_pruned by the fast simulator with the bracketing search (a
** default sweep's) into *gap.  RIP_OK; RIP_S_NOMEM, RIP_S_INTERNAL (the
** simulator) with why.
*/
rip_status rip_eval_pruned_row(const rip_layer *L, int64_t *n_in_read, int64_t *gap, char why[RIP_ERR_LEN]);

/*
** The traversal optimum of L (derived, at most max_pixels output pixels;
** sim/optimum.h): *gap, *lower (live-bytes bound), *row_gap (the same rule
** in row-major order) and an attaining order into order[max_pixels], *n_pix
** entries.  RIP_OK, or rip_optimum_search's status with why.
*/
rip_status rip_eval_optimum_row(const rip_layer *L, int64_t max_pixels, int64_t *gap, int64_t *lower,
                                int64_t *row_gap, int64_t *order, int64_t *n_pix, char why[RIP_ERR_LEN]);

#endif
