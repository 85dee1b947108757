/*
** evaluate.h — one layer through every closed form and every simulator.
**
** This is where formulas/ and sim/ meet (by design only sweeps/ and src/
** compare them).  The result holds, for one layer, the seven truths, the value
** of every formula of the registry and its verdict against the truth of the
** execution configuration that judges it.
*/
#ifndef RIPSIM_EVALUATE_H
#define RIPSIM_EVALUATE_H

#include "formulas.h"
#include "layer.h"
#include "progress.h"
#include "sim.h"

#define RIP_MAX_FORMULAS 16

typedef enum { RIP_NA = 0, RIP_UNSAFE, RIP_TIGHT, RIP_LOOSE } rip_verdict;

typedef struct rip_eval {
    int64_t truth[RIP_CONFIG_COUNT];
    int64_t n_in_read;   /* padded input scalars some tap reads (herringbone_pruned's
                            store, rip_sim_read_scalars); -1 without the simulator */
    size_t n_formulas;
    const rip_formula_info *info;           /* the registry rows */
    bool defined[RIP_MAX_FORMULAS];
    int64_t value[RIP_MAX_FORMULAS];
    int judged_by[RIP_MAX_FORMULAS];        /* rip_config, or -1 */
    rip_verdict verdict[RIP_MAX_FORMULAS];
} rip_eval;

/* "unsafe", "tight", "loose" or "n/a". */
const char *rip_verdict_name(rip_verdict v);

/* Verdict of a formula value against a truth (README.md, "Using it"). */
rip_verdict rip_verdict_of(bool defined, int64_t value, int64_t truth);

/*
** Largest layer the simulator will take, in input or output scalars for the
** plain engine and in pixels for the fast one: past this the tables would
** need gigabytes, and rip_evaluate refuses rather than thrash.
*/
#define RIP_SIM_MAX_PLAIN_SCALARS ((int64_t)1 << 27)
#define RIP_SIM_MAX_FAST_PIXELS ((int64_t)1 << 26)

/* 0 if the layer is small enough for the engine; else -1 and a message. */
int rip_sim_size_ok(const rip_layer *L, rip_engine engine, char err[RIP_ERR_LEN]);

/*
** Evaluate layer L (derived).  with_sim false skips the simulator: truths
** are -1 and verdicts n/a.  Returns 0, or -1 with a message in err when the
** layer is too large to simulate or memory runs out.
*/
int rip_evaluate(const rip_layer *L, rip_engine engine, bool with_sim, rip_eval *ev,
                 char err[RIP_ERR_LEN]);

/* The same, reporting each execution configuration before it is simulated
** (done of RIP_CONFIG_COUNT, what = its name) through progress (may be NULL). */
int rip_evaluate_progress(const rip_layer *L, rip_engine engine, bool with_sim, rip_eval *ev,
                          const rip_progress_cb *progress, char err[RIP_ERR_LEN]);

/* The same, the truths found by `how` (rip_sim_search; the others use
** RIP_SEARCH_BRACKET).  -1 also when the simulator contradicts itself
** (err then says "internal error"). */
int rip_evaluate_search(const rip_layer *L, rip_engine engine, rip_search how, bool with_sim, rip_eval *ev,
                        const rip_progress_cb *progress, char err[RIP_ERR_LEN]);

#endif
