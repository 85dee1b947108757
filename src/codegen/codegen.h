/*
** codegen.h — C code for one model graph and one memory plan (issue 10):
** `ripsim codegen GRAPH --plan base|rip --out DIR` writes model.c,
** model_blob.S, model.bin and model.json (firmware/runtime/rk_model.h is
** the contract the generated model.c implements).
**
** Two halves, kept apart so that a test can hold one against the other:
**   the *model* (rip_cg_model_build): the graph's weights, biases,
**     requantization, zero points and input, drawn from PCG32 with a fixed
**     seed per model and calibrated on a plain dual-buffer run of the graph
**     (every tensor in its own malloc'd buffer, the plan never consulted).
**     That run is also the reference output every generated model must
**     reproduce bit for bit.  It depends on the graph and the seed only, so
**     the base and rip plans of one model share weights and logits.
**   the *emission* (rip_codegen): the plan places every tensor at its arena
**     offset and says which ops run in place; model.c calls the kernels of
**     firmware/kernels/ on exactly those pointers.
**
** Plans, as Tab. 3 (src/report/table3.c): base = strategy tinyengine with
** TinyEngine's in-place depthwise and no RiP; rip = strategy milp with the
** RiP candidates (dense layout, gather first, alignment 4) and in-place
** depthwise.  Every plan passes rip_plan_check (gaps re-derived by the
** simulator) before any code is written.
*/
#ifndef RIPSIM_CODEGEN_H
#define RIPSIM_CODEGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "plan/graph.h"
#include "plan/plan.h"
#include "status.h"

/* --seed default: the seed of `ripsim sweep` and `ripsim execute`. */
#define RIP_CG_SEED_DEFAULT 20261129

typedef enum rip_cg_plan_kind { RIP_CG_BASE = 0, RIP_CG_RIP = 1 } rip_cg_plan_kind;

/* "base" or "rip". */
const char *rip_cg_plan_name(rip_cg_plan_kind k);

/*
** Every op of g is one the generator can emit (conv2d, pointwise,
** depthwise, add of two tensors, avgpool, maxpool, fc, upsample; int8;
** sizes within the kernels' 32-bit limits).  RIP_OK, or RIP_S_DATA with
** "FILE: op ID (OP): problem" in err (file = the path as given).
*/
rip_status rip_cg_check_graph(const rip_graph *g, const char *file, char err[RIP_ERR_LEN]);

/*
** Load and check the graph at path, build its planning problem for plan
** kind k, run the strategy and check the plan (simulating every used gap).
** On RIP_OK the caller owns *g, *p and *plan (rip_graph_free,
** rip_problem_free, rip_plan_free).  Statuses of rip_graph_load and
** rip_cg_check_graph; RIP_S_INTERNAL when a strategy fails or makes a plan
** the checker refuses; RIP_S_NOMEM.
*/
rip_status rip_cg_plan(const char *path, rip_cg_plan_kind k, rip_graph *g, rip_problem *p, rip_plan **plan,
                       char err[RIP_ERR_LEN]);

/* ---- the model: seeded weights, calibration, reference run ---- */

typedef struct rip_cg_model rip_cg_model;

/*
** Draw and calibrate the parameters of a checked graph g (which must
** outlive the model) from seed, running the graph once in dual buffers.
** RIP_OK with *m; RIP_S_NOMEM; RIP_S_INTERNAL when a kernel refuses its
** parameters (a generator bug).
*/
rip_status rip_cg_model_build(const rip_graph *g, uint64_t seed, rip_cg_model **m, char err[RIP_ERR_LEN]);
void rip_cg_model_free(rip_cg_model *m);

/* The reference logits: the graph outputs (tensors no op reads) in graph
** order, concatenated; *n receives their bytes. */
const int8_t *rip_cg_model_logits(const rip_cg_model *m, int64_t *n);
/* CRC-32 IEEE of those logits. */
uint32_t rip_cg_model_checksum(const rip_cg_model *m);
/* The reference values of tensor t (0 = the model input, i + 1 = output
** of op i) and its bytes; NULL when t is out of range. */
const int8_t *rip_cg_model_tensor(const rip_cg_model *m, size_t t, int64_t *n);
/* The blob (weights, quantization, input) as written to model.bin. */
const uint8_t *rip_cg_model_blob(const rip_cg_model *m, size_t *n);

/* ---- emission ---- */

typedef struct rip_cg_opts {
    rip_cg_plan_kind plan;
    int64_t arena;        /* arena bytes; 0: the plan's peak; below the peak is refused */
    uint64_t seed;
} rip_cg_opts;

typedef struct rip_cg_summary {
    char model[64];       /* Tab. 3 name, e.g. "MCUNet-in0" (the graph's name when not a Tab. 3 model) */
    char graph[64];       /* the graph's name: its file name without .csv, every character but
                          ** letters, digits and ._+- replaced by '_' */
    const char *plan;     /* "base" or "rip" */
    char strategy[32];    /* the plan's strategy */
    int64_t peak, arena, scratch, blob_bytes;
    int64_t n_ops, n_logits, n_outputs;
    int64_t n_inplace;    /* ops run in place (used candidates) */
    int64_t n_shifts;     /* of them, with a runtime shift of the input */
    uint32_t checksum;    /* CRC-32 of the reference logits */
} rip_cg_summary;

/* The files rip_codegen writes into its folder, NULL-terminated:
** model.c, model_blob.S, model.bin, model.json. */
extern const char *const rip_cg_file_names[];

/*
** Generate the model of the graph at path under plan o->plan into the
** folder out_dir (which must exist): model.c, model_blob.S, model.bin,
** model.json, each written under a temporary name and renamed into place
** (`ripsim codegen` gives it a new folder, which it swaps in whole).
** *s receives what was generated.  RIP_OK; the statuses of rip_cg_plan and
** rip_cg_model_build; RIP_S_DATA when o->arena is below the plan's peak
** (or above 2^31 - 1); RIP_S_CANTCREATE / RIP_S_IO for the files; with err.
*/
rip_status rip_codegen(const char *path, const rip_cg_opts *o, const char *out_dir, rip_cg_summary *s,
                       char err[RIP_ERR_LEN]);

/*
** The files for a plan made elsewhere (tests hand-make plans with runtime
** shifts): g checked with rip_cg_check_graph, p built from g, plan for p,
** named k.  The plan is checked first (rip_plan_check, gaps simulated);
** arena 0 means its peak.  Statuses as rip_codegen; a plan that fails its
** check, or places a pair its kernels cannot run that way, is
** RIP_S_INTERNAL.
*/
rip_status rip_cg_write(const rip_graph *g, const rip_problem *p, const rip_plan *plan, rip_cg_plan_kind k,
                        int64_t arena, uint64_t seed, const char *out_dir, rip_cg_summary *s, char err[RIP_ERR_LEN]);

#endif
