/*
** cg_net_emit.c — the text of a TFLite model's model.c and model.json
** (cg_net.h).
**
** model.c runs the net's steps in order as rip_net_run does (net_run.c),
** one kernel call per step on the arena offsets of the layout: in place
** where the layout's place says (TinyEngine's depthwise, ADD and integer
** upsampling over their input; RiP convolutions and pools below it, after
** the runtime shift when the plan asks for one), dual buffers otherwise.
** The calls are printed by cg_kernels.c.  Float32 model inputs are read
** from the blob by their QUANTIZE; float32 outputs are written by their
** DEQUANTIZE into arrays beside the arena, as the host runner writes the
** caller's buffers: rk_out<k>, or, for a model with several outputs, the
** output's place in the one buffer of all outputs (rk_logits, float-aligned
** so that a float output starting at a multiple of 4 bytes is written
** there directly, not copied).
*/
#include <inttypes.h>
#include <string.h>

#include "cg_emit.h"
#include "cg_kernels.h"
#include "cg_net.h"

/* Where operand k of step s is: in the arena, the blob (a constant), or
** the blob's float32 input (QUANTIZE's). */
static cg_ptr operand(const rip_cg_net_model *m, size_t s, int32_t k)
{
    const rip_net_operand *x = &m->net->steps[s].in[k];
    if (x->buf >= 0)
        return cg_arena(m->L->offset[x->buf]);
    if (x->io >= 0)
        return cg_f32(m->input[x->io]);
    return cg_i8(m->step[s].operand[k]);
}

/* Where model output k's bytes start in the concatenated logits. */
static int64_t output_at(const rip_net *net, size_t k)
{
    int64_t at = 0;
    for (size_t j = 0; j < k; j++)
        at += net->outputs[j].bytes;
    return at;
}

/* Is float32 output k written straight into its place in rk_logits? */
static bool in_logits(const rip_net *net, size_t k)
{
    return net->n_outputs > 1 && net->outputs[k].buf < 0 && output_at(net, k) % 4 == 0;
}

/* The float32 array of output k: its own rk_out<k>, or its place in rk_logits. */
static cg_ptr out_array(const rip_net *net, size_t k)
{
    char name[48];
    if (in_logits(net, k))
        snprintf(name, sizeof name, "(rk_logits_f + %" PRId64 ")", output_at(net, k) / 4);
    else
        snprintf(name, sizeof name, "rk_out%zu", k);
    return cg_named(name);
}

static cg_ptr result(const rip_cg_net_model *m, size_t s)
{
    const rip_net_operand *y = &m->net->steps[s].out;
    return y->buf >= 0 ? cg_arena(m->L->offset[y->buf]) : out_array(m->net, (size_t)y->io);
}

/* The bytes of the in-place workspace of a step below its input (net_run.c's below_workspace). */
static int64_t below_ws(const rip_cg_net_model *m, size_t s)
{
    const rip_net_step *st = &m->net->steps[s];
    const rip_net_place *pl = &m->L->place[s];
    int64_t n_in = m->net->buffers[st->in[pl->in].buf].size, n_out = m->net->buffers[st->out.buf].size;
    return pl->gap + n_in > n_out ? pl->gap + n_in : n_out;
}

/* Step s's const parameter structs. */
static void emit_params(FILE *f, const rip_cg_net_model *m, size_t s)
{
    const rip_net_step *st = &m->net->steps[s];
    const rip_net_place *pl = &m->L->place[s];
    const rip_cg_net_step *o = &m->step[s];
    switch (st->kind) {
    case RIP_NET_CONV:
    case RIP_NET_DEPTHWISE:
        cg_dims(f, "in", s, st->u.conv.in);
        cg_dims(f, "out", s, st->u.conv.out);
        cg_conv_params(f, s, &st->u.conv.p);
        cg_quant(f, s, o->mult, o->shift);
        if (pl->mode == RIP_NET_BELOW)
            cg_inplace(f, s, pl->gap);
        break;
    case RIP_NET_FC:
        cg_fc_params(f, s, &st->u.fc.p);
        cg_quant(f, s, o->mult, o->shift);
        break;
    case RIP_NET_AVGPOOL:
    case RIP_NET_MAXPOOL:
        cg_dims(f, "in", s, st->u.pool.in);
        cg_dims(f, "out", s, st->u.pool.out);
        cg_pool_params(f, s, &st->u.pool.p);
        break;
    case RIP_NET_ADD:
        cg_add_params(f, s, &st->u.add.p);
        if (st->u.add.broadcast) {
            cg_shape(f, s, 0, &st->u.add.out);
            cg_shape(f, s, 1, &st->u.add.in1);
            cg_shape(f, s, 2, &st->u.add.in2);
        }
        break;
    case RIP_NET_MEAN:
        cg_shape(f, s, 0, &st->u.mean.in);
        cg_mean_params(f, s, &st->u.mean.p, st->u.mean.axis, st->u.mean.n_axis);
        break;
    case RIP_NET_SOFTMAX: cg_softmax_params(f, s, &st->u.softmax.p); break;
    case RIP_NET_PAD:
        cg_shape(f, s, 0, &st->u.pad.in);
        cg_pad_params(f, s, &st->u.pad.p);
        break;
    case RIP_NET_TRANSPOSE:
        cg_shape(f, s, 0, &st->u.transpose.in);
        cg_transpose_params(f, s, &st->u.transpose.p);
        break;
    case RIP_NET_CONCAT: {
        cg_ptr in[RIP_NET_MAX_OPERANDS];
        for (int32_t k = 0; k < st->n_in; k++)
            in[k] = operand(m, s, k);
        cg_concat_params(f, s, &st->u.concat.p, st->u.concat.shapes, in);
        break;
    }
    case RIP_NET_RESIZE:
        cg_dims(f, "in", s, st->u.resize.in);
        cg_dims(f, "out", s, st->u.resize.out);
        if (pl->mode == RIP_NET_OVER)
            cg_up_params(f, s, &st->u.resize.up);
        else
            cg_resize_params(f, s, &st->u.resize.p);
        break;
    case RIP_NET_QUANTIZE:
    case RIP_NET_DEQUANTIZE: cg_affine(f, s, &st->u.quant.q); break;
    }
}

/* The call that runs step s, as the condition of `if (... != RK_OK)`. */
static void emit_call(FILE *f, const rip_cg_net_model *m, size_t s)
{
    const rip_net_step *st = &m->net->steps[s];
    const rip_net_place *pl = &m->L->place[s];
    const rip_cg_net_step *o = &m->step[s];
    const cg_ptr in = st->n_in > 0 ? operand(m, s, 0) : cg_named("NULL"), out = result(m, s);
    const cg_ptr filter = cg_i8(o->filter), bias = cg_i32(o->bias);
    const bool avg = st->kind == RIP_NET_AVGPOOL;
    switch (st->kind) {
    case RIP_NET_CONV:
        if (pl->mode == RIP_NET_BELOW)
            cg_call_conv_rip(f, s, filter, bias, out, below_ws(m, s));
        else
            cg_call_conv(f, "rk_conv2d", s, in, filter, bias, out);
        return;
    case RIP_NET_DEPTHWISE:
        if (pl->mode == RIP_NET_OVER)
            cg_call_depthwise_inplace(f, s, filter, bias, out);
        else
            cg_call_depthwise(f, s, in, filter, bias, out);
        return;
    case RIP_NET_FC: cg_call_fc(f, s, in, filter, bias, out); return;
    case RIP_NET_AVGPOOL:
    case RIP_NET_MAXPOOL:
        if (pl->mode == RIP_NET_BELOW)
            cg_call_pool_inplace(f, s, avg, pl->gap, out, below_ws(m, s));
        else
            cg_call_pool(f, s, avg, in, out);
        return;
    case RIP_NET_ADD:
        if (st->u.add.broadcast)
            cg_call_add_broadcast(f, s, in, operand(m, s, 1), out);
        else
            cg_call_add(f, s, st->u.add.n, in, operand(m, s, 1), out);
        return;
    case RIP_NET_MEAN: cg_call_mean(f, s, st->u.mean.n_axis, in, out); return;
    case RIP_NET_SOFTMAX: cg_call_softmax(f, s, st->u.softmax.rows, st->u.softmax.depth, in, out); return;
    case RIP_NET_PAD: cg_call_pad(f, s, in, out); return;
    case RIP_NET_TRANSPOSE: cg_call_transpose(f, s, in, out); return;
    case RIP_NET_CONCAT: cg_call_concat(f, s, out); return;
    case RIP_NET_RESIZE:
        if (pl->mode == RIP_NET_OVER)
            cg_call_upsample_inplace(f, s, out, m->net->buffers[st->out.buf].size);
        else
            cg_call_resize(f, s, in, out);
        return;
    case RIP_NET_QUANTIZE: cg_call_quantize(f, s, st->u.quant.n, in, out); return;
    case RIP_NET_DEQUANTIZE: cg_call_dequantize(f, s, st->u.quant.n, in, out); return;
    }
}

/* Does the statement emit_call writes for step s pass rk_scratch?  (Exactly
** the calls above that do: rk_conv2d, rk_conv2d_rip, rk_depthwise_inplace,
** rk_pool_inplace.) */
static bool takes_scratch(const rip_cg_net_model *m, size_t s)
{
    const rip_net_mode mode = m->L->place[s].mode;
    switch (m->net->steps[s].kind) {
    case RIP_NET_CONV: return true;
    case RIP_NET_DEPTHWISE: return mode == RIP_NET_OVER;
    case RIP_NET_AVGPOOL:
    case RIP_NET_MAXPOOL: return mode == RIP_NET_BELOW;
    default: return false;
    }
}

/* How step s runs, for its comment. */
static const char *how(const rip_cg_net_model *m, size_t s)
{
    const rip_net_step *st = &m->net->steps[s];
    switch (m->L->place[s].mode) {
    case RIP_NET_DUAL: return "dual buffer";
    case RIP_NET_OVER:
        return st->kind == RIP_NET_DEPTHWISE ? "in place (ALIAS: TinyEngine depthwise over its input)"
               : st->kind == RIP_NET_ADD     ? "in place (ALIAS: the output over an input)"
                                             : "in place (ALIAS: reverse traversal, Theorem 14)";
    case RIP_NET_BELOW:
        return st->kind == RIP_NET_CONV ? "in place (RiP GAP: dense layout, gather first)"
                                        : "in place (GAP: pool forward, gather first)";
    }
    return "?";
}

/* Step s's comment in rk_model_run: how, where its output and inputs are. */
static void emit_placement(FILE *f, const rip_cg_net_model *m, size_t s)
{
    const rip_net_step *st = &m->net->steps[s];
    const rip_net_place *pl = &m->L->place[s];
    fprintf(f, "    /* step %zu: %s, output ", s, how(m, s));
    if (st->out.buf >= 0)
        fprintf(f, "at %" PRId64, m->L->offset[st->out.buf]);
    else
        fprintf(f, "%s (float32)", out_array(m->net, (size_t)st->out.io).s);
    for (int32_t k = 0; k < st->n_in; k++) {
        const rip_net_operand *x = &st->in[k];
        if (x->buf >= 0)
            fprintf(f, ", input at %" PRId64, m->L->offset[x->buf]);
        else
            fprintf(f, ", input %s", x->io >= 0 ? "float32 from the blob" : "constant");
    }
    if (pl->mode == RIP_NET_BELOW)
        fprintf(f, ", gap %" PRId64 "%s", pl->gap, pl->shift ? " after a runtime shift" : "");
    fprintf(f, " */\n");
}

/* Model output k's bytes, as a pointer expression. */
static cg_ptr output_ptr(const rip_cg_net_model *m, size_t k)
{
    const rip_net_io *io = &m->net->outputs[k];
    return io->buf >= 0 ? cg_arena(m->L->offset[io->buf]) : out_array(m->net, k);
}

static void emit_run(FILE *f, const rip_cg_net_model *m)
{
    const rip_net *net = m->net;
    fprintf(f, "\nint rk_model_run(void)\n{\n");
    for (size_t i = 0; i < net->n_inputs; i++)
        if (net->inputs[i].buf >= 0)
            fprintf(f, "    memcpy(A(%" PRId64 "), RK_I8(%" PRId64 "), %" PRId64 "u); /* model input %zu */\n",
                    m->L->offset[net->inputs[i].buf], m->input[i], net->inputs[i].bytes, i);
    fprintf(f, "    rk_mark_begin();\n");
    for (size_t s = 0; s < net->n_steps; s++) {
        const rip_net_place *pl = &m->L->place[s];
        emit_placement(f, m, s);
        fprintf(f, "    rk_mark_op(%zuu);\n", s);
        if (pl->mode == RIP_NET_BELOW && pl->shift) {
            const int64_t x = m->L->offset[net->steps[s].out.buf];
            fprintf(f, "    memmove(A(%" PRId64 "), A(%" PRId64 "), %" PRId64 "u); /* runtime shift by the gap */\n",
                    x + pl->gap, x, net->buffers[net->steps[s].in[pl->in].buf].size);
        }
        fprintf(f, "    if (");
        emit_call(f, m, s);
        fprintf(f, " != RK_OK)\n        return %zu;\n", s + 1);
    }
    fprintf(f, "    rk_mark_end();\n");
    for (size_t k = 0; net->n_outputs > 1 && k < net->n_outputs; k++)
        if (!in_logits(net, k))
            fprintf(f, "    memcpy(rk_logits + %" PRId64 ", %s, %" PRId64 "u);\n", output_at(net, k),
                    output_ptr(m, k).s, net->outputs[k].bytes);
    fprintf(f, "    return 0;\n}\n\n");
    fprintf(f, "const int8_t *rk_model_output(void)\n{\n");
    if (net->n_outputs > 1)
        fprintf(f, "    return rk_logits;\n}\n\n");
    else if (net->outputs[0].buf >= 0)
        fprintf(f, "    return %s;\n}\n\n", output_ptr(m, 0).s);
    else
        fprintf(f, "    return (const int8_t *)(const void *)%s;\n}\n\n", output_ptr(m, 0).s);
    fprintf(f, "uint32_t rk_model_checksum(void)\n{\n    return rk_crc32(rk_model_output(), RK_N_LOGITS);\n}\n");
}

void rip_cg_net_emit_c(FILE *f, const rip_cg_net_model *m, const rip_cg_summary *s)
{
    const rip_net *net = m->net;
    char source[160], weights[400];
    snprintf(source, sizeof source, "the TFLite model %s", m->source);
    snprintf(weights, sizeof weights,
             "** Weights, biases and TensorFlow Lite Micro's prepare-time integers: the\n"
             "** model's own, in model.bin (model_blob.S) with the input; the output's\n"
             "** CRC-32 on the host (`ripsim run`) is %08" PRIx32 ".\n",
             s->checksum);
    rip_cg_emit_banner(f, s, source, "steps", weights);
    bool scratch = false;
    for (size_t k = 0; k < net->n_steps; k++)
        scratch |= takes_scratch(m, k);
    rip_cg_emit_head(f, s, true, scratch);
    for (size_t k = 0; k < net->n_outputs; k++)
        if (net->outputs[k].buf < 0 && !in_logits(net, k))
            fprintf(f, "/* float32 output %zu, written by its DEQUANTIZE */\nstatic float rk_out%zu[%" PRId64 "];\n",
                    k, k, net->outputs[k].elements);
    if (net->n_outputs > 1)
        fprintf(f, "/* %zu model outputs in the model's order: float32 ones at a multiple of 4 written in place\n"
                   "** by their DEQUANTIZE, the others copied after the run */\n"
                   "static float rk_logits_f[(RK_N_LOGITS + 3) / 4];\n"
                   "#define rk_logits ((int8_t *)(void *)rk_logits_f)\n",
                net->n_outputs);
    fprintf(f, "\nconst rk_model_info rk_model = {\"%s\", \"%s\", RK_ARENA_BYTES, %" PRId64 "u, %zuu, RK_N_LOGITS};\n",
            s->model, s->plan, s->scratch, net->n_steps);
    for (size_t st = 0; st < net->n_steps; st++) {
        char label[160];
        rip_net_op_label(net, net->steps[st].op, label, sizeof label);
        fprintf(f, "\n/* step %zu: %s, %s", st, label, rip_net_kind_name(net->steps[st].kind));
        if (net->steps[st].folded_pad >= 0)
            fprintf(f, " (the PAD operator %ld folded into it)", (long)net->steps[st].folded_pad);
        fprintf(f, " */\n");
        emit_params(f, m, st);
    }
    emit_run(f, m);
}

void rip_cg_net_emit_json(FILE *f, const rip_cg_net_model *m, const rip_cg_summary *s)
{
    char source[128];
    snprintf(source, sizeof source, "%s", m->source);
    rip_cg_plain_name(source);
    fprintf(f,
            "{\"model\": \"%s\", \"plan\": \"%s\", \"arena_bytes\": %" PRId64 ", \"scratch_bytes\": %" PRId64
            ", \"n_ops\": %" PRId64 ", \"n_logits\": %" PRId64 ", \"graph\": \"%s\", \"strategy\": \"%s\", "
            "\"peak_bytes\": %" PRId64 ", \"n_inplace\": %" PRId64 ", \"n_shifts\": %" PRId64
            ", \"n_outputs\": %" PRId64 ", \"blob_bytes\": %" PRId64 ", \"source\": \"%s\""
            ", \"checksum\": \"%08" PRIx32 "\"}\n",
            s->model, s->plan, s->arena, s->scratch, s->n_ops, s->n_logits, s->graph, s->strategy, s->peak,
            s->n_inplace, s->n_shifts, s->n_outputs, s->blob_bytes, source, s->checksum);
}
