/*
** tflm_alloc.c — TFLM's placed buffers, their lifetimes, and its greedy
** planner re-enacted (tflm_alloc.h cites the TFLM code each follows).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflm_alloc.h"

void rip_tflm_alloc_free(rip_tflm_alloc *a)
{
    if (a) {
        free(a->buf);
        free(a->buf_of);
        memset(a, 0, sizeof *a);
    }
}

/* Tensor t's byte length into *bytes; false when its type has no size or it passes 2^31. */
static bool tensor_bytes(const rip_tfl_tensor *t, int64_t *bytes)
{
    int64_t v = rip_tfl_type_bytes(t->type);
    if (v <= 0)
        return false;
    for (size_t d = 0; d < t->rank; d++) {
        if (t->shape[d] < 0)
            return false;
        if (t->shape[d] > 0 && v > (int64_t)INT32_MAX / t->shape[d])
            return false;
        v *= t->shape[d];
    }
    *bytes = v;
    return true;
}

/* Is tensor t constant for TFLM (its buffer holds data of size > 0)? */
static bool has_data(const rip_tfl_model *m, const rip_tfl_tensor *t)
{
    return t->buffer < m->n_buffers && m->buffers[t->buffer].data && m->buffers[t->buffer].size > 0;
}

static void first_created(int *first, int scope)
{
    if (*first < 0)
        *first = scope;
}

/* TFLM's lifetimes (micro_allocation_info.cc 246-332) into first/last, per tensor.  false: an index out of range. */
static bool mark_lifetimes(const rip_tfl_subgraph *sg, int *first, int *last, char *what, size_t what_len)
{
    const int nt = (int)sg->n_tensors;
    int scope = 0;
    for (size_t i = 0; i < sg->n_inputs; i++) {
        int t = sg->inputs[i];
        if (t < 0 || t >= nt) {
            snprintf(what, what_len, "subgraph input %zu: tensor %d out of range", i, t);
            return false;
        }
        first_created(&first[t], scope);
        last[t] = scope;
    }
    for (size_t o = 0; o < sg->n_operators; o++) {
        const rip_tfl_operator *op = &sg->operators[o];
        scope++;
        for (size_t k = 0; k < op->n_outputs; k++)
            if (op->outputs[k] < 0 || op->outputs[k] >= nt) {
                snprintf(what, what_len, "operator %zu: output %zu: tensor %d out of range", o, k, op->outputs[k]);
                return false;
            }
        for (size_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= nt) {
                snprintf(what, what_len, "operator %zu: input %zu: tensor %d out of range", o, k, op->inputs[k]);
                return false;
            }
        for (size_t k = 0; k < op->n_outputs; k++)
            first_created(&first[op->outputs[k]], scope);
        for (size_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0)
                last[op->inputs[k]] = scope;
        for (size_t k = 0; k < op->n_outputs; k++)
            last[op->outputs[k]] = scope;
    }
    for (size_t i = 0; i < sg->n_outputs; i++) {
        int t = sg->outputs[i];
        if (t < 0 || t >= nt) {
            snprintf(what, what_len, "subgraph output %zu: tensor %d out of range", i, t);
            return false;
        }
        first_created(&first[t], scope);
        last[t] = scope;
    }
    return true;
}

rip_status rip_tflm_alloc_build(const rip_tfl_model *m, rip_tflm_alloc *a, char err[RIP_ERR_LEN])
{
    memset(a, 0, sizeof *a);
    const char *lbl = m->label ? m->label : "model";
    if (m->n_subgraphs != 1) {
        snprintf(err, RIP_ERR_LEN, "%s: %zu subgraphs: TFLite Micro planning here takes exactly one", lbl,
                 m->n_subgraphs);
        return RIP_S_DATA;
    }
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    const size_t nt = sg->n_tensors;
    rip_status st = RIP_S_NOMEM;
    int *first = malloc((nt + 1) * sizeof *first), *last = malloc((nt + 1) * sizeof *last);
    a->buf = malloc((nt + 1) * sizeof *a->buf);
    a->buf_of = malloc((nt + 1) * sizeof *a->buf_of);
    if (!first || !last || !a->buf || !a->buf_of) {
        snprintf(err, RIP_ERR_LEN, "%s: out of memory", lbl);
        goto done;
    }
    for (size_t t = 0; t < nt; t++)
        first[t] = last[t] = -1;
    char what[RIP_ERR_LEN - 64];
    if (!mark_lifetimes(sg, first, last, what, sizeof what)) {
        snprintf(err, RIP_ERR_LEN, "%s: %s", lbl, what);
        st = RIP_S_DATA;
        goto done;
    }
    a->n_tensors = nt, a->n_ops = sg->n_operators;
    for (size_t t = 0; t < nt; t++) {
        const rip_tfl_tensor *ten = &sg->tensors[t];
        a->buf_of[t] = -1;
        if (has_data(m, ten))
            continue;
        int64_t bytes;
        if (!tensor_bytes(ten, &bytes)) {
            snprintf(err, RIP_ERR_LEN, "%s: tensor %zu: type %d has no byte size or the tensor passes 2^31 bytes", lbl,
                     t, ten->type);
            st = RIP_S_DATA;
            goto done;
        }
        if (ten->is_variable) {
            a->n_variables++;
            a->variable_bytes += bytes;
            continue;
        }
        if (bytes == 0)
            continue;
        a->buf_of[t] = (int32_t)a->n;
        a->buf[a->n++] = (rip_tflm_buf){.tensor = (int32_t)t, .bytes = bytes,
                                        .size = rip_tflm_placed_size(bytes),
                                        .first = first[t], .last = last[t]};
    }
    st = RIP_OK;
done:
    free(first);
    free(last);
    if (st != RIP_OK)
        rip_tflm_alloc_free(a);
    return st;
}

/* Do buffers b and [f, l] overlap in time (greedy_memory_planner.cc DoesEntryOverlapInTime)? */
static bool meet(const rip_tflm_buf *b, int f, int l)
{
    return !(b->first > l || f > b->last);
}

rip_status rip_tflm_greedy(const rip_tflm_alloc *a, const int64_t *offline, int64_t *off, int64_t *area,
                           char err[RIP_ERR_LEN])
{
    const size_t n = a->n;
    *area = 0;
    if (n == 0)
        return RIP_OK;
    size_t *order = malloc(n * sizeof *order), *list = malloc(n * sizeof *list);
    if (!order || !list) {
        free(order);
        free(list);
        snprintf(err, RIP_ERR_LEN, "greedy plan: out of memory");
        return RIP_S_NOMEM;
    }
    /* offline ones in order added, then the online ones in reverse order added, stably sorted by size, decreasing */
    size_t head = 0, tail = n;
    for (size_t i = 0; i < n; i++) {
        if (offline && offline[i] >= 0)
            order[head++] = i;
        else
            order[--tail] = i;
    }
    for (size_t i = head + 1; i < n; i++) {   /* insertion sort: stable, as TFLM's bubble sort */
        size_t v = order[i], j = i;
        for (; j > head && a->buf[order[j - 1]].size < a->buf[v].size; j--)
            order[j] = order[j - 1];
        order[j] = v;
    }
    /* list: the placed buffers by offset; a new one goes before the first placed strictly above it */
    size_t nl = 0;
    for (size_t k = 0; k < n; k++) {
        const size_t id = order[k];
        const rip_tflm_buf *w = &a->buf[id];
        int64_t cand = 0;
        if (offline && offline[id] >= 0) {
            cand = offline[id];
        } else {
            for (size_t j = 0; j < nl; j++) {   /* walk the active ones by offset; stop at the first gap that fits */
                const rip_tflm_buf *b = &a->buf[list[j]];
                if (!meet(b, w->first, w->last))
                    continue;
                if (off[list[j]] - cand >= w->size)
                    break;
                if (off[list[j]] + b->size > cand)
                    cand = off[list[j]] + b->size;
            }
        }
        off[id] = cand;
        size_t at = 0;
        while (at < nl && off[list[at]] <= cand)
            at++;
        memmove(list + at + 1, list + at, (nl - at) * sizeof *list);
        list[at] = id, nl++;
        if (cand + w->size > *area)
            *area = cand + w->size;
    }
    free(order);
    free(list);
    return RIP_OK;
}
