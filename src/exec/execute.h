/*
** execute.h — one convolution layer executed with the int8 kernels of
** firmware/kernels/: in dual buffers, and in place in one workspace under
** one of the four rip_* execution configurations, plain and instrumented.
**
** This is where the simulator's gaps meet real arithmetic: `ripsim execute`
** runs one layer at a chosen gap, `ripsim sweep --execute` runs every layer
** of a sweep at the truth of each rip_* configuration and at truth - 1.
**
** A layer is prepared once (rip_exec_prepare): its int8 input, filter,
** bias and per-channel requantization are drawn from a PCG32 stream, and
** the dual-buffer output (input and output in distinct buffers) is
** computed.  That output is the reference every in-place run is compared
** with, byte for byte; padded and dense layouts compute the same tensor, so
** one dual run serves all four configurations.
**
** Drawn values (so outputs are informative, not saturated):
**   input     uniform int8 [-128, 127];  input zero point in [-16, 16]
**   filter    uniform int8 [-127, 127] (TFLite's symmetric int8 weights)
**   bias      uniform int32 in +-2^(12 + b/2), b the bit length of
**             n = k_h k_w C_in, about one standard deviation of the sum
**   multiplier  uniform in [2^30, 2^31 - 1] (Q31 in [0.5, 1))
**   shift     -(7 + ceil(b/2)) - u, u uniform in {0, 1}: the product sum's
**             standard deviation, about 2^12.4 sqrt(n), lands near 10-40
**             (tests/test_execute.c: many codes, at most 2% clamped)
**   output zero point in [-16, 16]; activation clamp [-128, 127].
** Only integer arithmetic: the same seed gives the same bytes anywhere.
**
** Memory: every buffer of one execution (dual input and output, the
** workspace of the largest gap and its shadow, filter, scratch) together
** at most RIP_EXEC_MAX_BYTES; a larger layer is refused, not thrashed.
*/
#ifndef RIPSIM_EXECUTE_H
#define RIPSIM_EXECUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layer.h"
#include "pcg32.h"
#include "sim.h"
#include "status.h"

#define RIP_EXEC_MAX_BYTES ((int64_t)1 << 28)   /* 256 MiB */

/* The four in-place configurations (rip_config values 0..3) the kernels run. */
#define RIP_KERNEL_CONFIG_COUNT 4

/* A prepared layer: its drawn tensors, the dual-buffer output and the
** buffers the in-place runs reuse.  Opaque; see execute.c. */
typedef struct rip_xlayer rip_xlayer;

/* What one in-place run found. */
typedef struct rip_xrun {
    int64_t gap;          /* the gap it ran at */
    int64_t workspace;    /* gap + stored input: the workspace it had */
    bool completed;       /* it ran to the end (false: stopped at its first catch) */
    bool bit_exact;       /* completed, and the output equals the dual-buffer output byte for byte */
    int64_t differ;       /* output bytes that differ (completed runs) */
    bool caught;          /* the instrumented run found an early overwrite (or an overflow) */
    bool overflow;        /*   ... and it was a write past the workspace */
    int64_t step, pixel_r, pixel_c, address;   /* where (when caught; else -1) */
} rip_xrun;

/* 0 when every buffer of executing L fits in RIP_EXEC_MAX_BYTES; else -1
** and "layer too large to execute: N bytes of buffers, the limit is ...". */
int rip_exec_size_ok(const rip_layer *L, char err[RIP_ERR_LEN]);

/*
** Draw the tensors of layer L (derived) from g and run the dual-buffer
** kernel.  *out receives the prepared layer (free with rip_xlayer_free).
** RIP_S_DATA (too large, with the message of rip_exec_size_ok),
** RIP_S_NOMEM, RIP_S_INTERNAL (a kernel refused its arguments).
*/
rip_status rip_xlayer_new(const rip_layer *L, rip_pcg32 *g, rip_xlayer **out, char err[RIP_ERR_LEN]);
void rip_xlayer_free(rip_xlayer *x);

/* The dual-buffer output (n_out bytes, NHWC) and its checksum. */
const int8_t *rip_xlayer_output(const rip_xlayer *x, int64_t *n_out);
uint32_t rip_xlayer_checksum(const rip_xlayer *x);

/*
** Run x in place under configuration e (one of the four rip_*) at gap
** 0 <= gap, with ws = gap + stored input.  instrumented: the _checked
** kernel (shadow tags; the first stale read or overflow is reported);
** stop_at_first (instrumented only): stop there.  Otherwise the plain
** kernel.  RIP_S_DATA for a configuration that is not rip_* or a negative
** gap; RIP_S_INTERNAL when a kernel refuses.
*/
rip_status rip_xlayer_run(rip_xlayer *x, rip_config e, int64_t gap, bool instrumented, bool stop_at_first,
                          rip_xrun *r, char err[RIP_ERR_LEN]);

/* The workspace of the last run (its first n_out bytes are the in-place output). */
const int8_t *rip_xlayer_workspace(const rip_xlayer *x, int64_t *size);

/*
** The stream the tensors of layer idx of a sweep of seed `seed` are drawn
** from: PCG32 (seed ^ RIP_EXEC_SEED_SALT, sequence idx), apart from the
** layer-drawing stream (seed, idx).  `ripsim execute --seed S` uses idx 0.
*/
#define RIP_EXEC_SEED_SALT UINT64_C(0x5249505f45584543) /* "RIP_EXEC" */
void rip_exec_stream(rip_pcg32 *g, uint64_t seed, uint64_t idx);

/* One rip_* configuration of a sweep layer, executed at its truth and truth - 1. */
typedef struct rip_xcheck {
    int64_t truth;
    bool bit_exact;        /* at the truth: in-place output == dual-buffer output */
    bool early_overwrite;  /* at the truth: the instrumented run caught a stale read (or overflow) */
    int caught_minus_1;    /* at truth - 1: 1 caught, 0 not; -1 when the truth is 0 */
    int64_t catch_step;    /* the step of that catch; -1 when none */
} rip_xcheck;

/*
** Execute layer L (derived) as `sweep --execute` does: draw its tensors
** from g, run the dual-buffer kernel once, then for each rip_* configuration
** e the instrumented kernel at truth[e] (to the end: it is the bit-exactness
** run too) and, when truth[e] > 0, at truth[e] - 1 until its first catch.
** *checksum receives the dual output's FNV-1a.  Errors of rip_xlayer_new
** and rip_xlayer_run.
*/
rip_status rip_exec_check_layer(const rip_layer *L, const int64_t truth[RIP_CONFIG_COUNT], rip_pcg32 *g,
                                rip_xcheck out[RIP_KERNEL_CONFIG_COUNT], uint32_t *checksum, char err[RIP_ERR_LEN]);

/* FNV-1a, 32 bits (offset basis 2166136261, prime 16777619), of n bytes. */
uint32_t rip_fnv1a32(const void *p, size_t n);

#endif
