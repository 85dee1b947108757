/*
** optimum.h — the traversal-optimal gap of a layer: the smallest
** herringbone_taps_reader gap (count-based pool, last-reader release) over
** every visiting order of the output pixels, by exact search, with an order
** that attains it (sim/README.md, "Traversal-optimal minimum").
*/
#ifndef RIPSIM_OPTIMUM_H
#define RIPSIM_OPTIMUM_H

#include <stdint.h>

#include "layer.h"
#include "status.h"

/* The exact search keeps 2^P states (P output pixels); never more than this. */
#define RIP_OPTIMUM_MAX_PIXELS 30
/* --max-pixels default of `ripsim optimal` and of the sweep option. */
#define RIP_OPTIMUM_DEFAULT_PIXELS 25

typedef struct rip_optimum {
    int64_t gap;        /* the optimum: smallest gap over all visiting orders */
    int64_t n_pix;      /* h_out * w_out */
    int64_t *order;     /* [n_pix] pixel indices r*w_out + c in visit order, attaining gap */
    int64_t hb_gap;     /* herringbone_taps_reader truth (herringbone order), an upper bound */
    int64_t row_gap;    /* the same rule in row-major order (RiP's order), an upper bound */
    int64_t lower;      /* the live-bytes lower bound */
    int64_t states;     /* subsets whose minimax value was computed (0: bounds met) */
} rip_optimum;

/*
** The traversal-optimal gap of L (derived): dynamic programming over the
** sets of produced pixels (the pool's free count depends only on that set),
** the peak over a path being a bottleneck shortest path over subsets,
** values clamped to [lower bound, upper bound + 1].  The order found is
** confirmed by the simulator (at gap it completes, at gap - 1 it fails) and
** gap <= hb_gap is checked.  max_pixels (1..RIP_OPTIMUM_MAX_PIXELS) refuses
** larger grids.  Returns RIP_OK with *o filled (free with
** rip_optimum_free); RIP_S_DATA with err when the grid has more than
** max_pixels pixels or the layer is otherwise too large for the search;
** RIP_S_NOMEM; RIP_S_INTERNAL when the simulator does not confirm the
** order (never a wrong optimum).  *o is zeroed on failure.
*/
rip_status rip_optimum_search(const rip_layer *L, int64_t max_pixels, rip_optimum *o, char err[RIP_ERR_LEN]);

/* Free what rip_optimum_search allocated in o (o may be NULL). */
void rip_optimum_free(rip_optimum *o);

#endif
