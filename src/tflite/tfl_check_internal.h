/*
** tfl_check_internal.h — what the two halves of the check share: the state
** of the walk (tfl_check.c) and the operator rules (tfl_ops.c), the
** messages and the formatting of shapes and types.  Not part of the
** check's interface (tfl_check.h).
*/
#ifndef RIPSIM_TFL_CHECK_INTERNAL_H
#define RIPSIM_TFL_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfl_check.h"

typedef struct tc_state {
    const rip_tfl_model *m;
    const rip_tfl_subgraph *sg;
    char *err;
    int32_t *writer;             /* per tensor: the operator writing it, -1 none */
    bool *is_input, *is_output;  /* per tensor: a graph input / output */
    size_t op_ix;
    const rip_tfl_operator *op;
    int32_t builtin;
    char op_label[96];           /* "operator 3 (CONV_2D)" */
} tc_state;

/* Room for "tensor N (NAME)" (rip_tfl_tensor_label cuts the name). */
#define TC_LABEL_LEN 80

/* Refusals, one line in c->err, RIP_S_DATA: "LABEL: ...", "LABEL: operator N (NAME): ...",
** "LABEL: tensor N (NAME): ...". */
rip_status tc_fail(tc_state *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
rip_status tc_op_fail(tc_state *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
rip_status tc_tensor_fail(tc_state *c, int32_t t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "tensor N (NAME)" of tensor t into buf; returns buf. */
const char *tc_label(const tc_state *c, int32_t t, char buf[TC_LABEL_LEN]);
/* "[1,49,10,1]" of n dimensions (the first RIP_TFL_RANK_MAX), of a tensor's shape; return buf. */
const char *tc_fmt_dims(const int64_t *d, size_t n, char *buf, size_t len);
const char *tc_fmt_shape(const rip_tfl_tensor *t, char *buf, size_t len);
/* A type's lowercase name for messages ("int16"), or "type N"; returns buf. */
const char *tc_type_word(int type, char *buf, size_t len);

static inline const rip_tfl_tensor *tc_tensor(const tc_state *c, int32_t t)
{
    return &c->sg->tensors[t];
}

static inline bool tc_is_const(const tc_state *c, int32_t t)
{
    return rip_tfl_is_constant(c->m, tc_tensor(c, t));
}

/* The operator's input and output counts (before any input is looked at), then its own rules
** (tfl_ops.c); c->op, c->builtin and c->op_label are set, every index range-checked. */
rip_status tc_operator_counts(tc_state *c);
rip_status tc_operator_rules(tc_state *c);

#endif
