/*
** cg_net.c — `ripsim codegen MODEL.tflite` as a library
** (rip_codegen_tflite, codegen.h): read and build the net, plan it, read
** the inputs, run it once on the host in the plan's layout (the reference
** output), put every constant the steps read and the inputs into the
** blob, and write the four files (text by cg_net_emit.c).
**
** The blob holds the very bytes the host runner reads: the model file's
** weights and constant operands, and the net's own arrays (TFLM's
** prepare-time multipliers and shifts, biases it decoded), int32 arrays
** stored little-endian at multiples of 4.  A constant read by several
** steps is stored once.
*/
#include <stdlib.h>
#include <string.h>

#include "cg_emit.h"
#include "cg_net.h"
#include "rk_crc32.h"

/* ---- the blob ---- */

/* Constants already stored: the source pointer and its blob offset. */
typedef struct stored {
    const void *p;
    size_t n;
    int64_t at;
} stored;

typedef struct blob_ctx {
    rip_cg_net_model *m;
    stored *seen;
    size_t n_seen, cap_seen;
} blob_ctx;

/* The blob offset of n bytes at p (int32 values when i32), stored once;
** -1 for p NULL (an absent array), -2 when out of memory. */
static int64_t put(blob_ctx *c, const void *p, size_t n, bool i32)
{
    if (p == NULL)
        return -1;
    for (size_t k = 0; k < c->n_seen; k++)
        if (c->seen[k].p == p && c->seen[k].n == n)
            return c->seen[k].at;
    if (c->n_seen == c->cap_seen) {
        size_t cap = c->cap_seen ? 2 * c->cap_seen : 64;
        stored *s = realloc(c->seen, cap * sizeof *s);
        if (s == NULL)
            return -2;
        c->seen = s;
        c->cap_seen = cap;
    }
    int64_t at = i32 ? rip_cg_blob_add_i32(&c->m->blob, p, n / 4) : rip_cg_blob_add(&c->m->blob, p, n, 4);
    if (at < 0)
        return -2;
    c->seen[c->n_seen++] = (stored){p, n, at};
    return at;
}

/* The constants of step s into the blob; false when out of memory. */
static bool put_step(blob_ctx *c, size_t s)
{
    const rip_net *net = c->m->net;
    const rip_net_step *st = &net->steps[s];
    rip_cg_net_step *o = &c->m->step[s];
    o->filter = o->bias = o->mult = o->shift = -1;
    for (int32_t k = 0; k < RIP_NET_MAX_OPERANDS; k++)
        o->operand[k] = -1;
    if (st->kind == RIP_NET_CONV || st->kind == RIP_NET_DEPTHWISE) {
        const rip_net_conv *cv = &st->u.conv;
        const size_t oc = (size_t)cv->out.c, taps = (size_t)cv->p.k_h * (size_t)cv->p.k_w;
        const size_t n_filter = st->kind == RIP_NET_CONV ? oc * taps * (size_t)cv->in.c : taps * oc;
        o->filter = put(c, cv->filter, n_filter, false);
        o->bias = put(c, cv->bias, 4 * oc, true);
        o->mult = put(c, cv->q.multiplier, 4 * oc, true);
        o->shift = put(c, cv->q.shift, 4 * oc, true);
    } else if (st->kind == RIP_NET_FC) {
        const rip_net_fc *fc = &st->u.fc;
        const size_t n_out = (size_t)fc->p.out_features, n_q = fc->p.per_channel ? n_out : 1;
        o->filter = put(c, fc->weights, n_out * (size_t)fc->p.in_features, false);
        o->bias = put(c, fc->bias, 4 * n_out, true);
        o->mult = put(c, fc->q.multiplier, 4 * n_q, true);
        o->shift = put(c, fc->q.shift, 4 * n_q, true);
    }
    bool ok = o->filter != -2 && o->bias != -2 && o->mult != -2 && o->shift != -2;
    for (int32_t k = 0; ok && k < st->n_in; k++) {
        const rip_net_operand *x = &st->in[k];
        if (x->buf >= 0 || x->data == NULL)
            continue;
        size_t n = 0;
        rip_tfl_tensor_data(net->model, &net->sg->tensors[x->tensor], &n);
        ok = (o->operand[k] = put(c, x->data, n, false)) != -2;
    }
    return ok;
}

/* Every step's constants, then the inputs (16-aligned, last). */
static rip_status build_blob(rip_cg_net_model *m, const void *const *inputs, char err[RIP_ERR_LEN])
{
    blob_ctx c = {.m = m};
    bool ok = true;
    for (size_t s = 0; ok && s < m->net->n_steps; s++)
        ok = put_step(&c, s);
    for (size_t i = 0; ok && i < m->net->n_inputs; i++) {
        const rip_net_io *io = &m->net->inputs[i];
        m->input[i] = io->type == RIP_TFL_FLOAT32
                          ? (rip_cg_blob_add(&m->blob, NULL, 0, 16) < 0
                                 ? -1
                                 : rip_cg_blob_add_f32(&m->blob, inputs[i], (size_t)io->elements))
                          : rip_cg_blob_add(&m->blob, inputs[i], (size_t)io->bytes, 16);
        ok = m->input[i] >= 0;
    }
    free(c.seen);
    if (!ok) {
        snprintf(err, RIP_ERR_LEN, "out of memory building the blob");
        return RIP_S_NOMEM;
    }
    return RIP_OK;
}

/* ---- the reference run ---- */

/*
** Run the net once on the host in layout L with the inputs: the outputs
** concatenated into m->logits (float32 little-endian) and their CRC.
*/
static rip_status reference_run(rip_cg_net_model *m, const void *const *inputs, char err[RIP_ERR_LEN])
{
    const rip_net *net = m->net;
    rip_status st = RIP_S_NOMEM;
    int8_t *arena = calloc((size_t)m->L->arena_bytes + 1, 1), *scratch = calloc((size_t)m->L->scratch_bytes + 1, 1);
    void **out = calloc(net->n_outputs + 1, sizeof *out);
    m->n_logits = 0;
    for (size_t k = 0; k < net->n_outputs; k++)
        m->n_logits += net->outputs[k].bytes;
    m->logits = malloc((size_t)m->n_logits + 1);
    bool ok = arena && scratch && out && m->logits;
    for (size_t k = 0; ok && k < net->n_outputs; k++)
        ok = (out[k] = calloc((size_t)net->outputs[k].bytes + 1, 1)) != NULL;
    if (!ok)
        snprintf(err, RIP_ERR_LEN, "out of memory");
    else if ((st = rip_net_run(net, m->L, arena, scratch, inputs, out, NULL, NULL, err)) == RIP_OK) {
        uint8_t *at = m->logits;
        for (size_t k = 0; k < net->n_outputs; k++) {
            const rip_net_io *io = &net->outputs[k];
            for (int64_t e = 0; io->type == RIP_TFL_FLOAT32 && e < io->elements; e++) {
                uint32_t u;
                memcpy(&u, (const uint8_t *)out[k] + 4 * e, 4);
                const uint8_t le[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
                memcpy(at + 4 * e, le, 4);
            }
            if (io->type != RIP_TFL_FLOAT32)
                memcpy(at, out[k], (size_t)io->bytes);
            at += io->bytes;
        }
        m->checksum = rk_crc32(m->logits, (size_t)m->n_logits);
    }
    for (size_t k = 0; out && k < net->n_outputs; k++)
        free(out[k]);
    free(out);
    free(arena);
    free(scratch);
    return st;
}

/* ---- the files ---- */

typedef struct net_emit_ctx {
    const rip_cg_net_model *m;
    const rip_cg_summary *s;
} net_emit_ctx;

static void emit_net(FILE *f, rip_cg_file kind, const void *ctx)
{
    const net_emit_ctx *c = ctx;
    switch (kind) {
    case RIP_CG_C: rip_cg_net_emit_c(f, c->m, c->s); break;
    case RIP_CG_ASM: rip_cg_emit_asm(f, c->s); break;
    case RIP_CG_BIN: fwrite(c->m->blob.b, 1, c->m->blob.len, f); break;
    case RIP_CG_JSON: rip_cg_net_emit_json(f, c->m, c->s); break;
    }
}

/* The file's name without folders and without .tflite, into out. */
static void stem(const char *path, char *out, size_t len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 7 && strcmp(b + n - 7, ".tflite") == 0)
        n -= 7;
    snprintf(out, len, "%.*s", (int)n, b);
}

/* The summary of m (arena checked already). */
static void summarize(const rip_cg_net_model *m, const rip_cg_tflite_write_opts *o, rip_cg_summary *s)
{
    stem(o->source, s->graph, sizeof s->graph);
    snprintf(s->model, sizeof s->model, "%s", o->name ? o->name : s->graph);
    rip_cg_plain_name(s->graph);
    rip_cg_plain_name(s->model);
    snprintf(s->strategy, sizeof s->strategy, "%s", o->strategy);
    s->plan = rip_cg_plan_name(o->plan);
    s->peak = m->L->arena_bytes;
    s->arena = o->arena ? o->arena : m->L->arena_bytes;
    s->scratch = m->L->scratch_bytes;
    s->blob_bytes = (int64_t)m->blob.len;
    s->n_ops = (int64_t)m->net->n_steps;
    s->n_logits = m->n_logits;
    s->n_outputs = (int64_t)m->net->n_outputs;
    for (size_t k = 0; k < m->net->n_steps; k++) {
        s->n_inplace += m->L->place[k].mode != RIP_NET_DUAL;
        s->n_shifts += m->L->place[k].mode == RIP_NET_BELOW && m->L->place[k].shift;
    }
    s->checksum = m->checksum;
}

rip_status rip_cg_tflite_write(const rip_net *net, const rip_net_layout *L, const void *const *inputs,
                               const rip_cg_tflite_write_opts *o, const char *out_dir, rip_cg_summary *s,
                               char err[RIP_ERR_LEN])
{
    memset(s, 0, sizeof *s);
    const int64_t arena = o->arena ? o->arena : L->arena_bytes;
    if (arena < L->arena_bytes || arena > INT32_MAX) { /* the kernels index in 32 bits */
        snprintf(err, RIP_ERR_LEN, "--arena: %lld bytes is %s the peak of the %s plan of %.200s, %lld bytes",
                 (long long)arena, arena > INT32_MAX ? "more than 2^31 - 1, beyond" : "below",
                 rip_cg_plan_name(o->plan), o->source, (long long)L->arena_bytes);
        return RIP_S_DATA;
    }
    rip_cg_net_model m = {.net = net, .L = L};
    const char *base = strrchr(o->source, '/');
    m.source = base ? base + 1 : o->source;
    m.step = calloc(net->n_steps + 1, sizeof *m.step);
    m.input = calloc(net->n_inputs + 1, sizeof *m.input);
    rip_status st = RIP_S_NOMEM;
    if (!m.step || !m.input)
        snprintf(err, RIP_ERR_LEN, "out of memory");
    else if ((st = reference_run(&m, inputs, err)) == RIP_OK && (st = build_blob(&m, inputs, err)) == RIP_OK) {
        summarize(&m, o, s);
        net_emit_ctx c = {&m, s};
        st = rip_cg_write_files(out_dir, emit_net, &c, err);
    }
    free(m.step);
    free(m.input);
    free(m.logits);
    rip_cg_blob_free(&m.blob);
    return st;
}

/* What one generation holds; freed by release. */
typedef struct gen_state {
    rip_tfl_model model;
    rip_net net;
    rip_net_layout layout;
    rip_plan *plan;
    void **in;
} gen_state;

static void release(gen_state *g)
{
    for (size_t i = 0; g->in && i < g->net.n_inputs; i++)
        free(g->in[i]);
    free(g->in);
    rip_plan_free(g->plan);
    rip_net_layout_free(&g->layout);
    rip_net_free(&g->net);
    rip_tfl_model_free(&g->model);
}

/* The model at path built, its inputs read, planned: g filled. */
static rip_status prepare(gen_state *g, const char *path, const rip_cg_tflite_opts *o, char err[RIP_ERR_LEN])
{
    rip_status st = rip_tfl_model_load(path, &g->model, err);
    if (st == RIP_OK)
        st = rip_net_build(&g->model, &g->net, err);
    if (st != RIP_OK)
        return st;
    if (o->n_inputs != g->net.n_inputs) {
        snprintf(err, RIP_ERR_LEN, "%.300s has %zu input%s, but %zu input file%s given", path, g->net.n_inputs,
                 g->net.n_inputs == 1 ? "" : "s", o->n_inputs, o->n_inputs == 1 ? "" : "s");
        return RIP_S_DATA;
    }
    if (!(g->in = calloc(g->net.n_inputs + 1, sizeof *g->in)))
        goto nomem;
    for (size_t i = 0; i < g->net.n_inputs; i++) {
        if (!(g->in[i] = malloc((size_t)g->net.inputs[i].bytes + 1)))
            goto nomem;
        st = o->inputs[i].f32 ? rip_net_read_input_f32(&g->net, i, o->inputs[i].path, g->in[i], err)
                              : rip_net_read_input(&g->net, i, o->inputs[i].path, g->in[i], err);
        if (st != RIP_OK)
            return st;
    }
    rip_net_plan_kind k = o->plan == RIP_CG_RIP ? RIP_NET_PLAN_RIP : RIP_NET_PLAN_BASE;
    return rip_net_plan(&g->net, k, NULL, &g->plan, &g->layout, err);
nomem:
    snprintf(err, RIP_ERR_LEN, "out of memory");
    return RIP_S_NOMEM;
}

rip_status rip_codegen_tflite(const char *path, const rip_cg_tflite_opts *o, const char *out_dir, rip_cg_summary *s,
                              char err[RIP_ERR_LEN])
{
    gen_state g;
    memset(&g, 0, sizeof g);
    memset(s, 0, sizeof *s);
    rip_status st = prepare(&g, path, o, err);
    if (st == RIP_OK) {
        rip_cg_tflite_write_opts w = {.plan = o->plan, .strategy = g.plan->strategy, .arena = o->arena,
                                      .name = o->name, .source = path};
        st = rip_cg_tflite_write(&g.net, &g.layout, (const void *const *)g.in, &w, out_dir, s, err);
    }
    release(&g);
    return st;
}
