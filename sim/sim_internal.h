/*
** sim_internal.h — the simulator object shared by the files of sim/.
**
** Not installed, not included outside sim/.  One rip_sim holds, for one
** layer and one execution configuration, the tables that rip_sim_new()
** builds once so that rip_sim_run() costs one pass over the traversal:
**
**   RiP, plain engine   last_reader[]   per stored input scalar
**   RiP, fast engine    first_live[]    per traversal step (pixel)
**   herringbone, both   order[] and released[] per traversal step, plus
**                       released_at_start (the plain engine counts every
**                       scalar into released[] one by one, the fast engine
**                       adds cin per input pixel)
**
** Pointers a configuration does not use stay NULL; rip_sim_free() frees
** whatever is set.
*/
#ifndef RIPSIM_SIM_INTERNAL_H
#define RIPSIM_SIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "layer.h"
#include "sim.h"

/* "No such pixel / never": larger than any address or step. */
#define RIP_SIM_NONE INT64_MAX

struct rip_sim {
    rip_layer L;            /* a copy: the caller's layer may go away */
    rip_config exec;
    rip_engine engine;
    int64_t n_pix;          /* output pixels h_out*w_out = traversal steps */

    /* RiP configurations */
    int64_t n_stored;       /* stored input scalars: workspace = delta + n_stored
                               (herringbone_pruned: the read scalars, set by its build) */
    bool taps;              /* taps read from the workspace: live iff last reader >= q */
    int64_t *last_reader;   /* plain: [n_stored], pixel ordinal q of the last reader, -1 if none */
    int64_t *first_live;    /* fast: [n_pix+1], first scalar (ordinal * cin) of the
                               lowest stored input pixel whose last reader is
                               >= t, RIP_SIM_NONE if there is none */
    int64_t bound_gather, bound_taps; /* fast: one-pass gaps (bound.c), found while
                               first_live is built */
    int64_t first_none;     /* fast: the first t with first_live[t] == RIP_SIM_NONE
                               (n_pix + 1 when there is none) */

    /* herringbone configurations */
    int64_t *order;         /* [n_pix] step -> pixel index r*w_out + c (any permutation) */
    bool order_monotone;    /* visit time non-decreasing along every row and column
                               (herringbone, row-major): the fast engine's corner lookup */
    int64_t *released;      /* [n_pix] input scalars released after step t's writes */
    int64_t released_at_start; /* never-read scalars freed before the first write (reader rule) */
};

/*
** Allocate n zeroed int64_t.  Returns NULL when n < 0, when n elements do
** not fit in size_t, or when memory runs out.  n == 0 allocates one element
** so that NULL always means failure.
*/
int64_t *rip_sim_alloc_i64(int64_t n);
/* The same, not zeroed: for tables the builder writes in full (zeroing
** them first costs a pass over memory per layer in a sweep). */
int64_t *rip_sim_alloc_i64_raw(int64_t n);

/*
** Per-axis reader tables (readers.c).  Along one axis a layer has n_pos
** padded positions, n_out outputs, k taps of dilation d, stride s; output o
** tap a lands on position o*s + a*d.
**
** rip_axis_last_reader: last[i] = the largest o whose some tap lands on i,
** -1 if none does.  last has n_pos entries.  Never fails.
**
** rip_axis_window_corner: corner[i] = min(floor(i/s), n_out-1), the last
** output whose window origin o*s is <= i.  corner has n_pos entries.
*/
void rip_axis_last_reader(int64_t n_pos, int64_t n_out, int64_t k, int64_t s, int64_t d,
                          int64_t *last);
void rip_axis_window_corner(int64_t n_pos, int64_t n_out, int64_t s, int64_t *corner);

/* The window rule's release step per window corner, plain engines (hb_plain.c). */
void rip_plain_visit_prefix(const rip_sim *s, int64_t *prefix);

/*
** The separable release table (hb_fast.c): padded input pixel (i,j), cin
** scalars, is released after the visit (vt: visit step per output pixel)
** of output (rowt[i], colt[j]); a pixel whose row or column entry is
** negative is not placed but counted in *at_start.  Adds to s->released
** (which the caller zeroed); *placed receives the scalars placed.  Grouped
** by output row and column: O(h_out w_out + h_p + w_p), not O(h_p w_p).
** Returns 0, or -1 when memory runs out.
*/
int rip_release_by_corner(rip_sim *s, const int64_t *vt, const int64_t *rowt, const int64_t *colt,
                          int64_t *at_start, int64_t *placed);

/*
** Engine builders: fill the tables of s (whose L, exec, engine, n_pix,
** n_stored and taps are set).  Each returns 0, or -1 when memory runs out;
** on -1 whatever they allocated is either freed or left in s for
** rip_sim_free().
*/
int rip_plain_build(rip_sim *s);   /* rip_plain.c: last_reader */
int rip_fast_build(rip_sim *s);    /* rip_fast.c:  first_live */
int hb_plain_build(rip_sim *s);    /* hb_plain.c:  released, from s->order */
int hb_fast_build(rip_sim *s);     /* hb_fast.c:   released, from s->order */
int hb_pruned_build(rip_sim *s);   /* hb_pruned.c: order, released, n_stored (both engines) */
/* hb_fast.c: released and released_at_start for s->exec's rule, from
** s->order (the part of hb_fast_build that rip_sim_retarget redoes). */
int hb_fast_release(rip_sim *s);

/*
** Engine runs with gap delta >= 0: true iff the traversal completes; rep
** (never NULL here) receives the outcome and the first failing write.
*/
bool rip_plain_run(const rip_sim *s, int64_t delta, rip_run_report *rep);
bool rip_fast_run(const rip_sim *s, int64_t delta, rip_run_report *rep);
bool hb_plain_run(const rip_sim *s, int64_t delta, rip_run_report *rep);
bool hb_fast_run(const rip_sim *s, int64_t delta, rip_run_report *rep);

/* a + b for a, b >= 0, saturating at INT64_MAX instead of wrapping. */
static inline int64_t rip_sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

#endif
