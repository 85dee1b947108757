/*
** codegen.c — `ripsim codegen` as a library (codegen.h): check the graph,
** plan it as Tab. 3 does, build the seeded model, decide each op's kernel
** from the plan, write the four files.
*/
#include "codegen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg_emit.h"

const char *rip_cg_plan_name(rip_cg_plan_kind k)
{
    return k == RIP_CG_RIP ? "rip" : "base";
}

/* The Tab. 3 names of the eleven MCUNet graphs (src/report/table3.c). */
static const struct {
    const char *graph, *name;
} tab3_names[] = {
    {"mcunet-in0", "MCUNet-in0"},   {"mcunet-in1", "MCUNet-in1"},         {"mcunet-in2", "MCUNet-in2"},
    {"mcunet-in3", "MCUNet-in3"},   {"mcunet-in4", "MCUNet-in4"},         {"mbv2-w0.35", "MbV2-w0.35"},
    {"proxyless-w0.3", "Proxyless-w0.3"}, {"mcunet-vww0", "MCUNet-VWW0"}, {"mcunet-vww1", "MCUNet-VWW1"},
    {"mcunet-vww2", "MCUNet-VWW2"}, {"person-det", "Person-Det"},
};

static const char *model_name(const char *graph)
{
    for (size_t i = 0; i < sizeof tab3_names / sizeof tab3_names[0]; i++)
        if (strcmp(graph, tab3_names[i].graph) == 0)
            return tab3_names[i].name;
    return graph;
}

void rip_cg_plain_name(char *n)
{
    for (; *n; n++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *n))
            *n = '_';
}

/* ---- the graph ---- */

/* Why op cannot be generated, or NULL. */
static const char *unsupported(const rip_op *op)
{
    switch (op->kind) {
    case RIP_OP_CONV2D:
    case RIP_OP_POINTWISE:
    case RIP_OP_DEPTHWISE:
    case RIP_OP_FC:
        break;
    case RIP_OP_ADD:
        if (op->n_inputs != 2)
            return "add of a tensor and a constant is not supported (only the add of two tensors)";
        break;
    case RIP_OP_AVGPOOL:
    case RIP_OP_MAXPOOL:
        if (op->d_h != 1 || op->d_w != 1)
            return "dilated pooling is not supported";
        if (op->p_top >= op->k_h || op->p_bottom >= op->k_h || op->p_left >= op->k_w || op->p_right >= op->k_w)
            return "pooling with padding as large as the window is not supported";
        break;
    case RIP_OP_UPSAMPLE:
        if (op->h_out != op->h_in * op->s_h || op->w_out != op->w_in * op->s_w)
            return "upsample whose output is not the input times s_h x s_w is not supported";
        break;
    default:
        return "not supported by the code generator (it emits conv2d, pointwise, depthwise, add, avgpool, "
               "maxpool, fc, upsample)";
    }
    if (op->dtype_bytes != 1)
        return "dtype_bytes must be 1: the kernels are int8";
    /* the loader bounds every extent by 2^24 and every tensor by 2^46, so these products stay in int64 */
    const int64_t n_in = op->h_in * op->w_in * op->c_in;
    if (n_in > INT32_MAX || op->h_out * op->w_out * op->c_out > INT32_MAX ||
        (op->kind == RIP_OP_FC ? n_in : op->k_h * op->k_w * op->c_in) > INT32_MAX / op->c_out)
        return "a tensor or filter of 2^31 bytes or more (the kernels index in 32 bits)";
    return NULL;
}

rip_status rip_cg_check_graph(const rip_graph *g, const char *file, char err[RIP_ERR_LEN])
{
    for (size_t i = 0; i < g->n_ops; i++) {
        const char *why = unsupported(&g->ops[i]);
        if (why) {
            snprintf(err, RIP_ERR_LEN, "%.300s: op %lld (%s): %s", file, (long long)g->ops[i].id,
                     rip_op_name(g->ops[i].kind), why);
            rip_err_one_line(err);
            return RIP_S_DATA;
        }
    }
    return RIP_OK;
}

rip_status rip_cg_plan(const char *path, rip_cg_plan_kind k, rip_graph *g, rip_problem *p, rip_plan **plan,
                       char err[RIP_ERR_LEN])
{
    *plan = NULL;
    memset(p, 0, sizeof *p);
    rip_status s = rip_graph_load(path, g, err);
    if (s != RIP_OK)
        return s;
    const char *strategy = k == RIP_CG_RIP ? "milp" : "tinyengine";
    rip_graph_opts go = {.rip = k == RIP_CG_RIP, .inplace_depthwise = true, .sigma_taps = false, .align = 4};
    rip_plan_opts po = {.seed = 1, .time_limit = 120, .reproducible = true};
    char why[RIP_ERR_LEN];
    if ((s = rip_cg_check_graph(g, path, err)) != RIP_OK || (s = rip_problem_from_graph(g, &go, p, err)) != RIP_OK)
        goto fail;
    if ((s = rip_plan_solve_checked(p, strategy, &po, true, plan, why)) != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "%.200s, %.300s", path, why);
        goto fail;
    }
    return RIP_OK;
fail:
    rip_plan_free(*plan);
    *plan = NULL;
    rip_problem_free(p);
    rip_graph_free(g);
    return s;
}

/* ---- files ---- */

/* By rip_cg_file: model.c, model_blob.S, model.bin, model.json. */
const char *const rip_cg_file_names[] = {"model.c", "model_blob.S", "model.bin", "model.json", NULL};

/*
** Write dir/name under a temporary name in dir, flushed and synced, then
** rename it into place, so a failure leaves the previous file as it was.
*/
static rip_status write_file(const char *dir, rip_cg_file kind, rip_cg_emitter emit, const void *ctx,
                             char err[RIP_ERR_LEN])
{
    const char *name = rip_cg_file_names[kind];
    char path[4096], tmp[4096];
    rip_status s = RIP_OK;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name) >= (int)sizeof tmp) {
        snprintf(err, RIP_ERR_LEN, "%.300s: path too long", dir);
        return RIP_S_CANTCREATE;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, RIP_ERR_LEN, "%.300s: cannot create a file there: %s", dir, strerror(errno));
        rip_err_one_line(err);
        return RIP_S_CANTCREATE;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    emit(f, kind, ctx);
    /* mkstemp makes the file 0600; generated sources are ordinary files */
    int bad = ferror(f) || fflush(f) != 0 || fchmod(fileno(f), 0644) != 0 || fsync(fileno(f)) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        snprintf(err, RIP_ERR_LEN, "%.300s: cannot write: %s", path, strerror(e));
        rip_err_one_line(err);
        s = RIP_S_IO;
    }
    return s;
}

rip_status rip_cg_write_files(const char *dir, rip_cg_emitter emit, const void *ctx, char err[RIP_ERR_LEN])
{
    /* model.json last: its presence says the folder is complete */
    static const rip_cg_file order[] = {RIP_CG_BIN, RIP_CG_ASM, RIP_CG_C, RIP_CG_JSON};
    rip_status st = RIP_OK;
    for (size_t k = 0; k < sizeof order / sizeof order[0] && st == RIP_OK; k++)
        st = write_file(dir, order[k], emit, ctx, err);
    return st;
}

typedef struct emit_ctx {
    const rip_cg_model *m;
    const rip_cg_step *steps;
    int64_t x_input;
    const rip_cg_summary *s;
    uint64_t seed;
} emit_ctx;

/* A CSV graph's model: file kind to f. */
static void emit_csv(FILE *f, rip_cg_file kind, const void *ctx)
{
    const emit_ctx *c = ctx;
    size_t blob_n = 0;
    const uint8_t *blob = rip_cg_model_blob(c->m, &blob_n);
    switch (kind) {
    case RIP_CG_C: rip_cg_emit_c(f, c->m, c->steps, c->x_input, c->s); break;
    case RIP_CG_ASM: rip_cg_emit_asm(f, c->s); break;
    case RIP_CG_BIN: fwrite(blob, 1, blob_n, f); break;
    case RIP_CG_JSON: rip_cg_emit_json(f, c->s, c->seed); break;
    }
}

rip_status rip_cg_write(const rip_graph *g, const rip_problem *p, const rip_plan *plan, rip_cg_plan_kind k,
                        int64_t arena, uint64_t seed, const char *out_dir, rip_cg_summary *s, char err[RIP_ERR_LEN])
{
    rip_cg_model *m = NULL;
    rip_cg_step *steps = NULL;
    char why[RIP_ERR_LEN];
    memset(s, 0, sizeof *s);
    rip_status st = rip_plan_check(p, plan, true, why);
    if (st != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "%.60s: the plan fails its check: %.300s", g->name, why);
        return st == RIP_S_FAILED ? RIP_S_INTERNAL : st;
    }
    if (arena == 0)
        arena = plan->peak;
    if (arena < plan->peak) {
        snprintf(err, RIP_ERR_LEN, "--arena: %lld bytes is below the peak of the %s plan of %.100s, %lld bytes",
                 (long long)arena, rip_cg_plan_name(k), g->name, (long long)plan->peak);
        return RIP_S_DATA;
    }
    if (arena > INT32_MAX) { /* the kernels index in 32 bits */
        snprintf(err, RIP_ERR_LEN, "--arena: %lld bytes, more than 2^31 - 1", (long long)arena);
        return RIP_S_DATA;
    }
    if ((st = rip_cg_model_build(g, seed, &m, err)) != RIP_OK)
        goto done;
    if (!(steps = calloc(g->n_ops, sizeof *steps))) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        st = RIP_S_NOMEM;
        goto done;
    }
    if ((st = rip_cg_steps(m, p, plan, arena, steps, err)) != RIP_OK)
        goto done;

    snprintf(s->graph, sizeof s->graph, "%s", g->name);
    snprintf(s->model, sizeof s->model, "%s", model_name(g->name));
    rip_cg_plain_name(s->graph);
    rip_cg_plain_name(s->model);
    snprintf(s->strategy, sizeof s->strategy, "%s", plan->strategy);
    s->plan = rip_cg_plan_name(k);
    s->peak = plan->peak;
    s->arena = arena;
    for (size_t i = 0; i < g->n_ops; i++) {
        if ((int64_t)steps[i].scratch > s->scratch)
            s->scratch = (int64_t)steps[i].scratch;
        s->n_inplace += steps[i].call != CG_DUAL;
        s->n_shifts += steps[i].shift;
    }
    size_t blob_n = 0;
    rip_cg_model_blob(m, &blob_n);
    s->blob_bytes = (int64_t)blob_n;
    s->n_ops = (int64_t)g->n_ops;
    s->n_logits = m->n_logits;
    s->n_outputs = (int64_t)m->n_outputs;
    s->checksum = m->checksum;

    emit_ctx c = {m, steps, plan->offset[0], s, seed};
    st = rip_cg_write_files(out_dir, emit_csv, &c, err);
done:
    free(steps);
    rip_cg_model_free(m);
    return st;
}

rip_status rip_codegen(const char *path, const rip_cg_opts *o, const char *out_dir, rip_cg_summary *s,
                       char err[RIP_ERR_LEN])
{
    rip_graph g;
    rip_problem p;
    rip_plan *plan = NULL;
    memset(s, 0, sizeof *s);
    rip_status st = rip_cg_plan(path, o->plan, &g, &p, &plan, err);
    if (st != RIP_OK)
        return st;
    st = rip_cg_write(&g, &p, plan, o->plan, o->arena, o->seed, out_dir, s, err);
    rip_plan_free(plan);
    rip_problem_free(&p);
    rip_graph_free(&g);
    return st;
}
