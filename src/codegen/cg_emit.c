/*
** cg_emit.c — which kernel runs each operator on which arena offsets, and
** the text of model.c, model_blob.S and model.json (cg_emit.h).
**
** model.c is straight-line code: one block per operator, its parameter
** structs as const data beside it, its weights and quantization arrays as
** address constants into the blob, so nothing is set up at run time and
** an instruction counter sees exactly the kernels (rk_mark_op before each).
*/
#include "cg_emit.h"
#include "cg_kernels.h"

#include <inttypes.h>
#include <string.h>

#include "rk_conv2d_rip.h"
#include "rk_depthwise_inplace.h"

/* The used candidate of op i, or -1 (the plan checker allows at most one). */
static long used_candidate(const rip_problem *p, const rip_plan *plan, size_t i)
{
    for (size_t k = 0; k < p->n_cand; k++)
        if (plan->in_place[k] && (size_t)p->cand[k].op == i)
            return (long)k;
    return -1;
}

static rk_inplace rip_mode(int64_t gap)
{
    rk_inplace ip = {RK_DENSE, RK_GATHER, gap};
    return ip;
}

/* Do [a, a + na) and [b, b + nb) intersect? */
static bool overlap(int64_t a, int64_t na, int64_t b, int64_t nb)
{
    return a < b + nb && b < a + na;
}

rip_status rip_cg_steps(const rip_cg_model *m, const rip_problem *p, const rip_plan *plan, int64_t arena,
                        rip_cg_step *steps, char err[RIP_ERR_LEN])
{
    const rip_graph *g = m->g;
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        const rip_cg_op *o = &m->op[i];
        rip_cg_step *st = &steps[i];
        memset(st, 0, sizeof *st);
        const int t_out = (int)i + 1;
        const int64_t n_out = m->tsize[t_out];
        st->x_out = plan->offset[t_out];
        for (int j = 0; j < op->n_inputs; j++)
            st->x_in[j] = plan->offset[rip_cg_tin(m, i, j)];
        if (st->x_out + n_out > arena) {
            snprintf(err, RIP_ERR_LEN, "op %lld: output [%lld, %lld) beyond the arena of %lld bytes",
                     (long long)op->id, (long long)st->x_out, (long long)(st->x_out + n_out), (long long)arena);
            return RIP_S_INTERNAL;
        }
        long k = used_candidate(p, plan, i);
        const rip_candidate *c = k >= 0 ? &p->cand[k] : NULL;
        const int64_t n_in = c ? m->tsize[c->in] : 0;
        const int64_t x_in = c ? plan->offset[c->in] : 0;
        const char *why = NULL;
        if (!c) {
            st->call = CG_DUAL;
            for (int j = 0; j < op->n_inputs && !why; j++) {
                int t = rip_cg_tin(m, i, j);
                if (overlap(st->x_in[j], m->tsize[t], st->x_out, n_out))
                    why = "a dual-buffer op whose output overlaps an input";
            }
            st->scratch = rip_cg_dual_scratch(m, i);
        } else if (c->kind == RIP_INPLACE_ALIAS) {
            if (x_in != st->x_out)
                why = "an ALIAS pair at different offsets";
            if (op->kind == RIP_OP_DEPTHWISE) {
                st->call = CG_DW_INPLACE;
                st->scratch = rk_depthwise_inplace_buffer_size(&o->conv, o->in, o->out);
                if (st->scratch == 0)
                    why = "an in-place depthwise the kernel refuses (output larger than input?)";
            } else if (op->kind == RIP_OP_ADD) {
                st->call = CG_ADD_INPLACE;
                st->alias = rip_cg_tin(m, i, 0) == c->in ? 0 : 1;
                if (rip_cg_tin(m, i, st->alias) != c->in || n_in != n_out)
                    why = "an in-place add whose output is not one of its inputs";
            } else if (op->kind == RIP_OP_UPSAMPLE) {
                st->call = CG_UP_INPLACE;
                st->ws = n_out;
            } else {
                why = "an ALIAS candidate on an op without an in-place kernel";
            }
        } else { /* GAP */
            if (rip_cg_tin(m, i, 0) != c->in)
                why = "a GAP candidate on an input other than the first";
            st->shift = plan->shift[k];
            st->gap = st->shift ? c->gap : x_in - st->x_out;
            if (st->shift && x_in != st->x_out)
                why = "a shifted GAP pair at different offsets";
            if (!st->shift && st->gap < c->gap)
                why = "a GAP pair closer than its gap";
            int64_t in_end = (st->shift ? x_in + c->gap : x_in) + n_in;
            st->ws = (in_end > st->x_out + n_out ? in_end : st->x_out + n_out) - st->x_out;
            if (st->x_out + st->ws > arena)
                why = "an in-place workspace beyond the arena";
            if (c->has_layer && (op->kind == RIP_OP_CONV2D || op->kind == RIP_OP_POINTWISE)) {
                st->call = CG_CONV_RIP;
                rk_inplace ip = rip_mode(st->gap);
                st->scratch = rk_conv2d_rip_buffer_size(&o->conv, o->in, o->out, &ip);
            } else if (c->pool && (op->kind == RIP_OP_AVGPOOL || op->kind == RIP_OP_MAXPOOL)) {
                st->call = CG_POOL_RIP;
                st->scratch = rk_pool_inplace_buffer_size(
                    &o->pool, op->kind == RIP_OP_AVGPOOL ? RK_POOL_AVG : RK_POOL_MAX, o->in, o->out);
            } else {
                why = "a GAP candidate on an op without an in-place kernel";
            }
        }
        if (why) {
            snprintf(err, RIP_ERR_LEN, "op %lld (%s): the plan places %s", (long long)op->id,
                     rip_op_name(op->kind), why);
            return RIP_S_INTERNAL;
        }
    }
    return RIP_OK;
}

/* ---- model.c ---- */

/* Op i's const parameter structs (dims, kernel parameters, quantization
** pointers into the blob), named by kind and index. */
static void emit_params(FILE *f, const rip_cg_model *m, size_t i)
{
    const rip_op *op = &m->g->ops[i];
    const rip_cg_op *o = &m->op[i];
    if (op->kind != RIP_OP_ADD && op->kind != RIP_OP_FC) { /* those two take no dims */
        cg_dims(f, "in", i, o->in);
        cg_dims(f, "out", i, o->out);
    }
    switch (op->kind) {
    case RIP_OP_CONV2D:
    case RIP_OP_POINTWISE:
    case RIP_OP_DEPTHWISE: cg_conv_params(f, i, &o->conv); break;
    case RIP_OP_FC: cg_fc_params(f, i, &o->fc); break;
    case RIP_OP_ADD: cg_add_params(f, i, &o->add); break;
    case RIP_OP_AVGPOOL:
    case RIP_OP_MAXPOOL: cg_pool_params(f, i, &o->pool); break;
    case RIP_OP_UPSAMPLE: cg_up_params(f, i, &o->up); break;
    default: break;
    }
    if (o->off_mult >= 0)
        cg_quant(f, i, o->off_mult, o->off_shift);
}

/* The comment line's word for how a step runs. */
static const char *call_note(const rip_cg_step *st)
{
    switch (st->call) {
    case CG_DUAL: return "dual buffer";
    case CG_DW_INPLACE: return "in place (ALIAS: TinyEngine depthwise over its input)";
    case CG_ADD_INPLACE: return "in place (ALIAS: the output over an input)";
    case CG_UP_INPLACE: return "in place (ALIAS: reverse traversal, Theorem 14)";
    case CG_CONV_RIP: return "in place (RiP GAP: dense layout, gather first)";
    case CG_POOL_RIP: return "in place (GAP: pool forward, gather first)";
    }
    return "?";
}

/* Does the statement emit_call writes for op take rk_scratch?  (Exactly
** the calls below that pass it; model.c declares rk_scratch only when one
** does, since an unused static array breaks the firmware's -Werror.) */
static bool takes_scratch(const rip_op *op, const rip_cg_step *st)
{
    switch (st->call) {
    case CG_DUAL: return op->kind == RIP_OP_CONV2D || op->kind == RIP_OP_POINTWISE;
    case CG_DW_INPLACE:
    case CG_CONV_RIP:
    case CG_POOL_RIP: return true;
    case CG_ADD_INPLACE:
    case CG_UP_INPLACE: return false;
    }
    return false;
}

/* The statement that runs op i, as the condition of `if (... != RK_OK)`. */
static void emit_call(FILE *f, const rip_cg_model *m, size_t i, const rip_cg_step *st)
{
    const rip_op *op = &m->g->ops[i];
    const rip_cg_op *o = &m->op[i];
    const bool avg = op->kind == RIP_OP_AVGPOOL;
    const cg_ptr in = cg_arena(st->x_in[0]), out = cg_arena(st->x_out);
    const cg_ptr filter = cg_i8(o->off_filter), bias = cg_i32(o->off_bias);
    switch (st->call) {
    case CG_DUAL:
        switch (op->kind) {
        case RIP_OP_CONV2D:
        case RIP_OP_POINTWISE:
            cg_call_conv(f, op->kind == RIP_OP_CONV2D ? "rk_conv2d" : "rk_pointwise", i, in, filter, bias, out);
            return;
        case RIP_OP_DEPTHWISE: cg_call_depthwise(f, i, in, filter, bias, out); return;
        case RIP_OP_FC: cg_call_fc(f, i, in, filter, bias, out); return;
        case RIP_OP_ADD: cg_call_add(f, i, m->tsize[i + 1], in, cg_arena(st->x_in[1]), out); return;
        case RIP_OP_AVGPOOL:
        case RIP_OP_MAXPOOL: cg_call_pool(f, i, avg, in, out); return;
        case RIP_OP_UPSAMPLE: cg_call_upsample(f, i, in, out); return;
        default: return;
        }
    case CG_DW_INPLACE: cg_call_depthwise_inplace(f, i, filter, bias, out); return;
    case CG_ADD_INPLACE: cg_call_add(f, i, m->tsize[i + 1], in, cg_arena(st->x_in[1]), out); return;
    case CG_UP_INPLACE: cg_call_upsample_inplace(f, i, out, st->ws); return;
    case CG_CONV_RIP: cg_call_conv_rip(f, i, filter, bias, out, st->ws); return;
    case CG_POOL_RIP: cg_call_pool_inplace(f, i, avg, st->gap, out, st->ws); return;
    }
}

void rip_cg_emit_banner(FILE *f, const rip_cg_summary *s, const char *source, const char *units,
                        const char *weights)
{
    fprintf(f,
            "/*\n"
            "** model.c — %s under the %s plan (strategy %s), generated by `ripsim codegen` from\n"
            "** %s.  Do not edit: regenerate.\n"
            "**\n"
            "** Arena: %" PRId64 " bytes (the plan's peak: %" PRId64 "), every tensor at its planned offset;\n"
            "** scratch: %" PRId64 " bytes; %" PRId64 " of %" PRId64 " %s in place (%" PRId64 " with a runtime shift).\n"
            "%s"
            "*/\n",
            s->model, s->plan, s->strategy, source, s->arena, s->peak, s->scratch, s->n_inplace, s->n_ops, units,
            s->n_shifts, weights);
}

void rip_cg_emit_head(FILE *f, const rip_cg_summary *s, bool f32, bool scratch)
{
    fprintf(f, "#include <stdbool.h>\n#include <stdint.h>\n#include <string.h>\n\n");
    fprintf(f, "#include \"rk_crc32.h\"\n#include \"rk_markers.h\"\n#include \"rk_model.h\"\n");
    for (size_t k = 0; cg_kernel_headers[k]; k++)
        fprintf(f, "#include \"%s\"\n", cg_kernel_headers[k]);
    fprintf(f,
            "\n#define RK_ARENA_BYTES %" PRId64 "u\n#define RK_PLAN_PEAK %" PRId64 "u\n#define RK_SCRATCH_BYTES %" PRId64
            "u\n#define RK_N_LOGITS %" PRId64 "u\n",
            s->arena, s->peak, s->scratch > 0 ? s->scratch : 1, s->n_logits);
    fprintf(f, "/* the offsets below need the plan's peak: an arena edited below it must not build */\n"
               "_Static_assert(RK_ARENA_BYTES >= RK_PLAN_PEAK, \"arena below the plan's peak\");\n\n");
    fprintf(f, "/* weights, quantization and input (model_blob.S: .incbin \"model.bin\"), 16-aligned */\n"
               "extern const int8_t rk_model_blob[];\n"
               "#define RK_I8(off) (rk_model_blob + (off))\n"
               "#define RK_I32(off) ((const int32_t *)(const void *)(rk_model_blob + (off)))\n%s\n",
            f32 ? "#define RK_F32(off) ((const float *)(const void *)(rk_model_blob + (off)))\n" : "");
    fprintf(f, "static int8_t rk_arena[RK_ARENA_BYTES] __attribute__((aligned(16)));\n");
    if (scratch)
        fprintf(f, "static int8_t rk_scratch[RK_SCRATCH_BYTES] __attribute__((aligned(16)));\n");
    else
        fprintf(f, "/* no operator takes scratch: no rk_scratch */\n");
    fprintf(f, "#define A(off) (rk_arena + (off))\n");
}

void rip_cg_emit_c(FILE *f, const rip_cg_model *m, const rip_cg_step *steps, int64_t x_input,
                   const rip_cg_summary *s)
{
    const rip_graph *g = m->g;
    char source[128], weights[400];
    snprintf(source, sizeof source, "the graph %s.csv", s->graph);
    snprintf(weights, sizeof weights,
             "** Weights, quantization and input: seeded, calibrated stand-ins (no real\n"
             "** MCUNet weights), in model.bin (model_blob.S); the reference logits' CRC-32\n"
             "** is %08" PRIx32 ".\n",
             s->checksum);
    rip_cg_emit_banner(f, s, source, "operators", weights);
    bool scratch = false;
    for (size_t i = 0; i < g->n_ops; i++)
        scratch |= takes_scratch(&g->ops[i], &steps[i]);
    rip_cg_emit_head(f, s, false, scratch);
    if (m->n_outputs > 1)
        fprintf(f, "/* %zu graph outputs, gathered after the run in graph order */\n"
                   "static int8_t rk_logits[RK_N_LOGITS];\n",
                m->n_outputs);
    fprintf(f, "\nconst rk_model_info rk_model = {\"%s\", \"%s\", RK_ARENA_BYTES, %" PRId64 "u, %zuu, RK_N_LOGITS};\n",
            s->model, s->plan, s->scratch, g->n_ops);

    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        fprintf(f, "\n/* op %zu (id %lld): %s %dx%dx%d -> %dx%dx%d */\n", i, (long long)op->id, rip_op_name(op->kind),
                (int)op->h_in, (int)op->w_in, (int)op->c_in, (int)op->h_out, (int)op->w_out, (int)op->c_out);
        emit_params(f, m, i);
        if (steps[i].call == CG_CONV_RIP)
            cg_inplace(f, i, steps[i].gap);
    }

    fprintf(f, "\nint rk_model_run(void)\n{\n");
    fprintf(f, "    memcpy(A(%" PRId64 "), RK_I8(%" PRId64 "), %" PRId64 "u); /* the model input */\n", x_input,
            m->off_input, m->tsize[0]);
    fprintf(f, "    rk_mark_begin();\n");
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_cg_step *st = &steps[i];
        fprintf(f, "    /* op %zu: %s, output at %" PRId64, i, call_note(st), st->x_out);
        for (int j = 0; j < g->ops[i].n_inputs; j++)
            fprintf(f, ", input at %" PRId64, st->x_in[j]);
        if (st->call == CG_CONV_RIP || st->call == CG_POOL_RIP)
            fprintf(f, ", gap %" PRId64, st->gap);
        fprintf(f, " */\n    rk_mark_op(%zuu);\n", i);
        if (st->shift)
            fprintf(f, "    memmove(A(%" PRId64 "), A(%" PRId64 "), %" PRId64 "u); /* runtime shift by the gap */\n",
                    st->x_in[0] + st->gap, st->x_in[0], m->tsize[rip_cg_tin(m, i, 0)]);
        fprintf(f, "    if (");
        emit_call(f, m, i, st);
        fprintf(f, " != RK_OK)\n        return %zu;\n", i + 1);
    }
    fprintf(f, "    rk_mark_end();\n");
    if (m->n_outputs > 1) {
        int64_t at = 0;
        for (size_t k = 0; k < m->n_outputs; k++) {
            int t = m->outputs[k];
            fprintf(f, "    memcpy(rk_logits + %" PRId64 ", A(%" PRId64 "), %" PRId64 "u);\n", at, steps[t - 1].x_out,
                    m->tsize[t]);
            at += m->tsize[t];
        }
    }
    fprintf(f, "    return 0;\n}\n\n");
    fprintf(f, "const int8_t *rk_model_output(void)\n{\n");
    if (m->n_outputs > 1)
        fprintf(f, "    return rk_logits;\n}\n\n");
    else
        fprintf(f, "    return A(%" PRId64 ");\n}\n\n", steps[m->outputs[0] - 1].x_out);
    fprintf(f, "uint32_t rk_model_checksum(void)\n{\n    return rk_crc32(rk_model_output(), RK_N_LOGITS);\n}\n");
}

void rip_cg_emit_asm(FILE *f, const rip_cg_summary *s)
{
    fprintf(f,
            "/*\n"
            "** model_blob.S — the weights, quantization parameters and input of %s\n"
            "** (%" PRId64 " bytes, generated by `ripsim codegen`): model.bin in read-only data,\n"
            "** 16-aligned (its int32 arrays sit at multiples of 4).  Assemble with\n"
            "** -Wa,-I,<this folder> so that .incbin finds model.bin.\n"
            "*/\n"
            "    .section .rodata.rk_model_blob,\"a\"\n"
            "    .balign 16\n"
            "    .global rk_model_blob\n"
            "    .type rk_model_blob, %%object\n"
            "rk_model_blob:\n"
            "    .incbin \"model.bin\"\n"
            "    .size rk_model_blob, . - rk_model_blob\n"
            "    .section .note.GNU-stack,\"\",%%progbits\n",
            s->model, s->blob_bytes);
}

void rip_cg_emit_json(FILE *f, const rip_cg_summary *s, uint64_t seed)
{
    fprintf(f,
            "{\"model\": \"%s\", \"plan\": \"%s\", \"arena_bytes\": %" PRId64 ", \"scratch_bytes\": %" PRId64
            ", \"n_ops\": %" PRId64 ", \"n_logits\": %" PRId64 ", \"graph\": \"%s\", \"strategy\": \"%s\", "
            "\"peak_bytes\": %" PRId64 ", \"n_inplace\": %" PRId64 ", \"n_shifts\": %" PRId64
            ", \"n_outputs\": %" PRId64 ", \"blob_bytes\": %" PRId64 ", \"seed\": %" PRIu64
            ", \"checksum\": \"%08" PRIx32 "\"}\n",
            s->model, s->plan, s->arena, s->scratch, s->n_ops, s->n_logits, s->graph, s->strategy, s->peak,
            s->n_inplace, s->n_shifts, s->n_outputs, s->blob_bytes, seed, s->checksum);
}
