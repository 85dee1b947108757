/*
** test_codegen_random.c — 200 random graphs through the whole deployment
** path (issue 19): every planning strategy on the graph's base problem
** (in-place depthwise only) and its rip problem (every RiP candidate), and
** exact, which places raw buffers only, on its dual problem (no
** candidates) too; the checker with simulation on every plan; the code
** generator's kernel choice on every plan and its files on every distinct
** placement; each generated model.c compiled with the firmware's flags,
** run on the host, and its checksum held against an independent reference.
**
** The graphs are drawn from one splitmix64 seed (the same 200 on every
** run; the first 100 in a sanitizer build, see SANITIZED): 1 to 8 ops
** over every operator class codegen accepts (conv2d, pointwise,
** depthwise, add of two tensors, avgpool, maxpool, fc, upsample), with the
** shapes in-place execution gets wrong if anything
** does: depthwise and convolutions whose padding makes the output outgrow
** the input (Theorem 13 undefined), strides and dilations, pools with
** overlapping windows and global pools, upsampling by uneven factors, adds
** of an operand still read later, branches (an input read again, so not
** overwritten), gaps in the op ids, several graph outputs.
**
** What is held against what:
**   the reference: every op recomputed by tests/ref_conv.h's plain kernels
**     (a different code path from firmware/kernels/), each tensor in its
**     own buffer, from the weights and quantization the model drew (its
**     blob); the library's own dual-buffer reference run must give the same
**     logits byte for byte;
**   every generated model's checksum (under every distinct placement, base
**     and rip alike) against the reference's;
**   the strategies against each other: every plan at or above the
**     problem's lower bound, milp no worse than the deterministic
**     heuristics it starts from, a proven optimum no worse than any plan,
**     the lower bounds and proven optima (milp's, exact's) ordered rip <=
**     base <= dual (candidates are optional).
** Cost: plans that place alike generate the same code but for comments,
** so each distinct placement is written and built once.  The compiler's
** start-up, not a small model, is most of its build, so the models are
** compiled 40 to a translation unit (write_unit: each model.c included
** with its file-scope names renamed) and linked into one host program.
** The models of every twentieth graph are also built on their own, model.c
** and model_blob.S as generated: with AddressSanitizer and UBSan into a
** second program that is run too, and for the Cortex-M0+
** (arm-none-eabi-gcc, the firmware's flags).
** The suite ends with one line on stderr (kept in meson's test log): the
** graphs drawn, the checks that failed and what the draw reached.
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codegen/cg_emit.h"
#include "codegen/cg_internal.h"
#include "codegen/codegen.h"
#include "codegen_build.h"
#include "plan/graph.h"
#include "plan/plan.h"
#include "ref_conv.h"
#include "rk_crc32.h"
#include "splitmix.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(codegen_random, 900);

/* Under AddressSanitizer (the sanitizer build runs this suite too) milp's
** CBC runs take some 30 times longer: 35 s on a 7-tensor graph that the
** normal build plans in 1.3 s, where the start heuristics miss the lower
** bound and the neighbourhood search forks CBC children.  There the suite
** draws the first 100 graphs and gives milp 3 s a plan (CBC in a child
** stopped at the deadline; the plan found by then is checked and run like
** any other).  The normal build draws all 200, milp without a limit. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
enum { N_GRAPHS = SANITIZED ? 100 : 200, MAX_OPS = 8, MAX_MODELS = 2000 };
#define MILP_SECONDS (SANITIZED ? 3.0 : 0.0)
#define GRAPH_SEED 0x1919191919191919ull

/* ------------------------------------------------------------ the graphs */

typedef struct shape {
    int64_t h, w, c;
} shape;

typedef struct gen {
    char text[8192];
    size_t len;
    shape t[MAX_OPS + 1];   /* t[0]: the model input; t[i + 1]: op i's output */
    int64_t id[MAX_OPS + 1];
    int n_ops;
} gen;

typedef struct window {
    int64_t k_h, k_w, s_h, s_w, pt, pl, pb, pr, d_h, d_w;
} window;

/* Append one CSV row (dtype 1). */
static void add_row(gen *g, const char *op, const char *inputs, shape in, shape out, window w)
{
    int n = snprintf(g->text + g->len, sizeof g->text - g->len,
                     "%lld,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,1\n",
                     (long long)g->id[g->n_ops + 1], op, inputs, (long long)in.h, (long long)in.w, (long long)in.c,
                     (long long)out.h, (long long)out.w, (long long)out.c, (long long)w.k_h, (long long)w.k_w,
                     (long long)w.s_h, (long long)w.s_w, (long long)w.pt, (long long)w.pl, (long long)w.pb,
                     (long long)w.pr, (long long)w.d_h, (long long)w.d_w);
    cr_assert(n > 0 && (size_t)n < sizeof g->text - g->len);
    g->len += (size_t)n;
    g->t[++g->n_ops] = out;
}

/* The schema's output extent; 0 if none. */
static int64_t extent(int64_t in, int64_t pa, int64_t pb, int64_t k, int64_t d, int64_t s)
{
    int64_t num = in + pa + pb - ((k - 1) * d + 1);
    return num < 0 ? 0 : num / s + 1;
}

/* A random window on in for a conv or depthwise (dilation, padding up to
** k_eff: beyond what keeps the size), or a pool (no dilation, padding
** below k, sometimes global); output extents in [1, 16]. */
static window draw_window(shape in, bool pool, shape *out)
{
    for (;;) {
        window w = {rng_int(1, 3), rng_int(1, 3), rng_int(1, pool ? 3 : 2), rng_int(1, pool ? 3 : 2), 0, 0, 0, 0,
                    pool ? 1 : rng_int(1, 2), pool ? 1 : rng_int(1, 2)};
        if (pool && rng_int(0, 4) == 0) /* global */
            w = (window){in.h, in.w, 1, 1, 0, 0, 0, 0, 1, 1};
        int64_t kh = (w.k_h - 1) * w.d_h + 1, kw = (w.k_w - 1) * w.d_w + 1;
        int64_t ph = pool ? w.k_h - 1 : kh, pw = pool ? w.k_w - 1 : kw;
        if (!(w.k_h == in.h && w.k_w == in.w && pool)) {
            w.pt = rng_int(0, ph), w.pb = rng_int(0, ph), w.pl = rng_int(0, pw), w.pr = rng_int(0, pw);
        }
        out->h = extent(in.h, w.pt, w.pb, w.k_h, w.d_h, w.s_h);
        out->w = extent(in.w, w.pl, w.pr, w.k_w, w.d_w, w.s_w);
        if (out->h >= 1 && out->h <= 16 && out->w >= 1 && out->w <= 16)
            return w;
    }
}

/* The input list text of op inputs a (and b >= 0): producer ids, -1 for the model input. */
static void inputs_text(const gen *g, int a, int b, char *buf, size_t n)
{
    if (b < 0)
        snprintf(buf, n, "%lld", (long long)g->id[a]);
    else
        snprintf(buf, n, "%lld;%lld", (long long)g->id[a], (long long)g->id[b]);
}

/* Random graph k: its CSV text in g. */
static void draw_graph(int k, gen *g)
{
    memset(g, 0, sizeof *g);
    rng_state = GRAPH_SEED + (uint64_t)k * 0x9E3779B97F4A7C15ull;
    g->len = (size_t)snprintf(g->text, sizeof g->text,
                              "op_id,op,inputs,h_in,w_in,c_in,h_out,w_out,c_out,k_h,k_w,s_h,s_w,p_top,p_left,"
                              "p_bottom,p_right,d_h,d_w,dtype_bytes\n");
    g->t[0] = (shape){rng_int(1, 12), rng_int(1, 12), rng_int(1, 6)};
    g->id[0] = -1;
    int64_t next_id = rng_int(0, 3);
    const int n_ops = (int)rng_int(1, MAX_OPS);
    static const char *const kinds[] = {"conv2d", "conv2d", "pointwise", "depthwise", "depthwise", "depthwise",
                                        "add",    "add",    "avgpool",   "maxpool",   "maxpool",   "upsample",
                                        "fc"};
    while (g->n_ops < n_ops) {
        g->id[g->n_ops + 1] = next_id;
        next_id += rng_int(1, 3); /* ids need not be contiguous */
        /* mostly the latest tensor; sometimes an older one, which makes a branch */
        int a = rng_int(0, 3) ? g->n_ops : (int)rng_int(0, g->n_ops);
        if (g->n_ops == 0)
            a = 0;
        shape in = g->t[a], out = in;
        const char *kind = kinds[rng_int(0, sizeof kinds / sizeof kinds[0] - 1)];
        window one = {1, 1, 1, 1, 0, 0, 0, 0, 1, 1};
        char inputs[48];
        inputs_text(g, a, -1, inputs, sizeof inputs);
        if (strcmp(kind, "add") == 0) {
            /* a partner of the same shape; if there is none, a depthwise that keeps the shape makes one */
            int partners[MAX_OPS + 1], n = 0;
            for (int t = 0; t <= g->n_ops; t++)
                if (t != a && g->t[t].h == in.h && g->t[t].w == in.w && g->t[t].c == in.c)
                    partners[n++] = t;
            if (n > 0 || rng_int(0, 9) == 0) {
                int b = n > 0 ? partners[rng_int(0, n - 1)] : a; /* or the tensor added to itself */
                if (rng_int(0, 1))
                    inputs_text(g, b, a, inputs, sizeof inputs);
                else
                    inputs_text(g, a, b, inputs, sizeof inputs);
                add_row(g, "add", inputs, in, out, one);
                continue;
            }
            kind = "same-depthwise";
        }
        if (strcmp(kind, "same-depthwise") == 0) {
            add_row(g, "depthwise", inputs, in, out, (window){3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
        } else if (strcmp(kind, "conv2d") == 0 || strcmp(kind, "depthwise") == 0 || strcmp(kind, "avgpool") == 0 ||
                   strcmp(kind, "maxpool") == 0) {
            bool pool = strstr(kind, "pool") != NULL;
            window w = draw_window(in, pool, &out);
            out.c = strcmp(kind, "conv2d") == 0 ? rng_int(1, 8) : in.c;
            add_row(g, kind, inputs, in, out, w);
        } else if (strcmp(kind, "pointwise") == 0) {
            out.c = rng_int(1, 8);
            add_row(g, kind, inputs, in, out, one);
        } else if (strcmp(kind, "upsample") == 0) {
            window w = one;
            w.s_h = rng_int(1, 16 / in.h < 3 ? 16 / in.h : 3);
            w.s_w = rng_int(1, 16 / in.w < 3 ? 16 / in.w : 3);
            out.h = in.h * w.s_h, out.w = in.w * w.s_w;
            add_row(g, kind, inputs, in, out, w);
        } else { /* fc */
            out = (shape){1, 1, rng_int(1, 10)};
            add_row(g, kind, inputs, in, out, one);
        }
    }
}

/* ------------------------------------------------- the independent reference */

static const int32_t *blob_i32(const uint8_t *blob, int64_t off)
{
    return (const int32_t *)(const void *)(blob + off);
}

/*
** Every tensor of m's graph recomputed with ref_conv.h, each in its own
** buffer, from the graph's geometry and the parameters m drew (weights,
** biases and requantization in its blob, zero points in its kernel
** parameters); the logits (the graph outputs, tensors no op reads, in graph
** order) into y (room for n_max), their count returned.
*/
static int64_t reference_logits(const rip_cg_model *m, int8_t *y, int64_t n_max)
{
    const rip_graph *g = m->g;
    size_t blob_n;
    const uint8_t *blob = rip_cg_model_blob(m, &blob_n);
    int8_t *v[MAX_OPS + 1] = {NULL};
    bool read[MAX_OPS + 1] = {false};
    const rip_op *first = NULL;
    for (size_t i = 0; i < g->n_ops && !first; i++)
        if (g->ops[i].inputs[0] == -1)
            first = &g->ops[i];
    const int64_t n_input = first->h_in * first->w_in * first->c_in;
    v[0] = malloc((size_t)n_input);
    cr_assert_not_null(v[0]);
    memcpy(v[0], blob + m->off_input, (size_t)n_input); /* the input the model ships */
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        const rip_cg_op *o = &m->op[i];
        int src[2] = {0, 0};
        for (int j = 0; j < op->n_inputs; j++) {
            src[j] = op->inputs[j] == -1 ? 0 : (int)rip_graph_find_op(g, op->inputs[j]) + 1;
            read[src[j]] = true;
        }
        const int64_t n_out = op->h_out * op->w_out * op->c_out;
        int8_t *x = v[src[0]], *out = v[i + 1] = malloc((size_t)n_out);
        cr_assert_not_null(out);
        const int8_t *f = (const int8_t *)blob + o->off_filter;
        if (op->kind == RIP_OP_CONV2D || op->kind == RIP_OP_POINTWISE || op->kind == RIP_OP_DEPTHWISE) {
            ref_conv rc = {(int)op->c_in, (int)op->c_out, (int)op->h_in, (int)op->w_in, (int)op->h_out,
                           (int)op->w_out, (int)op->k_h, (int)op->k_w, (int)op->s_h, (int)op->s_w, (int)op->d_h,
                           (int)op->d_w, (int)op->p_top, (int)op->p_left, -o->conv.input_offset,
                           o->conv.output_offset, o->conv.act.min, o->conv.act.max};
            cr_assert(ref_conv2d(&rc, op->kind == RIP_OP_DEPTHWISE, x, f, blob_i32(blob, o->off_bias),
                                 blob_i32(blob, o->off_mult), blob_i32(blob, o->off_shift), out),
                      "op %zu: an accumulator left int32", i);
        } else if (op->kind == RIP_OP_FC) {
            cr_assert(ref_fc(1, (int)(op->h_in * op->w_in * op->c_in), (int)op->c_out, x, f,
                             blob_i32(blob, o->off_bias), -o->fc.input_offset, o->fc.output_offset, o->fc.per_channel,
                             blob_i32(blob, o->off_mult), blob_i32(blob, o->off_shift), o->fc.act.min,
                             o->fc.act.max, out),
                      "op %zu: an accumulator left int32", i);
        } else if (op->kind == RIP_OP_ADD) {
            const rk_add_params *a = &o->add;
            ref_add((int)n_out, x, v[src[1]], -a->input1_offset, -a->input2_offset, a->left_shift,
                    a->input1_multiplier, a->input1_shift, a->input2_multiplier, a->input2_shift,
                    a->output_multiplier, a->output_shift, a->output_offset, a->act.min, a->act.max, out);
        } else if (op->kind == RIP_OP_AVGPOOL || op->kind == RIP_OP_MAXPOOL) {
            ref_pool(op->kind == RIP_OP_AVGPOOL, (int)op->c_in, (int)op->h_in, (int)op->w_in, (int)op->h_out,
                     (int)op->w_out, (int)op->k_h, (int)op->k_w, (int)op->s_h, (int)op->s_w, (int)op->p_top,
                     (int)op->p_left, o->pool.act.min, o->pool.act.max, x, out);
        } else {
            cr_assert_eq(op->kind, RIP_OP_UPSAMPLE);
            ref_upsample((int)op->c_in, (int)op->h_in, (int)op->w_in, (int)op->s_h, (int)op->s_w, x, out);
        }
    }
    int64_t n = 0;
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        const int64_t n_out = op->h_out * op->w_out * op->c_out;
        if (read[i + 1])
            continue;
        cr_assert_leq(n + n_out, n_max);
        memcpy(y + n, v[i + 1], (size_t)n_out);
        n += n_out;
    }
    for (size_t t = 0; t <= g->n_ops; t++)
        free(v[t]);
    return n;
}

/* ------------------------------------------------------- plans and models */

/* A distinct placement of a graph, generated into dir, to be built and run. */
typedef struct model {
    char dir[320];
    int graph, n_ops;
    uint32_t crc;   /* the reference's */
} model;

typedef struct tally {
    model models[MAX_MODELS];
    int n_models;
    int64_t plans, refusals, in_place, shifts, outgrowing_dw, candidates, no_scratch;
    int64_t failures; /* checks that failed (EXPECT); a failed cr_assert ends the test instead */
} tally;

/* cr_expect(cond, ...) that also counts its failure in tl->failures, so
** the summary line says how many checks failed. */
#define EXPECT(tl, cond, ...)                                                                                          \
    do {                                                                                                               \
        const bool ok_ = (cond);                                                                                       \
        (tl)->failures += !ok_;                                                                                        \
        cr_expect(ok_, __VA_ARGS__);                                                                                   \
    } while (0)

/* What a plan places: every offset and, per used candidate, its pair and
** shift.  Plans with the same key generate the same code. */
static void plan_key(const rip_problem *p, const rip_plan *plan, char *key, size_t n)
{
    size_t len = 0;
    for (size_t t = 0; t < p->n && len < n; t++)
        len += (size_t)snprintf(key + len, n - len, "%lld,", (long long)plan->offset[t]);
    for (size_t k = 0; k < p->n_cand && len < n; k++)
        if (plan->in_place[k])
            len += (size_t)snprintf(key + len, n - len, "|%d>%d%s", p->cand[k].in, p->cand[k].out,
                                    plan->shift[k] ? "s" : "");
    cr_assert_lt(len, n, "plan key too long");
}

/*
** Graph k through every strategy on its three problems: each plan checked
** (with simulation) and given to the code generator's kernel choice; each
** distinct placement generated into its own folder and listed in tl.
** Long on purpose (over 100 lines): the strategies' loop reads as one
** table of what each plan must satisfy.
*/
static void plan_graph(int k, const gen *gd, tally *tl)
{
    char name[32], err[RIP_ERR_LEN];
    snprintf(name, sizeof name, "g%03d.csv", k);
    const char *path = tmp(name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(gd->text, f);
    cr_assert_eq(fclose(f), 0);

    rip_graph g;
    cr_assert_eq(rip_graph_load(path, &g, err), RIP_OK, "graph %d: %s\n%s", k, err, gd->text);
    cr_assert_eq(rip_cg_check_graph(&g, path, err), RIP_OK, "graph %d: %s", k, err);
    rip_cg_model *m = NULL;
    cr_assert_eq(rip_cg_model_build(&g, RIP_CG_SEED_DEFAULT, &m, err), RIP_OK, "graph %d: %s", k, err);
    static int8_t y[1 << 14];
    int64_t n_ref = 0, n_ref2 = reference_logits(m, y, sizeof y);
    const int8_t *lib = rip_cg_model_logits(m, &n_ref);
    cr_assert(n_ref == n_ref2 && memcmp(lib, y, (size_t)n_ref) == 0,
              "graph %d: the library's dual-buffer run differs from ref_conv.h's\n%s", k, gd->text);
    const uint32_t crc = rk_crc32(y, (size_t)n_ref);
    cr_assert_eq(rip_cg_model_checksum(m), crc);
    for (size_t i = 0; i < g.n_ops; i++)
        tl->outgrowing_dw += g.ops[i].kind == RIP_OP_DEPTHWISE &&
                             g.ops[i].h_out * g.ops[i].w_out > g.ops[i].h_in * g.ops[i].w_in;

    /* every strategy on base and rip; the dual problem (no candidates) is
    ** there for exact, which places raw buffers only */
    static const struct {
        const char *name;
        bool rip, dw;
        rip_cg_plan_kind kind;
    } problems[] = {{"base", false, true, RIP_CG_BASE}, {"rip", true, true, RIP_CG_RIP}, {"dual", false, false, RIP_CG_BASE}};
    size_t n_strategies = 0;
    const rip_strategy *strategies = rip_strategies(&n_strategies);
    char keys[24][512];
    int n_keys = 0;
    int64_t bound[3], optimum[3] = {-1, -1, -1}; /* a proven optimum of each problem, or -1 */
    rip_cg_step steps[MAX_OPS];
    for (int v = 0; v < 3; v++) {
        rip_graph_opts go = {.rip = problems[v].rip, .inplace_depthwise = problems[v].dw, .align = 4};
        rip_problem p;
        cr_assert_eq(rip_problem_from_graph(&g, &go, &p, err), RIP_OK, "graph %d: %s", k, err);
        tl->candidates += (int64_t)p.n_cand;
        bound[v] = rip_problem_lower_bound(&p);
        int64_t peak[16], best_proven = -1, milp = -1;
        for (size_t s = 0; s < n_strategies; s++) {
            const rip_strategy *st = &strategies[s];
            peak[s] = -1;
            if (v == 2 && strcmp(st->name, "exact") != 0)
                continue;
            rip_plan *plan = rip_plan_new(&p, st->name);
            cr_assert_not_null(plan);
            rip_plan_opts po = {.seed = 1, .time_limit = strcmp(st->name, "milp") == 0 ? MILP_SECONDS : 0};
            rip_status rs = rip_strategy_run(st, &p, &po, plan, err);
            if (strcmp(st->name, "exact") == 0 && p.n_cand > 0) {
                /* exact places raw buffers only, and says so */
                EXPECT(tl, rs != RIP_OK, "graph %d %s: exact accepted in-place candidates", k, problems[v].name);
                tl->refusals++;
                rip_plan_free(plan);
                continue;
            }
            cr_assert_eq(rs, RIP_OK, "graph %d %s %s: %s\n%s", k, problems[v].name, st->name, err, gd->text);
            if (plan->bound_only) {
                EXPECT(tl, plan->peak == bound[v], "graph %d %s %s: reports %lld, the lower bound is %lld", k,
                       problems[v].name, st->name, (long long)plan->peak, (long long)bound[v]);
                rip_plan_free(plan);
                continue;
            }
            cr_assert_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "graph %d %s %s: %s\n%s", k, problems[v].name,
                         st->name, err, gd->text);
            EXPECT(tl, plan->peak >= bound[v], "graph %d %s %s: peak %lld below the lower bound %lld", k,
                   problems[v].name, st->name, (long long)plan->peak, (long long)bound[v]);
            peak[s] = plan->peak;
            if (plan->optimal && (best_proven < 0 || plan->peak < best_proven))
                best_proven = plan->peak;
            if (strcmp(st->name, "milp") == 0)
                milp = plan->peak;
            tl->plans++;
            for (size_t c = 0; c < p.n_cand; c++) {
                tl->in_place += plan->in_place[c];
                tl->shifts += plan->shift[c];
            }
            /* the kernel choice of every plan (what once refused a checked plan: exit 70) */
            cr_assert_eq(rip_cg_steps(m, &p, plan, plan->peak, steps, err), RIP_OK, "graph %d %s %s: %s\n%s", k,
                         problems[v].name, st->name, err, gd->text);
            char key[512];
            plan_key(&p, plan, key, sizeof key);
            bool seen = false;
            for (int q = 0; q < n_keys && !seen; q++)
                seen = strcmp(keys[q], key) == 0;
            if (!seen) {
                cr_assert_lt(n_keys, 24);
                cr_assert_lt(tl->n_models, MAX_MODELS);
                snprintf(keys[n_keys++], sizeof keys[0], "%s", key);
                model *md = &tl->models[tl->n_models++];
                char dir[48];
                snprintf(dir, sizeof dir, "m%04d", tl->n_models - 1);
                snprintf(md->dir, sizeof md->dir, "%s", tmp(dir));
                md->graph = k;
                md->n_ops = (int)g.n_ops;
                md->crc = crc;
                cr_assert_eq(mkdir(md->dir, 0777), 0);
                rip_cg_summary sum;
                cr_assert_eq(rip_cg_write(&g, &p, plan, problems[v].kind, 0, RIP_CG_SEED_DEFAULT, md->dir, &sum, err),
                             RIP_OK, "graph %d %s %s: %s", k, problems[v].name, st->name, err);
                EXPECT(tl, sum.checksum == crc, "graph %d %s %s: codegen's checksum %08x, the reference's %08x", k,
                       problems[v].name, st->name, (unsigned)sum.checksum, (unsigned)crc);
                char src[400];
                snprintf(src, sizeof src, "%s/model.c", md->dir);
                FILE *mc = fopen(src, "r");
                cr_assert_not_null(mc);
                bool scratch = false;
                char line[512];
                while (fgets(line, sizeof line, mc))
                    scratch |= strncmp(line, "static int8_t rk_scratch[", 25) == 0;
                fclose(mc);
                tl->no_scratch += !scratch;
            }
            rip_plan_free(plan);
        }
        /* milp starts from tinyengine, greedy-size and naive (deterministic) and keeps the best */
        for (size_t s = 0; s < n_strategies; s++) {
            const char *nm = strategies[s].name;
            if (peak[s] < 0)
                continue;
            if (strcmp(nm, "tinyengine") == 0 || strcmp(nm, "greedy-size") == 0 || strcmp(nm, "naive") == 0)
                EXPECT(tl, milp <= peak[s], "graph %d %s: milp %lld above %s %lld", k, problems[v].name,
                       (long long)milp, nm, (long long)peak[s]);
            if (best_proven >= 0)
                EXPECT(tl, best_proven <= peak[s], "graph %d %s: a proven optimum %lld above %s %lld", k,
                       problems[v].name, (long long)best_proven, nm, (long long)peak[s]);
        }
        optimum[v] = best_proven;
        rip_problem_free(&p);
    }
    /* candidates are optional, so every dual plan is a base plan and every base plan a rip plan */
    EXPECT(tl, bound[1] <= bound[0] && bound[0] <= bound[2], "graph %d: bounds rip %lld, base %lld, dual %lld", k,
           (long long)bound[1], (long long)bound[0], (long long)bound[2]);
    static const int chain[][2] = {{1, 0}, {0, 2}}; /* rip <= base, base <= dual */
    for (int c = 0; c < 2; c++) {
        const int lo = chain[c][0], hi = chain[c][1];
        if (optimum[lo] >= 0 && optimum[hi] >= 0)
            EXPECT(tl, optimum[lo] <= optimum[hi], "graph %d: the %s optimum %lld above the %s optimum %lld", k,
                   problems[lo].name, (long long)optimum[lo], problems[hi].name, (long long)optimum[hi]);
    }
    rip_cg_model_free(m);
    rip_graph_free(&g);
}

/* ----------------------------------------------------------- the builds */

/* Is model i built on its own too: sanitized, its model_blob.S assembled,
** and for the Cortex-M0+?  (The models of every twentieth graph.) */
static bool sampled(const tally *tl, int i)
{
    return tl->models[i].graph % 20 == 0;
}

/* The external names of a generated model (firmware/runtime/rk_model.h and
** model.c's blob), each given to model i as rkm<i>_<name>. */
static const char *const model_symbols[] = {"rk_model", "rk_model_run", "rk_model_output", "rk_model_checksum",
                                            "rk_model_blob"};

/* main.c running the models (all, or the sampled ones): one line
** "i status checksum" each. */
static void write_main(const char *path, const tally *tl, bool only_sampled)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "#include <stdint.h>\n#include <stdio.h>\n\n");
    for (int i = 0; i < tl->n_models; i++)
        if (!only_sampled || sampled(tl, i))
            fprintf(f, "int rkm%d_rk_model_run(void);\nuint32_t rkm%d_rk_model_checksum(void);\n", i, i);
    fprintf(f, "\nint main(void)\n{\n");
    for (int i = 0; i < tl->n_models; i++)
        if (!only_sampled || sampled(tl, i))
            fprintf(f, "    printf(\"%d %%d \", rkm%d_rk_model_run());\n"
                       "    printf(\"%%08x\\n\", (unsigned)rkm%d_rk_model_checksum());\n",
                    i, i, i);
    fprintf(f, "    return 0;\n}\n");
    cr_assert_eq(fclose(f), 0);
}

/*
** Models [i0, i1) in one translation unit (the compiler's start-up, not the
** models, is most of a small model's build): the headers their model.c
** include first, then each model.c included with every name it defines at
** file scope renamed to rkm<i>_<name> (the model symbols, its arena,
** scratch and logits buffers, the per-op parameter structs) and its macros
** undefined after it, and its model.bin as the blob (.incbin, as its
** model_blob.S does).  A name the generator adds without this list being
** told makes the unit fail to compile: loudly, never silently.
*/
static void write_unit(const char *path, const tally *tl, int i0, int i1)
{
    static const char *const statics[] = {"rk_arena", "rk_scratch", "rk_logits"};
    static const char *const per_op[] = {"in", "out", "conv", "q", "ip", "pool", "add", "up", "fc"};
    static const char *const macros[] = {"RK_ARENA_BYTES", "RK_PLAN_PEAK", "RK_SCRATCH_BYTES", "RK_N_LOGITS",
                                         "RK_I8", "RK_I32", "A"};
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    /* the first model's #include lines: every model.c has the same */
    char line[512], src[400];
    snprintf(src, sizeof src, "%s/model.c", tl->models[i0].dir);
    FILE *m = fopen(src, "r");
    cr_assert_not_null(m, "%s", src);
    while (fgets(line, sizeof line, m))
        if (strncmp(line, "#include", 8) == 0)
            fputs(line, f);
    fclose(m);
    fprintf(f, "\n/* models %d to %d of test_codegen_random.c, each with its names renamed */\n", i0, i1 - 1);
    for (int i = i0; i < i1; i++) {
        const model *md = &tl->models[i];
        fprintf(f, "\n");
        for (size_t k = 0; k < sizeof model_symbols / sizeof model_symbols[0]; k++)
            fprintf(f, "#define %s rkm%d_%s\n", model_symbols[k], i, model_symbols[k]);
        for (size_t k = 0; k < sizeof statics / sizeof statics[0]; k++)
            fprintf(f, "#define %s rkm%d_%s\n", statics[k], i, statics[k]);
        for (size_t k = 0; k < sizeof per_op / sizeof per_op[0]; k++)
            for (int j = 0; j < md->n_ops; j++)
                fprintf(f, "#define %s%d rkm%d_%s%d\n", per_op[k], j, i, per_op[k], j);
        fprintf(f, "#include \"%s/model.c\"\n", md->dir);
        fprintf(f,
                "__asm__(\".section .rodata.rkm%d_blob,\\\"a\\\"\\n.balign 16\\n.global rkm%d_rk_model_blob\\n"
                "rkm%d_rk_model_blob:\\n.incbin \\\"%s/model.bin\\\"\\n.previous\\n\");\n",
                i, i, i, md->dir);
        for (size_t k = 0; k < sizeof model_symbols / sizeof model_symbols[0]; k++)
            fprintf(f, "#undef %s\n", model_symbols[k]);
        for (size_t k = 0; k < sizeof statics / sizeof statics[0]; k++)
            fprintf(f, "#undef %s\n", statics[k]);
        for (size_t k = 0; k < sizeof per_op / sizeof per_op[0]; k++)
            for (int j = 0; j < md->n_ops; j++)
                fprintf(f, "#undef %s%d\n", per_op[k], j);
        for (size_t k = 0; k < sizeof macros / sizeof macros[0]; k++)
            fprintf(f, "#undef %s\n", macros[k]);
    }
    cr_assert_eq(fclose(f), 0);
}

/* The -D flags that rename model i's external symbols, for building it on its own. */
static void renames(int i, char *buf, size_t n)
{
    size_t len = 0;
    for (size_t k = 0; k < sizeof model_symbols / sizeof model_symbols[0]; k++)
        len += (size_t)snprintf(buf + len, n - len, " -D%s=rkm%d_%s", model_symbols[k], i, model_symbols[k]);
    cr_assert_lt(len, n);
}

/*
** build.ninja in the suite's folder: the kernels and runtime compiled once
** per flavour (host, sanitized); every model in the units of write_unit
** (firmware flags, -Werror) linked into the host program `run`; the sampled
** models built on their own, each model.c and model_blob.S as generated,
** sanitized into `run-san`, and for the Cortex-M0+ when cross is true.
*/
static void write_ninja(const tally *tl, bool cross)
{
    enum { PER_UNIT = 40 };
    const char *r = root();
    FILE *f = fopen(tmp("build.ninja"), "w");
    cr_assert_not_null(f);
    fprintf(f,
            "inc = -I %s/firmware/kernels -I %s/firmware/runtime\n"
            "rule cc\n  command = cc " CFLAGS " $flags $inc -c $in -o $out\n"
            "rule as\n  command = cc $flags -Wa,-I,$dir -c $in -o $out\n"
            "rule xcc\n  command = arm-none-eabi-gcc " CROSS_CFLAGS " $flags $inc -Wa,-I,$dir -c $in -o $out\n"
            "rule link\n  command = cc $flags $in -o $out\n",
            r, r);
    /* the kernels and the runtime: every .c file of both folders */
    static char objs[2][1 << 14];
    objs[0][0] = objs[1][0] = '\0';
    static const char *const folders[] = {"firmware/kernels", "firmware/runtime"};
    for (int d = 0; d < 2; d++) {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/%s", r, folders[d]);
        DIR *dp = opendir(dir);
        cr_assert_not_null(dp, "%s", dir);
        struct dirent *e;
        while ((e = readdir(dp))) {
            int len = (int)strlen(e->d_name);
            if (len < 3 || strcmp(e->d_name + len - 2, ".c") != 0)
                continue;
            for (int san = 0; san < 2; san++) {
                fprintf(f, "build k%s-%.*s.o: cc %s/%s\n", san ? "san" : "", len - 2, e->d_name, dir, e->d_name);
                if (san)
                    fprintf(f, "  flags = " SANITIZE "\n");
                size_t at = strlen(objs[san]);
                snprintf(objs[san] + at, sizeof objs[san] - at, " k%s-%.*s.o", san ? "san" : "", len - 2, e->d_name);
            }
        }
        closedir(dp);
    }
    write_main(tmp("main.c"), tl, false);
    write_main(tmp("main-san.c"), tl, true);
    fprintf(f, "build main.o: cc main.c\nbuild main-san.o: cc main-san.c\n  flags = " SANITIZE "\n");
    int n_units = 0;
    for (int i0 = 0; i0 < tl->n_models; i0 += PER_UNIT, n_units++) {
        char name[32];
        snprintf(name, sizeof name, "u%d.c", n_units);
        write_unit(tmp(name), tl, i0, i0 + PER_UNIT < tl->n_models ? i0 + PER_UNIT : tl->n_models);
        fprintf(f, "build u%d.o: cc u%d.c\n", n_units, n_units);
    }
    fprintf(f, "build run: link main.o");
    for (int u = 0; u < n_units; u++)
        fprintf(f, " u%d.o", u);
    fprintf(f, "%s\nbuild run-san: link main-san.o", objs[0]);
    for (int i = 0; i < tl->n_models; i++)
        if (sampled(tl, i))
            fprintf(f, " m%d-san.o m%d-blob.o", i, i);
    fprintf(f, "%s\n  flags = " SANITIZE "\n", objs[1]);
    for (int i = 0; i < tl->n_models; i++) {
        if (!sampled(tl, i))
            continue;
        char def[400];
        renames(i, def, sizeof def);
        const char *d = tl->models[i].dir;
        fprintf(f, "build m%d-san.o: cc %s/model.c\n  flags = %s " SANITIZE "\n", i, d, def);
        fprintf(f, "build m%d-blob.o: as %s/model_blob.S\n  flags = %s\n  dir = %s\n", i, d, def, d);
        if (cross) {
            fprintf(f, "build x%d.o: xcc %s/model.c\n  flags = %s\n  dir = %s\n", i, d, def, d);
            fprintf(f, "build x%d-blob.o: xcc %s/model_blob.S\n  flags = %s\n  dir = %s\n", i, d, def, d);
        }
    }
    fprintf(f, "default run run-san");
    for (int i = 0; i < tl->n_models; i++)
        if (cross && sampled(tl, i))
            fprintf(f, " x%d.o x%d-blob.o", i, i);
    fprintf(f, "\n");
    cr_assert_eq(fclose(f), 0);
}

/* Run tmp(prog) and check each model's line: status 0, the reference's
** checksum.  Returns how many models ran. */
static int run_and_compare(tally *tl, const char *prog)
{
    char cmd[400], line[128];
    snprintf(cmd, sizeof cmd, "'%s'", tmp(prog));
    fflush(NULL);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    int ran = 0;
    while (fgets(line, sizeof line, p)) {
        int i, status;
        unsigned crc;
        cr_assert_eq(sscanf(line, "%d %d %x", &i, &status, &crc), 3, "%s: %s", prog, line);
        cr_assert(i >= 0 && i < tl->n_models);
        const model *md = &tl->models[i];
        EXPECT(tl, status == 0, "%s: graph %d, %s: rk_model_run returned %d", prog, md->graph, md->dir, status);
        EXPECT(tl, crc == md->crc, "%s: graph %d, %s: checksum %08x, reference %08x", prog, md->graph, md->dir, crc,
               md->crc);
        ran++;
    }
    cr_assert_eq(pclose(p), 0, "%s exited with an error", prog);
    return ran;
}

Test(codegen_random, two_hundred_random_graphs_plan_check_generate_build_and_run)
{
    static tally tl;
    memset(&tl, 0, sizeof tl);
    static gen gd;
    for (int k = 0; k < N_GRAPHS; k++) {
        draw_graph(k, &gd);
        plan_graph(k, &gd, &tl);
    }
    const bool cross = have_cross();
    write_ninja(&tl, cross);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ninja -C '%s' -j 2 >'%s' 2>&1", tmpdir, tmp("ninja.log"));
    if (sh(cmd) != 0) {
        char log[2048] = "";
        FILE *lf = fopen(tmp("ninja.log"), "r");
        if (lf) {
            fseek(lf, 0, SEEK_END);
            long end = ftell(lf);
            fseek(lf, end > (long)sizeof log - 1 ? end - (long)sizeof log + 1 : 0, SEEK_SET);
            log[fread(log, 1, sizeof log - 1, lf)] = '\0';
            fclose(lf);
        }
        cr_assert_fail("the build failed; the end of its log:\n%s", log);
    }
    int sampled_n = 0;
    for (int i = 0; i < tl.n_models; i++)
        sampled_n += sampled(&tl, i);
    const int ran = run_and_compare(&tl, "run"), ran_san = run_and_compare(&tl, "run-san");
    EXPECT(&tl, ran == tl.n_models, "run: %d of %d models ran", ran, tl.n_models);
    EXPECT(&tl, ran_san == sampled_n, "run-san: %d of %d models ran", ran_san, sampled_n);
    /* the draw reaches what it is for */
    EXPECT(&tl, tl.outgrowing_dw > 10, "%lld depthwise outgrowing their input", (long long)tl.outgrowing_dw);
    EXPECT(&tl, tl.no_scratch > 10, "%lld models with no operator taking scratch", (long long)tl.no_scratch);
    EXPECT(&tl, tl.in_place > 2 * N_GRAPHS, "%lld candidates used in place", (long long)tl.in_place);
    EXPECT(&tl, tl.n_models > 2 * N_GRAPHS, "%d distinct placements", tl.n_models);
    /* on stderr, as the crash suite's figures: meson's test log keeps it */
    fprintf(stderr,
            "codegen_random: %d graphs, %lld failures: %lld plans checked, %d distinct placements generated, built "
            "and run (%d also built on their own, sanitized%s; %lld with no operator taking scratch), %lld "
            "candidates, %lld used in place, %lld shifts, %lld depthwise outgrowing their input, %lld refusals by "
            "exact\n",
            N_GRAPHS, (long long)tl.failures, (long long)tl.plans, tl.n_models, sampled_n,
            cross ? " and cross compiled" : "", (long long)tl.no_scratch, (long long)tl.candidates,
            (long long)tl.in_place, (long long)tl.shifts, (long long)tl.outgrowing_dw, (long long)tl.refusals);
}
