/*
** kernel_order.h — the "real kernel's read/write order" configuration of
** the simulator: a generic trace engine (sim/README.md, "Kernel orders").
**
** A kernel is described by the stream of events it makes in program
** order: reads of input scalars and writes of output scalars (int8: one
** scalar = one byte).  With the output at byte X and the input at byte
** X + d, writing output scalar j lands on input scalar j - d; the write
** corrupts when that input scalar is read again later in the stream.  The
** engine runs the stream at a given d (never a closed form) and finds the
** smallest d from which every larger d completes too.
**
** Events are blocks: `count` runs of `len` consecutive scalars, run r
** starting at start + r * stride (a pixel's channels, a row of taps, a
** strided column of one channel).  The stream is produced by a generator
** callback that the engine calls once per pass (the stream is never
** stored: memory is O(N_in)), so a generator must emit the same stream
** every time it is called.  Reads outside [0, N_in) are no input scalar
** and are ignored (a kernel reading its own output, as CMSIS-NN's max pool
** does, makes no input read); writes must stay in [0, N_out).
*/
#ifndef RIPSIM_KERNEL_ORDER_H
#define RIPSIM_KERNEL_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "layer.h"     /* RIP_ERR_LEN */
#include "status.h"

typedef struct rip_kt_sink rip_kt_sink;

/* Emit `count` runs of `len` scalars, run r at start + r * stride (len, count >= 1 else nothing). */
void rip_kt_read(rip_kt_sink *s, int64_t start, int64_t len, int64_t count, int64_t stride);
void rip_kt_write(rip_kt_sink *s, int64_t start, int64_t len, int64_t count, int64_t stride);

/* A generator: emits the kernel's stream into s, the same stream on every call. */
typedef void rip_kt_gen(const void *ctx, rip_kt_sink *s);

typedef struct rip_kt_kernel {
    int64_t n_in, n_out;     /* input and output scalars (>= 1) */
    rip_kt_gen *gen;
    const void *ctx;
} rip_kt_kernel;

/* Where a run failed: the event (ordinal in the stream), the output scalar
** written and the input scalar it landed on; all -1 when the run completes. */
typedef struct rip_kt_report {
    int64_t event, out, in;
} rip_kt_report;

typedef struct rip_ktrace rip_ktrace;

/*
** One pass over k's stream: the last read of every input scalar.  Returns
** RIP_OK with *t (free with rip_ktrace_free); RIP_S_DATA with one line in
** err when k is malformed (NULL generator, n_in or n_out < 1, a write
** outside [0, N_out), a negative length); RIP_S_NOMEM.  k is copied (its
** ctx must outlive *t).
*/
rip_status rip_ktrace_new(const rip_kt_kernel *k, rip_ktrace **t, char err[RIP_ERR_LEN]);
void rip_ktrace_free(rip_ktrace *t);

/* Run the stream with the input at gap d: true iff no write lands on an
** input scalar read later; rep (may be NULL) names the first failing write. */
bool rip_ktrace_run(const rip_ktrace *t, int64_t d, rip_kt_report *rep);

/*
** The threshold in one pass: 1 + the largest d at which some write lands
** on a live input scalar (the write of output j while input i is still to
** be read fails exactly at d = j - i; the largest such d of a write uses
** the smallest live i), 0 when none.  Every d at or above it completes and
** d - 1 fails by construction; rip_ktrace_gap() checks that by runs.
*/
int64_t rip_ktrace_bound(const rip_ktrace *t);

/*
** The gap of the kernel: the smallest d in [0, N_out) such that the runs at
** d and at every larger d complete, confirmed by the runs at d and d - 1;
** -1 ("none") when only d >= N_out (no overlap at all) is safe.  RIP_OK;
** RIP_S_INTERNAL with one line in err when the runs contradict the one-pass
** threshold (never a gap).
*/
rip_status rip_ktrace_gap(const rip_ktrace *t, int64_t *gap, char err[RIP_ERR_LEN]);

/* rip_ktrace_new + rip_ktrace_gap + free. */
rip_status rip_kt_gap(const rip_kt_kernel *k, int64_t *gap, char err[RIP_ERR_LEN]);

#endif
