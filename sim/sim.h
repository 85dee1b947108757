/*
** sim.h — the allocation-tracking simulator: ground truth for every gap.
**
** The simulator executes a traversal in a tracked workspace and reports the
** first write that corrupts a live input, overflows the workspace, or finds
** no free slot.  It never evaluates a closed form and never includes
** anything from formulas/.  Its semantics (geometry, the seven execution
** configurations, truth) are specified in sim/README.md.
**
** Two engines implement the same semantics:
**   RIP_ENGINE_PLAIN  scalar by scalar: every tap of every output is
**                     enumerated into a per-scalar last-reader map, every
**                     output scalar write is checked individually.
**   RIP_ENGINE_FAST   pixel by pixel: last readers per input pixel from the
**                     separable row/column reader sets, one check per output
**                     pixel.  Tests show both give the same truth.
*/
#ifndef RIPSIM_SIM_H
#define RIPSIM_SIM_H

#include "layer.h"

/* The execution configurations a layer's truth is simulated under (the
** exec_config of the database): the four rip_* (the first four, the ones
** src/exec/'s int8 kernels run: RIP_KERNEL_CONFIG_COUNT) and the three
** herringbone ones; RIP_CONFIG_COUNT of them in all. */
typedef enum {
    RIP_CONFIG_PADDED_GATHER = 0,
    RIP_CONFIG_PADDED_TAPS,
    RIP_CONFIG_DENSE_GATHER,
    RIP_CONFIG_DENSE_TAPS,
    RIP_CONFIG_HB_TAPS,          /* herringbone_taps: window release */
    RIP_CONFIG_HB_TAPS_READER,   /* herringbone_taps_reader: last-reader release */
    RIP_CONFIG_HB_PRUNED,        /* herringbone_pruned: unread input never stored (App. E.3),
                                    window release */
    RIP_CONFIG_COUNT
} rip_config;

typedef enum { RIP_ENGINE_PLAIN = 0, RIP_ENGINE_FAST = 1 } rip_engine;

typedef enum {
    RIP_RUN_OK = 0,       /* traversal completed */
    RIP_RUN_CORRUPTION,   /* RiP: a write landed on a live input scalar */
    RIP_RUN_OVERFLOW,     /* RiP: a write at an address >= workspace size */
    RIP_RUN_NO_SLOT       /* herringbone: a write found no free slot */
} rip_run_outcome;

typedef struct rip_run_report {
    rip_run_outcome outcome;
    int64_t step;      /* traversal step (output pixel ordinal) of the failure */
    int64_t pixel_r, pixel_c; /* output pixel of the failure */
    int64_t address;   /* RiP: workspace address written; herringbone: -1 */
} rip_run_report;

/* Stable name of an execution configuration, e.g. "rip_dense_taps". */
const char *rip_config_name(rip_config e);
/* Inverse of rip_config_name; returns RIP_CONFIG_COUNT if unknown. */
rip_config rip_config_from_name(const char *name);

typedef struct rip_sim rip_sim;

/*
** Prepare a simulation of layer L (derived) under configuration e: computes
** the reader/release tables once so that rip_sim_run() can be called for
** many gaps.  Returns NULL if memory for the tables cannot be allocated,
** and also (rather than trusting it) if L is NULL or was not derived by
** rip_layer_derive(), or e / engine is out of range.  The layer is copied.
*/
rip_sim *rip_sim_new(const rip_layer *L, rip_config e, rip_engine engine);
/*
** The same for a herringbone pool configuration (herringbone_taps or
** herringbone_taps_reader) visiting the output pixels in order[] (the
** h_out*w_out indices r*w_out + c in visit order, copied): the
** herringbone order and the row-major order are two instances of it
** (sim/README.md, "Visiting orders").  order NULL is the herringbone order,
** i.e. rip_sim_new().  Returns NULL as rip_sim_new(), and also when e is a
** RiP configuration with order non-NULL or order is not a permutation of
** the output pixels.
*/
rip_sim *rip_sim_new_order(const rip_layer *L, rip_config e, rip_engine engine, const int64_t *order);
void rip_sim_free(rip_sim *s);

/* Run the traversal with gap delta >= 0.  Returns true iff it completes;
** rep (may be NULL) receives the outcome and where it failed: the first
** failing output scalar write, which both engines name identically (step,
** pixel, and for RiP the address).  On success rep->outcome is RIP_RUN_OK
** and the other fields are -1.  s == NULL or delta < 0 is not a run: false,
** with step -1.  Gaps too large for the arithmetic saturate. */
bool rip_sim_run(rip_sim *s, int64_t delta, rip_run_report *rep);

/*
** Reuse the tables of s for configuration e: gather and taps of one RiP
** layout share them (only the liveness test differs), and the two
** herringbone configurations of the padded store share the visiting order.
** Returns 0, or -1 (s unchanged unless memory ran out, when s must only be
** freed) when e has another layout than s (herringbone_pruned stores
** another input than every other configuration), or on running out of
** memory.
*/
int rip_sim_retarget(rip_sim *s, rip_config e);

/*
** The minimum gap of s in one pass over its tables (sim/README.md,
** "Truth"): the maximum over the traversal of write end minus the limit
** that write must stay under, at least 0.  A bracket for the search, not a
** truth: rip_sim_search() confirms it by running the simulator.  -1 when s
** is NULL.
*/
int64_t rip_sim_bound(const rip_sim *s);

/* True iff g is the truth of s: run(g) completes and g == 0 or run(g-1)
** fails (completion is monotone in the gap).  False for g outside
** [0, N_out] or s NULL. */
bool rip_sim_confirm(rip_sim *s, int64_t g);

typedef enum {
    RIP_SEARCH_BRACKET = 0, /* one-pass gap, confirmed by the runs at it and at it - 1 */
    RIP_SEARCH_BISECT       /* binary search over [0, N_out] (1 + ceil(log2(N_out+1)) runs) */
} rip_search;

/* Returned when the simulator contradicts itself: the runs do not confirm
** the one-pass gap, or the run at N_out fails.  Never a truth. */
#define RIP_SIM_INTERNAL (-2)

/*
** Truth of s: the smallest delta in [0, N_out] for which the run
** completes, found by `how`.  Returns 0 and writes *gap; -1 when s or gap
** is NULL or how is out of range; RIP_SIM_INTERNAL with one line in err
** (may be NULL).  *gap is untouched unless 0 is returned.
*/
int rip_sim_search(rip_sim *s, rip_search how, int64_t *gap, char err[RIP_ERR_LEN]);

/*
** Truth of L under e: one build and rip_sim_search().  Returns 0 and
** writes *gap; -1 if memory could not be allocated (or rip_sim_new()
** refused its arguments, or gap is NULL); RIP_SIM_INTERNAL as above.  *gap
** is untouched unless 0 is returned.  rip_sim_truth() is
** rip_sim_truth_by() with RIP_SEARCH_BRACKET and no message.
*/
int rip_sim_truth_by(const rip_layer *L, rip_config e, rip_engine engine, rip_search how, int64_t *gap,
                     char err[RIP_ERR_LEN]);
int rip_sim_truth(const rip_layer *L, rip_config e, rip_engine engine, int64_t *gap);

/* Called before each configuration's truth is searched (progress). */
typedef void rip_sim_each_fn(void *ctx, rip_config e);

/*
** All seven truths of L into gaps[e], building tables once per layout
** (rip_sim_retarget).  each (may be NULL) is called with ctx before each
** configuration.  Returns 0; -1 (memory, refused layer) or
** RIP_SIM_INTERNAL with one line in err (may be NULL), gaps[] then partly
** written.
*/
int rip_sim_truths(const rip_layer *L, rip_engine engine, rip_search how, int64_t gaps[RIP_CONFIG_COUNT],
                   rip_sim_each_fn *each, void *ctx, char err[RIP_ERR_LEN]);

/*
** Padded input scalars some output tap reads (the store of
** herringbone_pruned; sim/README.md): the read padded rows times the read
** padded columns times cin.  -1 when L is NULL or memory runs out.  L must
** come from rip_layer_derive().
*/
int64_t rip_sim_read_scalars(const rip_layer *L);

/*
** Herringbone visiting order of an h_out x w_out grid (sim/README.md legs):
** writes the h_out*w_out pixel indices r*w_out + c in visit order into
** order[].  Returns 0, or -1 if h_out or w_out < 1.
*/
int rip_herringbone_order(int64_t h_out, int64_t w_out, int64_t *order);

/* Row-major visiting order (0, 1, ..., h_out*w_out - 1) into order[], the
** order of the RiP configurations.  Returns 0, or -1 as above. */
int rip_row_major_order(int64_t h_out, int64_t w_out, int64_t *order);

#endif
