/*
** tflm_plan.h — memory plans for an unchanged TensorFlow Lite Micro: an
** exact plan of the buffers TFLM places (tflm_alloc.h: its own sizes and
** lifetimes) in which an operator's output overlaps one of its inputs only
** where a gap oracle says the kernel library that will run it allows, and
** never with a runtime shift (TFLM cannot move a tensor); and the check of
** any offline plan (tflm_offline.h) a model carries against such an oracle.
**
** The gap oracle belongs to the kernel library (its kernels' real read and
** write orders); it is a callback here, so that plans and checks do not
** depend on how it is computed:
**   gap(ctx, m, op, k, &d, err): the smallest d >= 0 such that op's output
**   at X and its input k at X + d is safe (and every larger d: the input
**   further up), or d = -1 when no overlap is safe; RIP_OK, or an error
**   status with err (passed on).
** RESHAPE's output at its input's address needs no oracle: TFLM's RESHAPE
** kernel then copies nothing (tflm_alloc.h).
*/
#ifndef RIPSIM_TFLM_PLAN_H
#define RIPSIM_TFLM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "tflm_alloc.h"

typedef rip_status rip_tflm_gap_fn(void *ctx, const rip_tfl_model *m, size_t op, int k, int64_t *gap,
                                   char err[RIP_ERR_LEN]);

typedef struct rip_tflm_oracle {
    rip_tflm_gap_fn *gap;
    void *ctx;
} rip_tflm_oracle;

/* One overlap a plan uses: op's output 0 over its input k. */
typedef struct rip_tflm_overlap {
    size_t op;
    int k;
    int32_t in, out;         /* tensors */
    int64_t gap;             /* x_in - x_out required (the oracle's, or 0 for a RESHAPE alias) */
    bool alias;              /* RESHAPE: x_out == x_in */
} rip_tflm_overlap;

/* The outcome of checking an offline plan. */
typedef struct rip_tflm_verdict {
    bool safe;
    long op;                 /* !safe: the first operator whose overlap is unsafe (a pair alive before
                             ** operator 0: operator 0) */
    char why[RIP_ERR_LEN];   /* !safe: "operator 2 (CONV_2D): ..." */
    int64_t area;            /* tensor area: highest end, online buffers placed by TFLM's greedy planner */
    size_t n_offline, n_online;
    size_t n_overlaps;       /* overlapping pairs alive together that are allowed */
} rip_tflm_verdict;

/*
** Check the offline offsets off (one per tensor of subgraph 0, -1 online;
** others ignored) of model m with buffers a: place the online buffers as
** TFLM's greedy planner does, then every two buffers alive at a common
** scope must be disjoint, or be an operator's input k and output 0, the
** input dying and the output born at that operator, at offsets the oracle
** allows (x_in - x_out >= its gap) or, for RESHAPE's input 0, equal.
** RIP_OK with *v (v->safe false names the first operator, by the first
** scope the offending pair shares, with an unsafe overlap); RIP_S_DATA for
** a variable given an offline offset (its planning is not modelled);
** the oracle's status; RIP_S_NOMEM.
*/
rip_status rip_tflm_check(const rip_tfl_model *m, const rip_tflm_alloc *a, const int32_t *off,
                          const rip_tflm_oracle *oracle, rip_tflm_verdict *v, char err[RIP_ERR_LEN]);

typedef struct rip_tflm_plan_out {
    int32_t *offset;         /* per model tensor (all subgraphs): the plan to write, -1 online */
    size_t n_offset;
    int64_t area;            /* tensor area of the plan (rip_tflm_check's) */
    int64_t no_overlap_area; /* the exact plan of the same buffers without any overlap */
    int64_t greedy_area;     /* TFLM's own greedy plan's tensor area (no offline plan) */
    int64_t lower_bound;     /* live-bytes bound with the allowed overlaps */
    bool optimal;            /* area proven minimal (over plans with these overlaps, no shift) */
    char strategy[32];       /* exact (no candidate) or milp */
    size_t n_candidates;
    rip_tflm_overlap *overlap;   /* the overlaps used */
    size_t n_overlaps;
} rip_tflm_plan_out;

/*
** An exact plan of a's buffers of model m with the overlaps the oracle
** allows: a planning problem (plan.h) of the buffers with a lifetime, at
** 16-byte alignment, GAP candidates (gap rounded up to 16) for every
** operator output 0 and input k the oracle allows where the input dies and
** the output is born at that operator, ALIAS candidates for RESHAPE, no
** shift; solved deterministically (exact on a node budget without
** candidates, milp on budgets with them), checked by rip_plan_check (gaps
** as given: the oracle is the truth) and again by rip_tflm_check.  Buffers
** never used (no lifetime) stay online.  RIP_OK with *out (free with
** rip_tflm_plan_out_free); RIP_S_DATA, RIP_S_NOMEM, RIP_S_UNAVAILABLE (the
** milp module), the oracle's status, RIP_S_INTERNAL (a plan that fails a
** check, or milp stopped by its 600 s safety net), with err.
*/
rip_status rip_tflm_plan(const rip_tfl_model *m, const rip_tflm_alloc *a, const rip_tflm_oracle *oracle,
                         rip_tflm_plan_out *out, char err[RIP_ERR_LEN]);
void rip_tflm_plan_out_free(rip_tflm_plan_out *o);

/*
** Could buffers bi (an input of operator op) and bo (its output 0) overlap
** at all: both placed (>= 0), different, the input dying and the output
** born at op's scope?
*/
bool rip_tflm_may_share(const rip_tflm_alloc *a, size_t op, int32_t bi, int32_t bo);

/*
** The next pair that may share, in operator then input order: from
** operator *o's input *k on (start at 0, 0; after a pair, *k + 1), the
** first input k of an operator o whose buffer and o's output 0's buffer
** pass rip_tflm_may_share.  true with *o, *k; false when none is left.
*/
bool rip_tflm_next_pair(const rip_tfl_model *m, const rip_tflm_alloc *a, size_t *o, size_t *k);

/*
** The rule for operator o's output 0 over tensor t, which its inputs k
** read (t may be several of them: every one must allow it): *k_first the
** first such k (-1 none); *alias for RESHAPE's input 0 (and no other input
** of it); else *gap the largest the oracle gives over those k, -1 when one
** of them allows no overlap.  RIP_OK, or the oracle's status.
*/
rip_status rip_tflm_op_rule(const rip_tfl_model *m, const rip_tflm_oracle *or, size_t o, int32_t t, int *k_first,
                            bool *alias, int64_t *gap, char err[RIP_ERR_LEN]);

/* An oracle that allows no overlap anywhere (ctx unused): the stand-in until a library's oracle is given. */
rip_status rip_tflm_gap_none(void *ctx, const rip_tfl_model *m, size_t op, int k, int64_t *gap,
                             char err[RIP_ERR_LEN]);

/* The gap oracle of a kernel library: rip_tflm_overlap_gap (tflm_orders.h)
** with ctx pointing at a rip_tflm_lib (RIP_TFLM_REFERENCE or
** RIP_TFLM_CMSIS_NN); a ctx that is not one of them is RIP_S_INTERNAL. */
rip_status rip_tflm_gap_lib(void *ctx, const rip_tfl_model *m, size_t op, int k, int64_t *gap,
                            char err[RIP_ERR_LEN]);

#endif
