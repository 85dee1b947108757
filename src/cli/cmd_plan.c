/*
** cmd_plan.c — `ripsim plan`: place a model graph's tensors (or a raw
** buffer list) in one arena with a chosen strategy and show the plan.
**
**   ripsim plan GRAPH.csv|MODEL.tflite [options]
**   ripsim plan --intervals FILE.csv [--inclusive] [options]
**
** A graph (firmware/models/README.md schema), or a TFLite model (a file
** whose identifier is "TFL3", whatever its name; planned as its net,
** src/net/net.h: one tensor per int8 arena buffer, RESHAPE an alias, PAD
** folded into convolutions, float edges outside the arena), becomes a
** planning problem
** with the in-place candidates of the RiP paper (graph.h: RiP conv GAPs,
** elementwise/pool/upsample in place, TinyEngine's in-place depthwise);
** --no-rip keeps only the depthwise candidates (the Tab. 3 baseline),
** --dual none at all (Tab. 7's dual buffer).  An interval list has no
** candidates.  Every plan except the lower bound comes from the one
** checked entry, rip_plan_solve_checked(), so it is verified before
** anything is printed (for graphs, unless --no-check, with every used conv
** gap re-derived by the simulator, every pool gap by simulating the pool
** and every ALIAS operator replayed; the "check" line says what was
** verified); a plan that fails is an internal error (exit 70) naming the
** violation, never output.
**
** Output: a readable summary and one row per tensor (default), one JSON
** object (--json), an ASCII picture of memory over time (--draw ascii,
** after the table), or an SVG picture written to --out (--draw svg); the
** renderers are src/plan/plan_render.c, this file chooses and calls them.
**
** The exit statuses are the table `exits` below (also printed by --help).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "out.h"
#include "progress_line.h"
#include "net/net.h"
#include "plan/graph.h"
#include "plan/plan.h"
#include "plan/plan_render.h"
#include "tflite/tfl_model.h"

static const char about[] =
    "Place every tensor of a model graph (schema: firmware/models/README.md), of a\n"
    "TFLite model (.tflite, recognised by its identifier \"TFL3\": its int8\n"
    "activation buffers as `ripsim run` lays them out) or of a raw buffer list\n"
    "(columns id,start,end,size) at a byte offset in one arena, with\n"
    "the in-place execution of the RiP paper (Sec. 4.3, App. I), and show the plan:\n"
    "peak bytes against the live-bytes lower bound, in-place pairs, runtime shifts.\n"
    "Every plan is verified independently (rip_plan_check) before it is shown.\n";

static const char notes[] =
    "The lower-bound strategy reports a bound, not a placement: its peak is the\n"
    "live-bytes bound and it has no offsets.  Errors are one line; data errors name\n"
    "FILE:ROW: FIELD.  --out may not name the input.  When stderr is a terminal,\n"
    "the strategy and the elapsed time are shown there while it runs.\n"
    "\n"
    "exact minimizes (or, with --capacity, stops at the first plan that fits) and\n"
    "says how optimality was proven: \"optimal_by\" in --json is lower-bound (the\n"
    "peak meets the live-bytes bound), search-exhausted (no plan below the peak\n"
    "exists) or null (not proven, e.g. --time-limit reached).  milp on a buffer\n"
    "list starts from exact's plan (found in a quarter of --time-limit); on\n"
    "MiniMalloc's sets it ends no better than exact alone: use exact there.\n"
    "\n"
    "--for LIB plans a TFLite model for an unchanged TensorFlow Lite Micro instead\n"
    "(its own buffers and lifetimes, no runtime shift; README, \"Plans for an\n"
    "unchanged TensorFlow Lite Micro\"); its errors: 65 bad model or metadata, 69\n"
    "milp's CBC module missing, 70 a plan that fails its check, 73/74 OUT.tflite.\n";

static const rip_exit_doc exits[] = {
    {0, "planned (and checked)"},
    {1, "exact: no plan within --capacity bytes exists"},
    {64, "bad command line (also: --out is the input)"},
    {65, "bad data (the message names FILE:ROW: FIELD)"},
    {66, "input file missing or unreadable"},
    {69, "strategy milp: its CBC module is missing"},
    {70, "internal error: a strategy failed or made an invalid plan"},
    {71, "out of memory, or milp's CBC solver process failed (killed, crashed, not started)"},
    {73, "--out cannot be created"},
    {74, "output cannot be written"},
};

/* "                      NAME   summary\n" for each strategy, for --help. */
static void strategy_help(char *buf, size_t len, const char **names, size_t max_names)
{
    size_t n, used = 0;
    const rip_strategy *s = rip_strategies(&n);
    int k = snprintf(buf, len, "planning strategy (default: tinyengine for graphs,\ngreedy-size for intervals):");
    used = k > 0 ? (size_t)k : 0;
    for (size_t i = 0; i < n && i + 1 < max_names; i++) {
        names[i] = s[i].name;
        names[i + 1] = NULL;
        k = snprintf(buf + used, len - used, "\n  %-12s %s", s[i].name, s[i].summary);
        if (k > 0 && used + (size_t)k < len)
            used += (size_t)k;
    }
}

/* ---- the command ---- */

/* The command line of `ripsim plan`, parsed and validated. */
typedef struct plan_args {
    const char *graph_path, *intervals_path;   /* exactly one is set */
    const char *strategy;                       /* a registered name */
    const char *out_path, *draw;                /* draw: NULL, "ascii" or "svg" */
    int tflm_lib;                               /* --for: an index of rip_tflm_lib_names, -1 none */
    const char *write_path;                     /* --write (with --for) */
    bool no_overlap;                            /* --no-overlap (with --for) */
    bool dsp, limits;                           /* --dsp, --limits (with --for) */
    int64_t tflm_arena;                         /* --tflm-arena (with --for), -1 none */
    bool strategy_given, other_given;           /* options --for does not take */
    bool json, inclusive, no_rip, dual, taps, sigma_given, check, is_graph;
    int64_t align, seed, capacity;
    double time_limit;
} plan_args;

/*
** The combinations the option table cannot refuse by itself, and the
** defaults that depend on the input kind (align, strategy); sets is_graph.
** Returns RIP_ARGS_CONTINUE, or 64 after one line on stderr (cmd's usage
** line, or --out naming the input).
*/
static int check_args(const rip_cmd *cmd, plan_args *a)
{
#define usage_error(msg) rip_args_usage(cmd, "%s", msg)
    if (a->graph_path && a->intervals_path)
        return usage_error("give GRAPH.csv (or MODEL.tflite) or --intervals FILE.csv, not both");
    if (!a->graph_path && !a->intervals_path)
        return usage_error("missing GRAPH.csv or MODEL.tflite (or --intervals FILE.csv)");
    a->is_graph = a->graph_path != NULL;
    if (a->write_path && a->tflm_lib < 0)
        return usage_error("--write needs --for LIB");
    if (a->no_overlap && a->tflm_lib < 0)
        return usage_error("--no-overlap needs --for LIB");
    if ((a->dsp || a->limits || a->tflm_arena >= 0) && a->tflm_lib < 0)
        return usage_error("--dsp, --limits and --tflm-arena need --for LIB");
    if (a->dsp && a->tflm_lib >= 0 && strcmp(rip_tflm_lib_names[a->tflm_lib], "tflm-cmsis-nn") != 0)
        return usage_error("--dsp chooses CMSIS-NN's DSP path; it needs --for tflm-cmsis-nn");
    if (a->limits && a->no_overlap)
        return usage_error("--limits compares the libraries' overlaps; --no-overlap has none");
    if (a->tflm_lib >= 0) {
        if (!a->is_graph || !rip_tfl_file_is_model(a->graph_path))
            return usage_error("--for plans a TFLite model (MODEL.tflite)");
        if (a->strategy_given || a->json || a->draw || a->out_path || a->no_rip || a->dual || a->sigma_given ||
            a->other_given)
            return usage_error("--for takes only --write, --no-overlap, --dsp, --limits and --tflm-arena (its plan is exact, with TFLite Micro's own lifetimes)");
        if (a->write_path && rip_same_file(a->write_path, a->graph_path))
            return usage_error("--write names the input MODEL.tflite; choose another file");
        return RIP_ARGS_CONTINUE;
    }
    if (a->is_graph && a->inclusive)
        return usage_error("--inclusive applies to --intervals only");
    if (!a->is_graph && (a->no_rip || a->dual || a->sigma_given))
        return usage_error("--no-rip, --dual and --sigma apply to graphs only");
    if (a->draw && strcmp(a->draw, "svg") == 0 && a->out_path == NULL)
        return usage_error("--draw svg needs --out FILE");
    if (a->out_path && !(a->draw && strcmp(a->draw, "svg") == 0))
        return usage_error("--out is where --draw svg writes; it needs --draw svg");
    if (a->json && a->draw && strcmp(a->draw, "ascii") == 0)
        return usage_error("--json and --draw ascii both write to standard output; choose one");
    if (a->align < 0)
        a->align = a->is_graph ? 4 : 1;
    if (a->strategy == NULL)
        a->strategy = a->is_graph ? "tinyengine" : "greedy-size";
    if (a->draw && strcmp(a->strategy, "lower-bound") == 0)
        return usage_error("--draw needs a placement; the lower-bound strategy gives only a bound");
#undef usage_error
    int rc = rip_out_refuse_input("plan", a->out_path, a->graph_path ? a->graph_path : a->intervals_path,
                                  "the input");
    if (rc != 0)
        return rc;
    if (a->out_path && strcmp(a->out_path, "-") == 0 && a->json)
        return rip_args_usage(cmd, "--out - sends the SVG to standard output; --json would share it");
    return RIP_ARGS_CONTINUE;
}

/*
** Parse the command line into *a (the option table is also the --help
** text) and validate it (check_args).  Returns RIP_ARGS_CONTINUE; or 0
** after --help (74 when it cannot be written); or 64 after one line on
** stderr.  The strings in *a point into argv or static storage.
*/
static int parse_args(int argc, char **argv, plan_args *a)
{
    *a = (plan_args){.check = true, .align = -1, .seed = 1, .tflm_lib = -1, .tflm_arena = -1};
    int strategy_ix = -1, sigma_ix = 0, draw_ix = -1;
    const char *strategy_names[32] = {NULL};
    static const char *const sigmas[] = {"gather", "taps", NULL};
    static const char *const draws[] = {"ascii", "svg", NULL};
    char strategy_text[2048];
    strategy_help(strategy_text, sizeof strategy_text, strategy_names, 32);
    const rip_opt opts[] = {
        {.name = "--strategy", .kind = RIP_OPT_ENUM, .dest = &strategy_ix, .metavar = "NAME",
         .choices = strategy_names, .help = strategy_text, .given = &a->strategy_given},
        {.name = "--for", .kind = RIP_OPT_ENUM, .dest = &a->tflm_lib, .metavar = "LIB", .choices = rip_tflm_lib_names,
         .help = "MODEL.tflite for an unchanged TensorFlow Lite Micro running\n"
                 "kernel library LIB (tflm-reference or tflm-cmsis-nn): an\n"
                 "exact plan of the buffers TFLM places, with its lifetimes and\n"
                 "16-byte sizes, overlaps only where LIB's kernels' modelled\n"
                 "read/write orders allow (and a RESHAPE output at its input),\n"
                 "no runtime shift; printed beside\n"
                 "TFLM's own greedy plan, with the plan's peak (operator, live\n"
                 "tensors), the kernels' scratch buffers and TFLM's arena head\n"
                 "(tensors and scratch as TFLM places them) on both plans"},
        {.name = "--dsp", .kind = RIP_OPT_FLAG, .dest = &a->dsp, .flag_value = true,
         .help = "with --for tflm-cmsis-nn: the build runs CMSIS-NN's DSP path\n"
                 "(a core with the DSP extension: Cortex-M33, M4, M7), whose\n"
                 "depthwise and average-pool kernels request scratch; default\n"
                 "the pure-C path (host, Cortex-M0/M0+).  The plan is the same\n"
                 "(its overlaps are safe on both paths); only the head differs"},
        {.name = "--tflm-arena", .kind = RIP_OPT_INT, .dest = &a->tflm_arena, .metavar = "BYTES", .lo = 1,
         .hi = INT64_MAX,
         .help = "with --for: the arena_used_bytes TFLM reports for MODEL.tflite\n"
                 "unchanged on the target; prints the arena this plan needs\n"
                 "there (BYTES - own head + this plan's head: TFLM's persistent\n"
                 "tail is the same on every plan)"},
        {.name = "--limits", .kind = RIP_OPT_FLAG, .dest = &a->limits, .flag_value = true,
         .help = "with --for: also the operators where the other library's\n"
                 "kernel allows a smaller gap (limited: what that gap alone\n"
                 "saves; friendly: the area with every smaller gap), one\n"
                 "exact plan each"},
        {.name = "--write", .kind = RIP_OPT_STR, .dest = &a->write_path, .metavar = "OUT.tflite",
         .help = "with --for: write MODEL.tflite carrying that plan as its\n"
                 "OfflineMemoryAllocation metadata, otherwise unchanged\n"
                 "(nothing is written on any error)"},
        {.name = "--no-overlap", .kind = RIP_OPT_FLAG, .dest = &a->no_overlap, .flag_value = true,
         .help = "with --for: the exact plan of the same buffers with no\n"
                 "overlap at all (only RESHAPE outputs at their inputs'\n"
                 "offsets, a copy TFLM's RESHAPE then skips)"},
        {.name = "--no-rip", .kind = RIP_OPT_FLAG, .dest = &a->no_rip, .flag_value = true,
         .help = "graphs: no RiP candidates, only TinyEngine's in-place\ndepthwise (the paper's Tab. 3 baseline)"},
        {.name = "--dual", .kind = RIP_OPT_FLAG, .dest = &a->dual, .flag_value = true,
         .help = "graphs: no in-place candidates at all (Tab. 7's dual buffer)"},
        {.name = "--sigma", .kind = RIP_OPT_ENUM, .dest = &sigma_ix, .metavar = "S", .choices = sigmas,
         .given = &a->sigma_given,
         .help = "graphs: RiP gaps with taps gathered first (gather, sigma = 0,\n"
                 "default, as deployed) or read from the workspace (taps,\nsigma = C_out)"},
        {.name = "--align", .kind = RIP_OPT_INT, .dest = &a->align, .metavar = "V", .lo = 1, .hi = (int64_t)1 << 20,
         .help = "offsets and gaps are multiples of V bytes (default 4 for\ngraphs, as on the Picos; 1 for intervals)", .given = &a->other_given},
        {.name = "--intervals", .kind = RIP_OPT_STR, .dest = &a->intervals_path, .metavar = "FILE",
         .help = "plan a buffer list id,start,end,size instead of a graph;\n"
                 "intervals are half-open [start, end) unless --inclusive"},
        {.name = "--inclusive", .kind = RIP_OPT_FLAG, .dest = &a->inclusive, .flag_value = true,
         .help = "interval ends are inclusive [start, end]", .given = &a->other_given},
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &a->json, .flag_value = true,
         .help = "one JSON object instead of the table"},
        {.name = "--draw", .kind = RIP_OPT_ENUM, .dest = &draw_ix, .metavar = "ascii|svg", .choices = draws,
         .help = "ascii: a picture of memory (rows = address bands,\n"
                 "columns = steps) after the table; svg: one rectangle per\n"
                 "tensor (x = lifetime, y = offset..offset+size) to --out FILE"},
        {.name = "--out", .kind = RIP_OPT_STR, .dest = &a->out_path, .metavar = "FILE",
         .help = "where --draw svg writes ('-': standard output, then\nwithout the table)"},
        {.name = "--seed", .kind = RIP_OPT_INT, .dest = &a->seed, .metavar = "S", .lo = 0, .hi = INT64_MAX,
         .help = "hill-climb: PCG32 seed (default 1)", .given = &a->other_given},
        {.name = "--time-limit", .kind = RIP_OPT_REAL, .dest = &a->time_limit, .metavar = "S", .lo = 0,
         .hi = INT64_MAX, .help = "milp, exact (and hill-climb): stop after S seconds", .given = &a->other_given},
        {.name = "--capacity", .kind = RIP_OPT_INT, .dest = &a->capacity, .metavar = "B", .lo = 0, .hi = INT64_MAX,
         .help = "exact: any plan within B bytes is enough", .given = &a->other_given},
        {.name = "--check", .kind = RIP_OPT_FLAG, .dest = &a->check, .flag_value = true,
         .help = "verify the plan, gaps re-derived by simulation (default)", .given = &a->other_given},
        {.name = "--no-check", .kind = RIP_OPT_FLAG, .dest = &a->check, .flag_value = false,
         .help = "verify the placement only, gaps as computed (for\ntiming strategies)", .given = &a->other_given},
    };
    const rip_cmd cmd = {
        .name = "plan", .synopsis = "GRAPH.csv|MODEL.tflite [options]\n--intervals FILE.csv [--inclusive] [options]\n"
                    "MODEL.tflite --for LIB [--no-overlap] [--write OUT.tflite]",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = &a->graph_path,
        .min_pos = 0, .max_pos = 1, .notes = notes, .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim plan firmware/models/mcunet/mcunet-in3.csv --no-rip",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    a->strategy = strategy_ix >= 0 ? strategy_names[strategy_ix] : NULL;
    a->taps = sigma_ix == 1;
    a->draw = draw_ix >= 0 ? draws[draw_ix] : NULL;
    return check_args(&cmd, a);
}

/* Build the planning problem from the graph or TFLite model (with the
** candidates the options allow) or the interval list.  Returns RIP_OK, or a status with
** err. */
static rip_status load_problem(const plan_args *a, rip_problem *p, char err[RIP_ERR_LEN])
{
    rip_status rc;
    rip_graph_opts go = {.rip = !a->no_rip && !a->dual, .inplace_depthwise = !a->dual, .sigma_taps = a->taps,
                         .align = a->align};
    if (a->is_graph && rip_tfl_file_is_model(a->graph_path)) {
        rc = rip_net_problem_from_file(a->graph_path, &go, p, err);
    } else if (a->is_graph) {
        rip_graph g;
        rc = rip_graph_load(a->graph_path, &g, err);
        if (rc != RIP_OK)
            return rc;
        rc = rip_problem_from_graph(&g, &go, p, err);
        rip_graph_free(&g);
    } else {
        rc = rip_problem_from_intervals(a->intervals_path, a->inclusive, a->align, p, err);
    }
    return rc;
}

/* The strategies' verbose trace (rip_plan_opts.log): one line on stderr. */
static void log_to_stderr(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

/* Plan p with strategy s through the one checked entry
** (rip_plan_solve_checked), with a progress line on a terminal: the gaps
** are re-derived by simulation for a graph unless --no-check; the
** placement is always checked.  Returns the status (err set when not
** RIP_OK); *plan is the checked plan. */
static rip_status plan_checked(const plan_args *a, const rip_strategy *s, const rip_problem *p, rip_plan **plan,
                               char err[RIP_ERR_LEN])
{
    rip_plan_opts po = {.seed = (uint64_t)a->seed, .time_limit = a->time_limit, .capacity = a->capacity,
                        .verbose = false, .log = log_to_stderr};
    rip_progress pr;
    char what[RIP_ERR_LEN + 64];
    if (a->time_limit > 0)
        snprintf(what, sizeof what, "%s on %.200s (%zu tensors, time limit %g s)", s->name, p->name, p->n,
                 a->time_limit);
    else
        snprintf(what, sizeof what, "%s on %.200s (%zu tensors)", s->name, p->name, p->n);
    rip_progress_init(&pr, "plan", NULL, true);
    rip_progress_update(&pr, 0, 0, what);
    rip_progress_tick(&pr);
    rip_status rc = rip_plan_solve_checked(p, s->name, &po, a->check && a->is_graph, plan, err);
    rip_progress_end(&pr);
    return rc;
}

/* The SVG picture of plan to path (replaced only when complete; '-' is
** standard output).  0, or an exit status (73, 74) after the message. */
static int write_svg(const char *path, const rip_problem *p, const rip_plan *plan)
{
    rip_out out;
    int rc = rip_out_open(&out, "plan", path);
    if (rc != 0)
        return rc;
    char err[RIP_ERR_LEN];
    rip_status s = rip_plan_render_svg(out.f, p, plan, err);
    if (s != RIP_OK) {
        rip_out_abort(&out);
        fprintf(stderr, "ripsim plan: %s\n", err);
        return rip_exit_status(s);
    }
    return rip_out_commit(&out);
}

/* Show the plan: the table or JSON on standard output, then the drawing
** asked for.  Returns 0, or an exit status after one line on stderr (64:
** an SVG of a bound; 73/74: the SVG or standard output cannot be
** written). */
static int show_plan(const plan_args *a, const rip_problem *p, const rip_plan *plan, const char *check_note)
{
    bool svg_to_stdout = a->out_path && strcmp(a->out_path, "-") == 0;
    if (a->json)
        rip_plan_render_json(stdout, p, plan, a->is_graph, !plan->bound_only);
    else if (!svg_to_stdout)
        rip_plan_render_table(stdout, p, plan, a->is_graph, check_note);
    if (a->draw && strcmp(a->draw, "ascii") == 0) {
        if (plan->bound_only)
            printf("\n(no drawing: the lower bound is not a placement)\n");
        else
            rip_plan_render_ascii(stdout, p, plan);
    }
    if (a->draw && strcmp(a->draw, "svg") == 0) {
        if (plan->bound_only) {
            fprintf(stderr, "ripsim plan: --draw svg: the lower bound is not a placement, nothing to draw\n");
            return RIP_EX_USAGE;
        }
        int rc = write_svg(a->out_path, p, plan);
        if (rc != 0)
            return rc;
    }
    return rip_out_check_stdout("plan");
}

int rip_cmd_plan(int argc, char **argv)
{
    plan_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if (a.tflm_lib >= 0)
        return rip_cmd_plan_tflm(&(rip_tflm_plan_args){.model_path = a.graph_path, .lib = a.tflm_lib,
                                                       .no_overlap = a.no_overlap, .dsp = a.dsp,
                                                       .limits = a.limits, .tflm_arena = a.tflm_arena,
                                                       .write_path = a.write_path});

    char err[RIP_ERR_LEN];
    rip_problem p;
    memset(&p, 0, sizeof p);
    rc = load_problem(&a, &p, err);
    if (rc != RIP_OK) {
        fprintf(stderr, "ripsim plan: %s\n", err);
        return rip_exit_status((rip_status)rc);
    }

    const rip_strategy *s = rip_strategy_by_name(a.strategy);
    rip_plan *plan = NULL;
    rc = plan_checked(&a, s, &p, &plan, err);
    if (rc != RIP_OK) {
        fprintf(stderr, "ripsim plan: %s\n", err);
        rc = rip_exit_status((rip_status)rc);
        goto done;
    }
    char check_note[320] = "";
    if (!plan->bound_only)
        rip_plan_check_claim(check_note, sizeof check_note, &p, plan, a.check && a.is_graph);
    rc = show_plan(&a, &p, plan, check_note);
done:
    rip_plan_free(plan);
    rip_problem_free(&p);
    return rc;
}
