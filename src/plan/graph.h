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

/* Read a graph; errors name the row and field (malformed values, unknown
** op, inputs that do not exist or come later (cycles), shape mismatches
** with producers).  0, or an exit status of cli.h with err. */
int rip_graph_load(const char *path, rip_graph *g, char err[RIP_ERR_LEN]);
void rip_graph_free(rip_graph *g);

typedef struct rip_graph_opts {
    bool rip;                   /* RiP in-place candidates (conv GAP, elementwise/pool/upsample) */
    bool inplace_depthwise;     /* TinyEngine's in-place depthwise (ALIAS) */
    bool sigma_taps;            /* RiP gap with taps read from the workspace (default: gathered, sigma = 0) */
    int64_t align;              /* V, bytes (paper: 4) */
} rip_graph_opts;

/* Build the planning problem of a graph.  0, or an exit status with err. */
int rip_problem_from_graph(const rip_graph *g, const rip_graph_opts *o, rip_problem *p,
                           char err[RIP_ERR_LEN]);

/* Read a raw buffer list id,start,end,size (half-open [start,end) unless
** inclusive).  0, or an exit status with err naming row and field. */
int rip_problem_from_intervals(const char *path, bool inclusive, int64_t align, rip_problem *p,
                               char err[RIP_ERR_LEN]);

#endif
