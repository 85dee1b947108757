/*
** cmd_tflm.c — plans for an unchanged TensorFlow Lite Micro (src/tflm/):
**
**   ripsim plan MODEL.tflite --for tflm-reference|tflm-cmsis-nn [--no-overlap]
**       [--dsp] [--limits] [--tflm-arena BYTES] [--write OUT.tflite]
**       (rip_cmd_plan_tflm, reached from cmd_plan.c): an exact plan of the
**       buffers TFLM places, with TFLM's lifetimes and 16-byte sizes, and the
**       overlaps the library's gap oracle allows (none with --no-overlap:
**       only RESHAPE outputs at their inputs); printed beside TFLM's own
**       greedy plan of the same buffers, with its peak, the kernels' scratch
**       requests and TFLM's arena head on both plans (tflm_scratch.h; with
**       --tflm-arena the arena this plan needs), and with --limits what
**       limits it (the operators where the other library's kernel allows
**       more, and the plans with the smaller of the two gaps: tflm_limits.h);
**       with --write, OUT.tflite is MODEL.tflite carrying it as its
**       OfflineMemoryAllocation metadata.
**   ripsim check MODEL.tflite --for LIB (rip_cmd_check): verify the offline
**       plan the model carries for LIB's kernels.
**
** Each library's gap oracle is rip_tflm_gap_lib: the trace engine on the
** kernel's modelled read/write order (src/tflm/tflm_orders.h); an operator
** whose order is not modelled is never overlapped.  A RESHAPE's output may
** also sit at its input's own offset (TFLM's RESHAPE then copies nothing).  Nothing is written on any error: OUT is written once, after
** the plan passed its checks.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "out.h"
#include "tflm/tflm_limits.h"
#include "tflm/tflm_offline.h"
#include "tflm/tflm_orders.h"
#include "tflm/tflm_plan.h"
#include "tflm/tflm_scratch.h"

const char *const rip_tflm_lib_names[] = {"tflm-reference", "tflm-cmsis-nn", NULL};

/* The gap oracle of library lib (an index of rip_tflm_lib_names, in the
** order of rip_tflm_lib). */
static rip_tflm_oracle lib_oracle(int lib)
{
    static rip_tflm_lib libs[] = {RIP_TFLM_REFERENCE, RIP_TFLM_CMSIS_NN};
    return (rip_tflm_oracle){.gap = rip_tflm_gap_lib, .ctx = &libs[lib]};
}

/* "1,234,567" */
static const char *grouped(char *buf, size_t n, int64_t v)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%lld", (long long)v), o = 0;
    for (int i = 0; i < len && (size_t)o + 2 < n; i++) {
        buf[o++] = tmp[i];
        if ((len - i - 1) % 3 == 0 && i + 1 < len && tmp[i] != '-')
            buf[o++] = ',';
    }
    buf[o] = '\0';
    return buf;
}

/* Load the model and TFLM's buffers of it.  0, or an exit status after one line on stderr. */
static int load(const char *cmd, const char *path, rip_tfl_model *m, rip_tflm_alloc *a)
{
    char err[RIP_ERR_LEN];
    rip_status st = rip_tfl_model_load(path, m, err);
    if (st == RIP_OK && (st = rip_tflm_alloc_build(m, a, err)) != RIP_OK)
        rip_tfl_model_free(m);
    if (st != RIP_OK) {
        fprintf(stderr, "ripsim %s: %s\n", cmd, err);
        return rip_exit_status(st);
    }
    return 0;
}

/* "+1,234" / "-1,234" / "0" */
static const char *signed_grouped(char *buf, size_t n, int64_t v)
{
    if (n < 2)
        return "";
    buf[0] = v < 0 ? '-' : '+';
    grouped(buf + (v != 0), n - 1, v < 0 ? -v : v);
    return buf;
}

static void print_area(const char *what, int64_t v, int64_t ref)
{
    char b[32];
    printf("%-13s%s B", what, grouped(b, sizeof b, v));
    if (ref > 0 && v != ref)
        printf(" (%+.1f%% vs TFLM's greedy)", 100.0 * (double)(v - ref) / (double)ref);
    printf("\n");
}

static const char *op_name(const rip_tfl_model *m, size_t o)
{
    const rip_tfl_opcode *c = rip_tfl_op_code(m, &m->subgraphs[0].operators[o]);
    const char *n = c ? rip_tfl_op_name(c->builtin) : NULL;
    return c && c->builtin == RIP_TFL_OP_CUSTOM && c->custom_code ? c->custom_code : n ? n : "?";
}

/* The peak line of plan po (tflm_limits.h).  RIP_OK, or RIP_S_NOMEM with err. */
static rip_status print_peak(const rip_tfl_model *m, const rip_tflm_alloc *a, const rip_tflm_plan_out *po,
                             char err[RIP_ERR_LEN])
{
    rip_tflm_peak pk;
    rip_status st = rip_tflm_peak_of(a, po->offset, &pk, err);
    if (st != RIP_OK)
        return st;
    char b[32], c[32];
    if (pk.scope < 1)
        printf("peak         %s", pk.scope == 0 ? "before operator 0" : "none");
    else
        printf("peak         operator %d (%s)", pk.scope - 1, op_name(m, (size_t)pk.scope - 1));
    printf(", end %s B, %zu tensors alive, %s B:", grouped(b, sizeof b, pk.end), pk.n_live,
           grouped(c, sizeof c, pk.live_bytes));
    for (size_t i = 0; i < pk.n_live; i++)
        printf("%s %d (%s B)", i ? "," : "", pk.live[i], grouped(b, sizeof b, pk.live_size[i]));
    printf("\n");
    rip_tflm_peak_free(&pk);
    return RIP_OK;
}

/* The tensor area of the plan with the friendly oracle of f, at most area (lib's own plan is one of them). */
static rip_status friendly_area(const rip_tfl_model *m, const rip_tflm_alloc *a, rip_tflm_friendly *f, int64_t area,
                                int64_t *out, char err[RIP_ERR_LEN])
{
    rip_tflm_oracle o = {rip_tflm_gap_friendly, f};
    rip_tflm_plan_out po;
    rip_status st = rip_tflm_plan(m, a, &o, &po, err);
    if (st == RIP_OK) {
        *out = po.area < area ? po.area : area;
        rip_tflm_plan_out_free(&po);
    }
    return st;
}

/*
** The limited lines: every pair where lib's kernel forbids or limits what
** the other library's allows, with the bytes the smaller gap would save
** at that operator alone, then at every operator (the friendly line).
** RIP_OK, or the planner's / oracle's status with err.
*/
static rip_status print_limits(const rip_tfl_model *m, const rip_tflm_alloc *a, int lib, int64_t area,
                               char err[RIP_ERR_LEN])
{
    rip_tflm_friendly f = {.lib = lib ? RIP_TFLM_CMSIS_NN : RIP_TFLM_REFERENCE,
                           .other = lib ? RIP_TFLM_REFERENCE : RIP_TFLM_CMSIS_NN, .only = -1};
    const char *names[] = {"reference", "cmsis-nn"};
    rip_tflm_limit *l;
    size_t n;
    rip_status st = rip_tflm_limits(m, a, f.lib, f.other, &l, &n, err);
    char b[32], c[32], g[40];   /* g: b's digits and " B" */
    int64_t v;
    for (size_t i = 0; st == RIP_OK && i < n; i++) {
        f.only = (long)l[i].op;
        if ((st = friendly_area(m, a, &f, area, &v, err)) != RIP_OK)
            break;
        if (l[i].gap_lib < 0)
            snprintf(g, sizeof g, "none");
        else
            snprintf(g, sizeof g, "%s B", grouped(b, sizeof b, l[i].gap_lib));
        printf("limited      operator %zu (%s) input %d: %s %s, %s %s B, the smaller alone saves %s B\n", l[i].op,
               op_name(m, l[i].op), l[i].k, names[f.lib], g, names[f.other], grouped(c, sizeof c, l[i].gap_other),
               grouped(b, sizeof b, area - v));
    }
    free(l);
    f.only = -1;
    if (st == RIP_OK && (st = friendly_area(m, a, &f, area, &v, err)) == RIP_OK)
        printf("friendly     %s B, %s B less: every operator at the smaller of the two libraries' gaps\n",
               grouped(b, sizeof b, v), grouped(c, sizeof c, area - v));
    return st;
}

/*
** The scratch and head lines: lib's scratch requests (dsp: CMSIS-NN's DSP
** path), TFLM's head on plan po and on its own plan, and with tflm_arena
** (>= 0: TFLM's arena_used_bytes on the unchanged model) the arena po
** needs.  RIP_OK; RIP_S_DATA (tflm_arena below the own head: not a figure
** of this model) or RIP_S_NOMEM, with err.
*/
static rip_status print_head(const rip_tfl_model *m, const rip_tflm_alloc *a, const rip_tflm_plan_out *po, int lib,
                             bool dsp, int64_t tflm_arena, char err[RIP_ERR_LEN])
{
    rip_tflm_scratch s;
    rip_status st = rip_tflm_scratch_build(m, lib ? RIP_TFLM_CMSIS_NN : RIP_TFLM_REFERENCE, dsp, &s, err);
    if (st != RIP_OK)
        return st;
    int64_t *fixed = malloc((a->n + 1) * sizeof *fixed), head = 0, own = 0;
    if (fixed == NULL) {
        snprintf(err, RIP_ERR_LEN, "arena head: out of memory");
        st = RIP_S_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < a->n; i++)
        fixed[i] = (size_t)a->buf[i].tensor < po->n_offset ? po->offset[a->buf[i].tensor] : -1;
    if ((st = rip_tflm_head(a, fixed, &s, &head, err)) != RIP_OK || (st = rip_tflm_head(a, NULL, &s, &own, err)) != RIP_OK)
        goto done;
    char b[32], c[32], d[32];
    printf("scratch      %zu request%s, %s B (%s kernels, %s)\n", s.n, s.n == 1 ? "" : "s",
           grouped(b, sizeof b, s.total), lib ? "CMSIS-NN" : "reference",
           !lib ? "host and Cortex-M alike" : dsp ? "DSP path: Cortex-M33, M4, M7" : "pure-C path: host, Cortex-M0/M0+");
    for (size_t i = 0; i < s.n; i++)
        printf("  operator %zu (%s): %s B\n", s.op[i], op_name(m, s.op[i]), grouped(b, sizeof b, s.bytes[i]));
    const char *ge = s.unmodelled_op >= 0 ? ">= " : "";
    printf("arena head   %s%s B with this plan, %s%s B with TFLM's own (%s B): tensors and scratch as TFLM places them\n",
           ge, grouped(b, sizeof b, head), ge, grouped(c, sizeof c, own), signed_grouped(d, sizeof d, head - own));
    if (s.unmodelled_op >= 0) {
        printf("not modelled %s: the heads leave its scratch out\n", s.why);
        printf("arena        not known: TFLM's arena is its head plus its persistent tail, and the head is not\n"
               "             known while a kernel's scratch is not modelled\n");
    } else if (tflm_arena < 0)
        printf("arena        TFLM's arena is its head plus its persistent tail, which no plan changes:\n"
               "             this plan needs TFLM's arena_used_bytes on the unchanged model %s B (--tflm-arena)\n",
               signed_grouped(d, sizeof d, head - own));
    else if (tflm_arena < own) {
        snprintf(err, RIP_ERR_LEN, "--tflm-arena %s B is below TFLM's own head of this model (%s B): not the "
                 "arena_used_bytes TFLM reports for it", grouped(b, sizeof b, tflm_arena), grouped(c, sizeof c, own));
        st = RIP_S_DATA;
    } else
        printf("arena        %s B: TFLM's arena_used_bytes %s B - own head %s B + this head\n",
               grouped(b, sizeof b, tflm_arena - own + head), grouped(c, sizeof c, tflm_arena),
               grouped(d, sizeof d, own));
done:
    free(fixed);
    rip_tflm_scratch_free(&s);
    return st;
}

int rip_cmd_plan_tflm(const rip_tflm_plan_args *pa)
{
    const char *model_path = pa->model_path, *write_path = pa->write_path;
    const int lib = pa->lib;
    const bool no_overlap = pa->no_overlap;
    rip_tfl_model m;
    rip_tflm_alloc a;
    int rc = load("plan", model_path, &m, &a);
    if (rc != 0)
        return rc;
    char err[RIP_ERR_LEN];
    rip_tflm_oracle oracle = no_overlap ? (rip_tflm_oracle){rip_tflm_gap_none, NULL} : lib_oracle(lib);
    rip_tflm_plan_out po;
    uint8_t *bytes = NULL;
    size_t len = 0;
    rip_status st = rip_tflm_plan(&m, &a, &oracle, &po, err);
    if (st == RIP_OK && write_path && (st = rip_tflm_offline_write(&m, po.offset, po.n_offset, &bytes, &len, err)) != RIP_OK)
        rip_tflm_plan_out_free(&po);
    if (st != RIP_OK) {
        fprintf(stderr, "ripsim plan: %s\n", err);
        rc = rip_exit_status(st);
        goto done;
    }
    char b[32];
    printf("model        %s (%zu tensors, %zu operators)\n", model_path, a.n_tensors, a.n_ops);
    printf("for          %s (%s)\n", rip_tflm_lib_names[lib],
           no_overlap ? "no overlap: only RESHAPE outputs at their inputs' offsets"
                      : "overlaps where its kernels' modelled orders allow");
    printf("buffers      %zu placed by TFLM", a.n);
    if (a.n_variables)
        printf(" (and %zu variables, %s B, in its persistent tail)", a.n_variables,
               grouped(b, sizeof b, a.variable_bytes));
    printf("\n");
    print_area("tensor area", po.area, po.greedy_area);
    print_area("no overlap", po.no_overlap_area, po.greedy_area);
    print_area("TFLM greedy", po.greedy_area, 0);
    printf("lower bound  %s B (live bytes with the allowed overlaps)\n", grouped(b, sizeof b, po.lower_bound));
    printf("strategy     %s, %s\n", po.strategy, po.optimal ? "optimal" : "not proven optimal");
    printf("overlaps     %zu used of %zu allowed\n", po.n_overlaps, po.n_candidates);
    for (size_t i = 0; i < po.n_overlaps; i++) {
        const rip_tflm_overlap *o = &po.overlap[i];
        if (o->alias)
            printf("  operator %zu (RESHAPE): output tensor %d at its input tensor %d's offset\n", o->op, o->out, o->in);
        else
            printf("  operator %zu: output tensor %d below input %d (tensor %d), at least %lld B\n", o->op, o->out,
                   o->k, o->in, (long long)o->gap);
    }
    if ((st = print_peak(&m, &a, &po, err)) != RIP_OK ||
        (st = print_head(&m, &a, &po, lib, pa->dsp, pa->tflm_arena, err)) != RIP_OK ||
        (pa->limits && (st = print_limits(&m, &a, lib, po.area, err)) != RIP_OK)) {
        fprintf(stderr, "ripsim plan: %s\n", err);
        rc = rip_exit_status(st);
        goto freed;
    }
    if (write_path) {
        rip_out out;
        if ((rc = rip_out_open(&out, "plan", write_path)) != 0)
            goto freed;
        if (fwrite(bytes, 1, len, out.f) != len) {
            rip_out_abort(&out);
            fprintf(stderr, "ripsim plan: cannot write %s\n", write_path);
            rc = RIP_EX_IOERR;
            goto freed;
        }
        if ((rc = rip_out_commit(&out)) != 0)
            goto freed;
        printf("wrote        %s (%s bytes, OfflineMemoryAllocation of %zu offsets)\n", write_path,
               grouped(b, sizeof b, (int64_t)len), po.n_offset);
    }
    rc = rip_out_check_stdout("plan");
freed:
    rip_tflm_plan_out_free(&po);
done:
    free(bytes);
    rip_tflm_alloc_free(&a);
    rip_tfl_model_free(&m);
    return rc;
}

static const rip_exit_doc check_exits[] = {
    {0, "the model's offline plan is safe for LIB"},
    {64, "bad command line"},
    {65, "unsafe (the first operator whose overlap is unsafe is named), malformed, or no offline plan"},
    {66, "MODEL.tflite missing or unreadable"},
    {71, "out of memory"},
    {74, "standard output cannot be written"},
};

int rip_cmd_check(int argc, char **argv)
{
    const char *path = NULL;
    int lib = -1;
    const rip_opt opts[] = {
        {.name = "--for", .kind = RIP_OPT_ENUM, .dest = &lib, .metavar = "LIB", .choices = rip_tflm_lib_names,
         .help = "the kernel library that will run the model: tflm-reference\n"
                 "or tflm-cmsis-nn (required): each overlap must be one its\n"
                 "kernel's modelled read/write order allows"},
    };
    const rip_cmd cmd = {
        .name = "check", .synopsis = "MODEL.tflite --for LIB",
        .about = "Verify the offline memory plan a TFLite model carries (its OfflineMemoryAllocation\n"
                 "metadata) for TensorFlow Lite Micro with kernel library LIB: TFLM's own buffers,\n"
                 "16-byte sizes and lifetimes, the online ones placed as TFLM's greedy planner\n"
                 "would; every two buffers alive together must be disjoint, or an operator's\n"
                 "output over one of its inputs at a gap LIB's kernel allows, or a RESHAPE's\n"
                 "output at its input's offset.  The first operator whose overlap is unsafe is named.\n",
        .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = &path, .min_pos = 1, .max_pos = 1,
        .missing = "missing MODEL.tflite", .exits = check_exits, .n_exits = sizeof check_exits / sizeof check_exits[0],
        .example = "ripsim check person_detect_vela.tflite --for tflm-reference",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if (lib < 0)
        return rip_args_usage(&cmd, "missing --for LIB");
    rip_tfl_model m;
    rip_tflm_alloc a;
    if ((rc = load("check", path, &m, &a)) != 0)
        return rc;
    char err[RIP_ERR_LEN], b[32];
    bool present;
    rip_tflm_offline off;
    rip_tflm_verdict v;
    rip_tflm_oracle oracle = lib_oracle(lib);
    rip_status st = rip_tflm_offline_read(&m, &present, &off, err);
    if (st == RIP_OK && !present) {
        snprintf(err, sizeof err, "%s: carries no %s metadata: nothing to check", path, RIP_TFLM_OFFLINE_NAME);
        st = RIP_S_DATA;
    }
    if (st == RIP_OK)
        st = rip_tflm_check(&m, &a, off.offset, &oracle, &v, err);
    if (st != RIP_OK) {
        fprintf(stderr, "ripsim check: %s\n", err);
        rc = rip_exit_status(st);
        goto done;
    }
    printf("model        %s\n", path);
    printf("for          %s (overlaps where its kernels' modelled orders allow)\n", rip_tflm_lib_names[lib]);
    printf("offline plan version %d, %zu offsets: %zu buffers offline, %zu online\n", (int)off.version, off.n,
           v.n_offline, v.n_online);
    printf("tensor area  %s B (online buffers placed as TFLM's greedy planner does)\n",
           grouped(b, sizeof b, v.area));
    printf("overlaps     %zu allowed\n", v.n_overlaps);
    printf("verdict      %s%s\n", v.safe ? "safe" : "unsafe: ", v.safe ? "" : v.why);
    rc = rip_out_check_stdout("check");
    if (rc == 0 && !v.safe) {
        fprintf(stderr, "ripsim check: %s: unsafe for %s: %s\n", path, rip_tflm_lib_names[lib], v.why);
        rc = RIP_EX_DATAERR;
    }
done:
    rip_tflm_offline_free(&off);
    rip_tflm_alloc_free(&a);
    rip_tfl_model_free(&m);
    return rc;
}
