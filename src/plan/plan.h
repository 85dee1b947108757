/*
** plan.h — graph-level memory planning (paper Sec. 4.3, Appendix I).
**
** A model graph (graph.h) becomes a planning *problem*: tensors with byte
** sizes and inclusive lifetimes over operator steps, plus *in-place
** candidates*, pairs (input tensor, output tensor) of one operator that may
** share memory.  A *strategy* turns the problem into a *plan*: a byte offset
** per tensor and, per candidate, whether it was used in place and whether
** it needs a runtime shift.  rip_plan_check() verifies any plan
** independently of the strategy that made it.
**
** Raw buffer lists (`ripsim plan --intervals`) are problems without
** candidates.
**
** In-place semantics (x = byte offset, N = size):
**   ALIAS  the output is written over its input at the same offset:
**          x_out == x_in (in-place depthwise, elementwise ops, upsampling
**          by reverse traversal, Theorem 14).
**   GAP    RiP: the output is written left-aligned below its input, at
**          least `gap` bytes below: x_in - x_out >= gap (r = 0).  Or, with
**          a runtime right shift of the input by `gap` bytes before the op
**          (r = 1): x_out == x_in and, during the operator's step, the
**          input occupies [x_in + gap, x_in + gap + N_in), so the block
**          [x_in, x_in + gap + N_in) must be free of every other tensor
**          live at that step.
** A used candidate exempts exactly that pair from the no-overlap rule; all
** other pairs of tensors with overlapping lifetimes must be disjoint.  Each
** operator overwrites at most one input.  Every candidate a graph yields
** carries its operator (a conv or pool geometry for GAP, rip_alias_op and
** a geometry for ALIAS), so the checker can replay it instead of taking
** the operator class's word.
*/
#ifndef RIPSIM_PLAN_H
#define RIPSIM_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "layer.h"
#include "status.h"
#include "imath.h"

#define RIP_PLAN_ID_LEN 32

/* The largest total a problem may have: every tensor's size plus the
** alignment, plus every candidate's gap, at most 2^62 bytes.  Any offset a
** placement reaches is below that total, so offset + gap + size never
** leaves int64.  Problem builders refuse more (RIP_S_DATA). */
#define RIP_PLAN_TOTAL_MAX ((int64_t)1 << 62)
/* Pools whose gap the checker re-derives by direct simulation: at most
** this many input and output pixels, and output pixels x window taps.
** The graph builder makes no pool candidate beyond them. */
#define RIP_PLAN_POOL_PIXELS_MAX ((int64_t)1 << 22)
#define RIP_PLAN_POOL_WORK_MAX ((int64_t)1 << 26)
/* ALIAS candidates whose operator the checker replays scalar by scalar
** (check_replay.h): at most this many input plus output scalars.  The
** graph builder makes no ALIAS candidate beyond it (the largest of the
** committed graphs has about 2^25). */
#define RIP_PLAN_REPLAY_SCALARS_MAX ((int64_t)1 << 28)
/* The largest alignment (bytes) a problem may ask for. */
#define RIP_PLAN_ALIGN_MAX ((int64_t)1 << 30)

typedef struct rip_tensor {
    char id[RIP_PLAN_ID_LEN];   /* graph: "input" or the producer's op_id; intervals: the file's id */
    int64_t size;               /* bytes, > 0 */
    int64_t first, last;        /* inclusive steps during which it must be resident */
    int producer_op;            /* -1 for the model input or a raw buffer */
} rip_tensor;

typedef enum { RIP_INPLACE_ALIAS = 0, RIP_INPLACE_GAP = 1 } rip_inplace_kind;

/* The operator of an ALIAS candidate, whose reads and writes the checker
** replays in its kernel's order (check_replay.h states each order). */
typedef enum rip_alias_op {
    RIP_ALIAS_NONE = 0,       /* none recorded (a hand-made candidate): nothing to replay */
    RIP_ALIAS_ELEMENTWISE,    /* element i read, then element i written (rk_add); no geometry */
    RIP_ALIAS_UPSAMPLE,       /* nearest, reverse traversal (rk_upsample_nearest_inplace); layer:
                              ** cin = cout = C, h_in, w_in, s_h, s_w, h_out = h_in s_h, w_out = w_in s_w */
    RIP_ALIAS_DEPTHWISE,      /* channel in place (rk_depthwise_inplace); layer: its conv geometry,
                              ** cin = cout, derived (rip_layer_derive) */
} rip_alias_op;

typedef struct rip_candidate {
    int in, out;                /* tensor indices */
    int op;                     /* the operator (its step) */
    rip_inplace_kind kind;
    int64_t gap;                /* GAP: bytes, a multiple of the alignment; ALIAS: 0 */
    /* for GAP candidates: the conv layer, so a checker can re-derive the gap
    ** with the simulator rather than trust the closed form */
    bool has_layer;
    rip_layer layer;
    int64_t dtype_bytes;
    /* GAP with a layer: the gap was made with taps read from the workspace
    ** (Theorem 13 with sigma = C_out, simulated as RIP_CONFIG_DENSE_TAPS)
    ** rather than gathered first (sigma = 0, RIP_CONFIG_DENSE_GATHER, the
    ** default).  Added after the original fields; zero = gathered. */
    bool taps;
    /* GAP of a local pooling op: `layer` holds its geometry (cin = cout =
    ** the channels, derived) and `gap` is Theorem 13's gathered gap of that
    ** geometry in bytes, aligned (each output pixel is written after its
    ** whole window is read).  has_layer stays false: it means a conv.
    ** Added after the original fields; false for every other candidate. */
    bool pool;
    /* ALIAS: the operator (its geometry in `layer`, its scalars
    ** dtype_bytes wide).  Added after the original fields; RIP_ALIAS_NONE
    ** for GAP candidates. */
    rip_alias_op alias_op;
} rip_candidate;

typedef struct rip_problem {
    char name[64];
    rip_tensor *t;
    size_t n;
    rip_candidate *cand;
    size_t n_cand;
    int64_t n_steps;            /* steps are 0 .. n_steps-1 */
    int64_t align;              /* offsets (and GAP gaps) are multiples of this, >= 1 */
    /* No plan may run a GAP candidate with a runtime shift (r = 1): the
    ** runtime cannot move a tensor (TFLite Micro's offline plans,
    ** src/tflm/).  milp then never sets r, rip_plan_check refuses a shift.
    ** Added after the original fields; false = shifts allowed. */
    bool no_shift;
} rip_problem;

typedef struct rip_plan {
    char strategy[32];
    int64_t *offset;            /* per tensor */
    bool *in_place;             /* per candidate: d_i */
    bool *shift;                /* per candidate: r_i (GAP only) */
    int64_t peak;               /* max over tensors of the end of its block */
    int64_t lower_bound;        /* the problem's lower bound (rip_problem_lower_bound) */
    bool optimal;               /* proven optimal (peak == lower bound, or solver proof) */
    double seconds;             /* wall time of the strategy */
    int64_t n_vars, n_cons;     /* milp: program size (binaries + continuous, rows) */
    int64_t n_binaries;
    /* The lower-bound strategy: peak is the live-bytes bound, the offsets
    ** (all 0) are no placement, and rip_plan_check() does not apply.
    ** Added after the original fields; false for every real placement. */
    bool bound_only;
} rip_plan;

/* Allocate a plan for p (all offsets 0, nothing in place). NULL on OOM. */
rip_plan *rip_plan_new(const rip_problem *p, const char *strategy);
void rip_plan_free(rip_plan *plan);

/* Recompute plan->peak from the offsets, sizes and shifts (saturating at
** INT64_MAX for offsets no valid plan has). */
int64_t rip_plan_peak(const rip_problem *p, const rip_plan *plan);

/*
** Live-bytes lower bound: max over steps of the bytes that must be resident.
** A pair that may be used in place at that step counts as its smallest
** possible union (ALIAS: max(N_in, N_out); GAP: max(N_out, gap + N_in)).
** Every valid plan's peak is >= this.  O((n + candidates) log(n +
** candidates)).  Sums saturate at INT64_MAX (only a problem beyond
** RIP_PLAN_TOTAL_MAX gets there); -1 when out of memory.
*/
int64_t rip_problem_lower_bound(const rip_problem *p);

/*
** The problem's total (RIP_PLAN_TOTAL_MAX) and alignment are within the
** limits: RIP_OK, or RIP_S_DATA with err naming the total.
*/
rip_status rip_problem_check_total(const rip_problem *p, char err[RIP_ERR_LEN]);

/* x rounded up to a multiple of a (x >= 0, a >= 1). */
static inline int64_t rip_align_up(int64_t x, int64_t a)
{
    return a <= 1 ? x : (x + a - 1) / a * a;
}

/* Do tensors a and b overlap in time? (inclusive lifetimes) */
static inline bool rip_tensors_meet(const rip_tensor *a, const rip_tensor *b)
{
    return a->first <= b->last && b->first <= a->last;
}

/*
** Check a plan (check.c lists every check in order): the problem sane (sizes
** > 0, lifetimes, candidate indices, every candidate's conv, pool or ALIAS
** operator geometry consistent with the tensors it joins), offsets >= 0
** and aligned, no two tensors live at the same time overlapping unless they
** are a used candidate whose offsets respect its rule, at most one input
** overwritten per operator, runtime-shift blocks free, peak correct, all
** without int64 overflow.  With simulate true, no used candidate is taken
** on its operator class's word: every used conv GAP candidate's gap is
** re-derived by the simulator (rip_dense_gather truth of its layer, or
** rip_dense_taps when the candidate has taps set, in bytes, rounded up to
** the alignment) instead of trusting the closed form, every used pool GAP
** candidate's gap by a direct simulation of the pool's reads and writes,
** and every used ALIAS candidate's operator is replayed scalar by scalar
** at the placed offsets (check_replay.h); a used candidate with no
** operator to replay (hand-made) is refused.  Without simulate, gaps are
** taken as computed and ALIAS pairs as given.  A bound_only plan is
** refused.  Returns RIP_OK; RIP_S_FAILED with the first violation in err;
** RIP_S_NOMEM.
*/
rip_status rip_plan_check(const rip_problem *p, const rip_plan *plan, bool simulate, char err[RIP_ERR_LEN]);

/*
** Widen the plan's gaps where it costs nothing (widen.c): for each used GAP
** candidate k without a runtime shift (last to first) whose distance
** offset[in] - offset[out] is below want[k] bytes (one entry per
** candidate; entries of other candidates are ignored), move its output's
** group (the tensors used ALIAS candidates join to it) down, or else its
** input's group up, by the shortfall (aligned up), when the plan then
** still passes rip_plan_check (without simulation: gaps only grow) at the
** same peak; else leave it.  Greedy; *n_widened (may be NULL) the moves
** kept.  RIP_OK; RIP_S_DATA for a bound_only plan; RIP_S_NOMEM (the plan
** then holds the moves kept so far, each valid).
*/
rip_status rip_plan_widen_gaps(const rip_problem *p, rip_plan *plan, const int64_t *want, int64_t *n_widened,
                               char err[RIP_ERR_LEN]);

/* ---- strategies ---- */

/* A strategy's verbose trace: one line (no trailing newline) at a time,
** ctx being rip_plan_opts.log_ctx.  The line is the strategy's buffer,
** valid during the call only. */
typedef void (*rip_plan_log_fn)(void *ctx, const char *line);

typedef struct rip_plan_opts {
    uint64_t seed;              /* hill-climb */
    double time_limit;          /* seconds, milp / exact; <= 0: none */
    int64_t capacity;           /* exact: a feasible plan within this many bytes is enough; 0: minimize */
    uint64_t node_limit;        /* exact: minimizing stops after the probe that passes this many
                                   search nodes (0: none); the best plan so far, not proven */
    bool reproducible;          /* milp: every phase runs on a budget of iterations or nodes, never on
                                   the clock, so the plan is the same on a fast or a busy machine;
                                   time_limit is then only a safety net, and its expiry is an error
                                   (RIP_S_FAILED), never a different plan */
    bool verbose;               /* milp / exact: trace the search through log (and milp: CBC's own log,
                                   which its solver process writes to stdout) */
    /* Where the trace goes (plan_log.h): library code never writes to a
    ** stream.  NULL: nowhere.  Added after the original fields. */
    rip_plan_log_fn log;
    void *log_ctx;
} rip_plan_opts;

/* A strategy fills *out and returns RIP_OK, or a rip_status with its bare
** reason in err (rip_strategy_run names the strategy). */
typedef rip_status (*rip_strategy_fn)(const rip_problem *p, const rip_plan_opts *o, rip_plan *out,
                               char err[RIP_ERR_LEN]);

typedef struct rip_strategy {
    const char *name;           /* naive, lower-bound, greedy-size, tinyengine, hill-climb, milp, exact */
    const char *summary;
    rip_strategy_fn run;        /* fills *out (allocated by the caller with rip_plan_new) */
} rip_strategy;

/* The registered strategies; *count receives their number. */
const rip_strategy *rip_strategies(size_t *count);
const rip_strategy *rip_strategy_by_name(const char *name);

/*
** Run strategy s on p into out (made by rip_plan_new(p, s->name)): checks
** that the problem's indices are sane, times the call into out->seconds
** (wall clock, overriding what the strategy set), and sets out->optimal
** when a placement's peak equals the lower bound (a solver's own proof is
** kept).  o may be NULL (all defaults).  Returns RIP_OK; RIP_S_DATA for
** a malformed problem (including one beyond RIP_PLAN_TOTAL_MAX), or the
** strategy's status (RIP_S_FAILED: exact could not meet its capacity,
** RIP_S_NOMEM, ...) with err "strategy NAME: why" (a strategy writes the
** bare reason).  The plan is not checked: this is the strategies' own
** entry (for composing them, tests and benchmarks); everything else plans
** through rip_plan_solve_checked().
*/
rip_status rip_strategy_run(const rip_strategy *s, const rip_problem *p, const rip_plan_opts *o, rip_plan *out,
                     char err[RIP_ERR_LEN]);

/*
** The planning entry point of every caller outside src/plan/: run the
** strategy named `strategy` on p (rip_strategy_run) and check its plan
** with rip_plan_check(p, plan, simulate, ...): simulate re-derives every
** used GAP with the simulator and replays ALIAS pairs; without it the
** placement, overlaps, shifts and peak are still checked.  A lower bound
** (plan->bound_only) is no placement and has nothing to check.  RIP_OK
** with *out (free with rip_plan_free); RIP_S_INTERNAL for an unknown
** strategy or a plan that fails the check (a bug: err "internal error:
** strategy NAME made an invalid plan: why"), RIP_S_NOMEM when the check
** runs out of memory, or the strategy's status with its err ("strategy
** NAME: why", rip_strategy_run); *out NULL then.
*/
rip_status rip_plan_solve_checked(const rip_problem *p, const char *strategy, const rip_plan_opts *o, bool simulate,
                                  rip_plan **out, char err[RIP_ERR_LEN]);

void rip_problem_free(rip_problem *p);

#endif
