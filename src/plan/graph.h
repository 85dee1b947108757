/*
** graph.h — operator graphs in the CSV schema of the model data
** (firmware/models/README.md): one row per operator, its output tensor
** identified by its op_id, inputs by producer op_ids (-1 = model input).
*/
#ifndef RIPSIM_GRAPH_H
#define RIPSIM_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"
#include "status.h"

typedef enum {
    RIP_OP_CONV2D, RIP_OP_POINTWISE, RIP_OP_DEPTHWISE, RIP_OP_ADD, RIP_OP_MUL, RIP_OP_SUB,
    RIP_OP_LOGISTIC, RIP_OP_RELU, RIP_OP_BN, RIP_OP_HARDSWISH, RIP_OP_HARDSIGMOID,
    RIP_OP_AVGPOOL, RIP_OP_MAXPOOL, RIP_OP_UPSAMPLE, RIP_OP_CONCAT, RIP_OP_FC, RIP_OP_COUNT
} rip_op_kind;

#define RIP_OP_MAX_INPUTS 16

/* The CSV name of an op kind ("conv2d", ...); "?" when out of range. */
const char *rip_op_name(rip_op_kind k);

typedef struct rip_op {
    int64_t id;
    rip_op_kind kind;
    int n_inputs;
    int64_t inputs[RIP_OP_MAX_INPUTS];   /* producer op ids; -1 = model input */
    int64_t h_in, w_in, c_in, h_out, w_out, c_out;
    int64_t k_h, k_w, s_h, s_w, p_top, p_left, p_bottom, p_right, d_h, d_w;
    int64_t dtype_bytes;
} rip_op;

typedef struct rip_graph {
    char name[64];
    rip_op *ops;
    size_t n_ops;
} rip_graph;

/* Largest spatial or channel extent, and largest tensor in bytes, a graph
** may hold: every product below stays far from overflow. */
#define RIP_GRAPH_DIM_MAX ((int64_t)1 << 24)
#define RIP_GRAPH_TENSOR_MAX ((int64_t)1 << 46)

/*
** Read a graph (graph.c states every check).  RIP_OK; RIP_S_NOINPUT (the
** file cannot be opened), RIP_S_DATA (a bad header or row, named as
** FILE:ROW: FIELD: problem), RIP_S_IO, RIP_S_NOMEM, with err.
*/
rip_status rip_graph_load(const char *path, rip_graph *g, char err[RIP_ERR_LEN]);
void rip_graph_free(rip_graph *g);

/* Position of the op with op_id id in a loaded graph, or -1. */
long rip_graph_find_op(const rip_graph *g, int64_t id);

/* Elementwise ops (add mul sub logistic relu bn hardswish hardsigmoid), pools. */
bool rip_op_is_elementwise(rip_op_kind k);
bool rip_op_is_pool(rip_op_kind k);

/*
** Branch connections: the tensors (the model input and every op's output)
** read by more than one op, each consumer counted once.  Op ids may have
** gaps: tensors are indexed by the op's position.  RIP_OK with *branches;
** RIP_S_NOMEM, or RIP_S_INTERNAL for a graph whose inputs do not resolve
** (not from rip_graph_load), with err.
*/
rip_status rip_graph_count_branches(const rip_graph *g, int64_t *branches, char err[RIP_ERR_LEN]);

typedef struct rip_graph_opts {
    bool rip;                   /* RiP in-place candidates (conv GAP, elementwise/pool/upsample) */
    bool inplace_depthwise;     /* TinyEngine's in-place depthwise (ALIAS) */
    bool sigma_taps;            /* RiP gap with taps read from the workspace (default: gathered, sigma = 0) */
    int64_t align;              /* V, bytes, in [1, RIP_PLAN_ALIGN_MAX] (paper: 4) */
} rip_graph_opts;

/*
** Build the planning problem of a loaded graph (graph_problem.c).  RIP_OK;
** RIP_S_DATA when the sizes add up to more than RIP_PLAN_TOTAL_MAX,
** RIP_S_INTERNAL for a bad alignment or an unchecked graph, RIP_S_NOMEM,
** with err.
*/
rip_status rip_problem_from_graph(const rip_graph *g, const rip_graph_opts *o, rip_problem *p,
                                  char err[RIP_ERR_LEN]);

/*
** The in-place candidates of one operator by the operator classes of
** graph_problem.c: op (its kind, geometry and dtype), run at step `step`
** of p, reading the tensors tin[0..op->n_inputs) of p (-1: an operand that
** is no tensor of p, such as a constant; it gets none) and writing tensor
** out.  An input gets a candidate only when it dies at the step (its last
** is step) and is not a repeated operand.  The candidates are appended to
** p->cand, which must have room for op->n_inputs more; p's tensors and
** lifetimes must be final.  The graph builder and the TFLite net
** (src/net/net.h) both use it, so both get the same candidates.
*/
void rip_graph_op_candidates(rip_problem *p, const rip_op *op, const rip_graph_opts *o, int step, const int *tin,
                             int out);

/*
** Read a raw buffer list id,start,end,size (half-open [start,end) unless
** inclusive; intervals.c).  RIP_OK; RIP_S_NOINPUT, RIP_S_DATA (a bad row,
** named FILE:ROW: FIELD: problem, including sizes that add up to more than
** RIP_PLAN_TOTAL_MAX), RIP_S_IO, RIP_S_NOMEM, RIP_S_INTERNAL (bad
** alignment), with err.
*/
rip_status rip_problem_from_intervals(const char *path, bool inclusive, int64_t align, rip_problem *p,
                                      char err[RIP_ERR_LEN]);

#endif
