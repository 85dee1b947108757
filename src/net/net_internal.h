/*
** net_internal.h — what the files of src/net/ share and the net's users do
** not need: the net's allocations, its messages, the preparation of one
** step (net_prepare.c) and the tensors' shapes as the kernels take them.
*/
#ifndef RIPSIM_NET_INTERNAL_H
#define RIPSIM_NET_INTERNAL_H

#include <stdarg.h>

#include "net.h"
#include "tfl_check.h"

/* Every block the net allocated, freed together by rip_net_free. */
struct rip_net_store {
    void **v;
    size_t n, cap;
};

/* count * size zeroed bytes owned by the net (at least one byte); NULL on
** overflow or out of memory. */
void *net_alloc(rip_net *net, size_t count, size_t size);

/* RIP_S_DATA with "LABEL: operator N (NAME): MESSAGE" in err. */
rip_status net_op_fail(const rip_net *net, int32_t op, char err[RIP_ERR_LEN], const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The tensor t of the net's subgraph. */
static inline const rip_tfl_tensor *net_tensor(const rip_net *net, int32_t t)
{
    return &net->sg->tensors[t];
}

/* One scale and zero point of an int8 activation (a checked model has them). */
static inline float net_scale(const rip_net *net, int32_t t)
{
    return net_tensor(net, t)->quant.scale[0];
}
static inline int32_t net_zero_point(const rip_net *net, int32_t t)
{
    return (int32_t)net_tensor(net, t)->quant.zero_point[0];
}

/* The elements of tensor t (a checked model's fit in int64). */
int64_t net_elements(const rip_net *net, int32_t t);

/*
** Prepare step st (kind, op, folded_pad, operands already set) from
** operator op of the model, and `pad` the PAD folded into it (or NULL):
** the kernel's parameters with TFLM's prepare-time arithmetic, pointers to
** the constants.  RIP_OK; RIP_S_DATA naming the operator; RIP_S_NOMEM.
*/
rip_status net_prepare_step(rip_net *net, rip_net_step *st, const rip_tfl_operator *op,
                            const rip_tfl_operator *pad, char err[RIP_ERR_LEN]);

#endif
