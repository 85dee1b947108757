/*
** tflm_limits.h — what limits the saving of a plan for an unchanged
** TensorFlow Lite Micro (tflm_plan.h), for results/tflm.md:
**   the peak: an allocation scope where the plan's buffers reach its
**       tensor area, and the buffers alive there;
**   the limits: every operator output 0 / input pair that may share
**       (rip_tflm_may_share) where one kernel library's modelled order
**       forbids or needs a larger gap than another's allows (CMSIS-NN
**       against the reference kernels);
**   the friendly oracle: per operator the smaller of the two libraries'
**       gaps (either where one forbids), the gap of an order as friendly
**       to RiP as the better of the two kernels.  A plan on it is a figure,
**       not a plan to run: neither library's kernel alone allows it.
*/
#ifndef RIPSIM_TFLM_LIMITS_H
#define RIPSIM_TFLM_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "tflm_alloc.h"
#include "tflm_orders.h"
#include "tflm_plan.h"

typedef struct rip_tflm_peak {
    int scope;            /* 0 before operator 0, s: operator s - 1; -1 no buffer alive anywhere */
    int64_t end;          /* the highest end of the buffers alive at scope (the plan's area) */
    int64_t live_bytes;   /* their sizes' sum */
    size_t n_live;
    int32_t *live;        /* their tensors, by offset */
    int64_t *live_size;   /* their sizes (16-byte rounded), in the same order */
} rip_tflm_peak;

/*
** The peak of the plan off (per tensor of subgraph 0, -1 online; the
** online buffers placed as TFLM's greedy planner does) of a's buffers:
** of the scopes whose alive buffers end highest, the first with the most
** bytes alive (the tightest).  RIP_OK with *p (free
** with rip_tflm_peak_free); RIP_S_NOMEM.
*/
rip_status rip_tflm_peak_of(const rip_tflm_alloc *a, const int32_t *off, rip_tflm_peak *p, char err[RIP_ERR_LEN]);
void rip_tflm_peak_free(rip_tflm_peak *p);

typedef struct rip_tflm_limit {
    size_t op;
    int k;                /* the first input reading tensor in */
    int32_t in, out;      /* tensors */
    int64_t gap_lib;      /* lib's gap, -1: no overlap allowed */
    int64_t gap_other;    /* the other library's (>= 0) */
} rip_tflm_limit;

/*
** Every pair of m (buffers a) where lib's gap is -1 or above other's, and
** other's is >= 0, by operator: *out (free()), *n.  RESHAPE aliases are
** neither library's and are left out.  RIP_OK; the oracle's status;
** RIP_S_NOMEM.
*/
rip_status rip_tflm_limits(const rip_tfl_model *m, const rip_tflm_alloc *a, rip_tflm_lib lib, rip_tflm_lib other,
                           rip_tflm_limit **out, size_t *n, char err[RIP_ERR_LEN]);

/* The friendly oracle's context: lib's gap everywhere but at operator only (every operator when only < 0),
** where the smaller allowing gap of lib and other is taken. */
typedef struct rip_tflm_friendly {
    rip_tflm_lib lib, other;
    long only;
} rip_tflm_friendly;

/* The friendly gap (ctx a rip_tflm_friendly), as rip_tflm_gap_lib. */
rip_status rip_tflm_gap_friendly(void *ctx, const rip_tfl_model *m, size_t op, int k, int64_t *gap,
                                 char err[RIP_ERR_LEN]);

#endif
