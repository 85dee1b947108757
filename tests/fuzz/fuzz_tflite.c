/*
** fuzz_tflite.c — libFuzzer harness of the TFLite reader and its check
** (rip_tfl_model_parse and rip_tfl_check in src/tflite/, `ripsim model`).
**
** Input: the bytes of a .tflite file, decoded from memory (the decoder
** rip_tfl_model_load runs after reading a file).  Checks, besides "no
** crash, leak, UB or read outside the input":
**   - a refusal, by the reader or the check, is RIP_S_DATA with a one-line
**     message that starts with the model's label;
**   - a decoded model is well formed: every counted array present, every
**     string terminated, buffer data and custom options inside the
**     model's own copy of the file;
**   - a model the check accepts holds what the check promises: one
**     subgraph, every operator's code in range and supported, every tensor
**     index in range (-1 only as an absent bias), every int8 and int32
**     tensor's byte count computable, constants exactly their buffer;
**   - reading the same bytes twice gives the same verdict and message.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfl_check.h"
#include "tfl_model.h"

#define LABEL "fuzz.tflite"

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_tflite: %s: %s\n", what, detail);
    abort();
}

static void check_message(rip_status st, const char *err)
{
    if (st != RIP_S_DATA && st != RIP_S_NOMEM)
        fail("a refusal other than bad data", err);
    if (strncmp(err, LABEL ": ", strlen(LABEL) + 2) != 0 || strchr(err, '\n') || strlen(err) <= strlen(LABEL) + 2)
        fail("a refusal without a one-line message naming the model", err);
}

static bool inside(const rip_tfl_model *m, const uint8_t *p, size_t n)
{
    return p >= m->file && n <= m->file_len && (size_t)(p - m->file) <= m->file_len - n;
}

/* What the reader promises of any model it returns. */
static void check_decoded(const rip_tfl_model *m)
{
    if (!m->label || !m->description || (m->n_opcodes && !m->opcodes) || (m->n_buffers && !m->buffers) ||
        (m->n_subgraphs && !m->subgraphs) || (m->n_metadata && !m->metadata))
        fail("decoded model", "a counted array or string is missing");
    for (size_t i = 0; i < m->n_buffers; i++)
        if (m->buffers[i].size && !inside(m, m->buffers[i].data, m->buffers[i].size))
            fail("decoded model", "buffer data outside the file");
    for (size_t i = 0; i < m->n_metadata; i++)
        if (!m->metadata[i].name)
            fail("decoded model", "metadata without a name string");
    for (size_t s = 0; s < m->n_subgraphs; s++) {
        const rip_tfl_subgraph *sg = &m->subgraphs[s];
        if (!sg->name || (sg->n_tensors && !sg->tensors) || (sg->n_operators && !sg->operators) ||
            (sg->n_inputs && !sg->inputs) || (sg->n_outputs && !sg->outputs))
            fail("decoded subgraph", "a counted array or string is missing");
        for (size_t i = 0; i < sg->n_tensors; i++) {
            const rip_tfl_tensor *t = &sg->tensors[i];
            if (!t->name || (t->rank && !t->shape) || (t->quant.n_scale && !t->quant.scale) ||
                (t->quant.n_zero_point && !t->quant.zero_point))
                fail("decoded tensor", "a counted array or string is missing");
        }
        for (size_t i = 0; i < sg->n_operators; i++) {
            const rip_tfl_operator *op = &sg->operators[i];
            if ((op->n_inputs && !op->inputs) || (op->n_outputs && !op->outputs) ||
                (op->custom_options_size && !inside(m, op->custom_options, op->custom_options_size)))
                fail("decoded operator", "an array is missing or custom options lie outside the file");
        }
    }
}

static bool in_range(const rip_tfl_subgraph *sg, int32_t t)
{
    return t >= 0 && (size_t)t < sg->n_tensors;
}

/* What rip_tfl_check promises of a model it accepts. */
static void check_accepted(const rip_tfl_model *m)
{
    if (m->n_subgraphs != 1)
        fail("accepted model", "not one subgraph");
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    for (size_t i = 0; i < sg->n_tensors; i++) {
        const rip_tfl_tensor *t = &sg->tensors[i];
        int64_t n, bytes;
        if (t->buffer >= m->n_buffers)
            fail("accepted model", "a buffer index out of range");
        if ((t->type == RIP_TFL_INT8 || t->type == RIP_TFL_INT32) && !rip_tfl_tensor_bytes(t, &n, &bytes))
            fail("accepted model", "a tensor without a byte count");
        if (rip_tfl_is_constant(m, t) && rip_tfl_type_bytes(t->type) &&
            (!rip_tfl_tensor_bytes(t, &n, &bytes) || (uint64_t)bytes != m->buffers[t->buffer].size))
            fail("accepted model", "a constant that is not its buffer");
    }
    for (size_t i = 0; i < sg->n_inputs; i++)
        if (!in_range(sg, sg->inputs[i]))
            fail("accepted model", "a graph input out of range");
    for (size_t i = 0; i < sg->n_outputs; i++)
        if (!in_range(sg, sg->outputs[i]))
            fail("accepted model", "a graph output out of range");
    for (size_t i = 0; i < sg->n_operators; i++) {
        const rip_tfl_operator *op = &sg->operators[i];
        const rip_tfl_opcode *code = rip_tfl_op_code(m, op);
        if (!code || !rip_tfl_op_supported(code->builtin) || !op->options_decoded)
            fail("accepted model", "an operator unknown, unsupported or without options");
        for (size_t k = 0; k < op->n_inputs; k++)
            if (!in_range(sg, op->inputs[k]) && !(k == 2 && op->inputs[k] == -1))
                fail("accepted model", "an operator input out of range");
        if (op->n_outputs != 1 || !in_range(sg, op->outputs[0]))
            fail("accepted model", "an operator output out of range");
    }
}

/* Read and check once: the status, and the message in err. */
static rip_status read_and_check(const uint8_t *data, size_t size, char err[RIP_ERR_LEN], bool deep)
{
    rip_tfl_model m;
    rip_status st = rip_tfl_model_parse(data, size, LABEL, &m, err);
    if (st != RIP_OK)
        return st;
    if (deep)
        check_decoded(&m);
    st = rip_tfl_check(&m, err);
    if (st == RIP_OK && deep)
        check_accepted(&m);
    rip_tfl_model_free(&m);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[RIP_ERR_LEN] = "", again[RIP_ERR_LEN] = "";
    rip_status st = read_and_check(data, size, err, true);
    if (st != RIP_OK)
        check_message(st, err);
    rip_status st2 = read_and_check(data, size, again, false);
    if (st2 != st || (st != RIP_OK && strcmp(err, again) != 0))
        fail("the same bytes read twice differ", again);
    return 0;
}
