/*
** cmd_run.c — `ripsim run MODEL.tflite --input FILE [--plan base|rip]
** [--out FILE] [--json] [--dump DIR]`: execute a TFLite model on the host
** with the int8 kernels of firmware/kernels/ in one arena laid out by a
** checked memory plan (src/net/net.h), and show or write its outputs.
**
** Every output file is staged before the run and replaced only when the
** run and every write succeeded (out_set.h).  The exit statuses are the
** table `exits` below (also printed by --help).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "json_out.h"
#include "net/net.h"
#include "out.h"
#include "out_set.h"

static const char about[] =
    "Run a TFLite model (.tflite; what `ripsim model` accepts) on the host: every\n"
    "operator is one call of the int8 kernels the firmware runs, with TensorFlow\n"
    "Lite Micro's prepare-time integers, its activations in one arena at the\n"
    "offsets of a memory plan checked by rip_plan_check (gaps simulated), in place\n"
    "where the plan says (RiP convolutions and pools below their inputs,\n"
    "TinyEngine's depthwise, ADD and integer upsampling over them).  RESHAPE is an\n"
    "alias; a PAD that pads H and W before a convolution is folded into it (as\n"
    "TinyEngine deploys); float32 inputs and outputs stay outside the arena, with\n"
    "QUANTIZE and DEQUANTIZE at the edges.  Then print the outputs.\n";

static const char notes[] =
    "--input FILE: a BMP (a name ending in .bmp) becomes the bytes of an int8\n"
    "input of shape [1, H, W, C] exactly as TFLM's person-detection example\n"
    "converts its images (gray or 24-bit, rows top first, the bytes unchanged);\n"
    "any other file is the input's raw bytes in its own type, exactly the\n"
    "tensor's size (int8, or little-endian float32 for a float input).  Give\n"
    "--input once per model input, in the model's order.\n"
    "\n"
    "--plan base: strategy tinyengine with TinyEngine's in-place depthwise only\n"
    "(the paper's Tab. 3 baseline); rip: strategy milp (on budgets: the same plan\n"
    "on any machine) with every RiP candidate, gathered gaps; alignment 4.\n"
    "--out writes every output's raw bytes, in the model's output order (float32\n"
    "little-endian).  --json prints one object: model, plan, strategy,\n"
    "arena_bytes, scratch_bytes, in_place, shifts, outputs (index, tensor, name,\n"
    "type, shape, values).  --dump DIR writes every operator's output 0 as\n"
    "DIR/op-NNN-out-0.bin (NNN its index in the model, from 000; the names of\n"
    "tests/tflm's peer), a RESHAPE's too (its input's bytes); a folded PAD has no\n"
    "output and no file.  DIR is replaced whole and may hold only such files.\n"
    "Errors are one line on stderr; nothing is written then.\n";

static const rip_exit_doc exits[] = {
    {0, "ran; the outputs are printed (and written)"},
    {64, "bad command line (also: an --input count other than the model's inputs)"},
    {65, "not a model ripsim runs, or an input of the wrong size or kind (the message says which)"},
    {66, "MODEL or an input file cannot be opened"},
    {69, "--plan rip: milp's CBC module is missing"},
    {70, "internal error: a strategy made an invalid plan, or a kernel refused its parameters"},
    {71, "out of memory, or milp's CBC solver process failed"},
    {73, "--out or --dump cannot be created (or DIR holds other files)"},
    {74, "a read or a write failed, or standard output"},
};

#define MAX_INPUTS 16

typedef struct run_args {
    const char *model, *out, *dump;
    const char *inputs[MAX_INPUTS];
    size_t n_inputs;
    int plan;                   /* rip_net_plan_kind */
    bool json;
} run_args;

/* --input: appended to the list (repeatable). */
static bool parse_input(const char *v, void *dest, char *why, size_t why_len)
{
    run_args *a = dest;
    if (a->n_inputs == MAX_INPUTS) {
        snprintf(why, why_len, "at most %d input files", MAX_INPUTS);
        return false;
    }
    a->inputs[a->n_inputs++] = v;
    return true;
}

static const char *const plan_names[] = {"base", "rip", NULL};

/* The command line into *a.  RIP_ARGS_CONTINUE, or an exit status (0 after --help, 64). */
static int parse_args(int argc, char **argv, run_args *a)
{
    *a = (run_args){.plan = RIP_NET_PLAN_BASE};
    const rip_opt opts[] = {
        {.name = "--input", .kind = RIP_OPT_CUSTOM, .dest = a, .metavar = "FILE", .parse = parse_input,
         .repeat = true, .help = "a model input: a .bmp image or the tensor's raw bytes;\nonce per model input"},
        {.name = "--plan", .kind = RIP_OPT_ENUM, .dest = &a->plan, .metavar = "base|rip", .choices = plan_names,
         .help = "the memory plan: base (TinyEngine, in-place depthwise;\ndefault) or rip (MILP with RiP)"},
        {.name = "--out", .kind = RIP_OPT_STR, .dest = &a->out, .metavar = "FILE",
         .help = "write every output's raw bytes, in order ('-': standard\noutput, then nothing else is printed)"},
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &a->json, .flag_value = true,
         .help = "one JSON object instead of the summary"},
        {.name = "--dump", .kind = RIP_OPT_STR, .dest = &a->dump, .metavar = "DIR",
         .help = "every operator's output as DIR/op-NNN-out-0.bin"},
    };
    const rip_cmd cmd = {
        .name = "run", .synopsis = "MODEL.tflite --input FILE [--plan base|rip] [--out FILE] [--json] [--dump DIR]",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = &a->model, .min_pos = 1,
        .max_pos = 1, .missing = "missing MODEL.tflite", .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim run person_detect.tflite --input person.bmp --plan rip --json",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if (a->n_inputs == 0)
        return rip_args_usage(&cmd, "--input FILE is required (once per model input)");
    bool out_stdout = a->out && strcmp(a->out, "-") == 0;
    if (out_stdout && a->json)
        return rip_args_usage(&cmd, "--out - sends the outputs' bytes to standard output; --json would share it");
    if ((rc = rip_out_refuse_input("run", a->out, a->model, "the model")) != 0)
        return rc;
    for (size_t i = 0; i < a->n_inputs; i++)
        if ((rc = rip_out_refuse_input("run", a->out, a->inputs[i], "an input")) != 0)
            return rc;
    return RIP_ARGS_CONTINUE;
}

/* ---- the run's memory and outputs ---- */

/* What one run holds; everything freed by run_free. */
typedef struct run_state {
    rip_tfl_model model;
    rip_net net;
    rip_net_layout layout;
    rip_problem problem;
    rip_plan *plan;
    void **in, **out;           /* per model input / output */
    int8_t *arena, *scratch;
    rip_out_set set;
    rip_out_item *out_file, *dump_dir;
    char **dump_names;          /* NULL-terminated: the files --dump may write */
    int dump_rc;                /* the first failed dump write's exit status */
} run_state;

static void run_free(run_state *s)
{
    for (size_t i = 0; s->in && i < s->net.n_inputs; i++)
        free(s->in[i]);
    for (size_t i = 0; s->out && i < s->net.n_outputs; i++)
        free(s->out[i]);
    free(s->in);
    free(s->out);
    free(s->arena);
    free(s->scratch);
    for (size_t i = 0; s->dump_names && s->dump_names[i]; i++)
        free(s->dump_names[i]);
    free(s->dump_names);
    rip_plan_free(s->plan);
    rip_problem_free(&s->problem);
    rip_net_layout_free(&s->layout);
    rip_net_free(&s->net);
    rip_tfl_model_free(&s->model);
}

/* One line on stderr and the exit status of st. */
static int fail(rip_status st, const char *err)
{
    fprintf(stderr, "ripsim run: %s\n", err);
    return rip_exit_status(st);
}

/* The model, its net, the inputs read, the plan and its layout.  0 or an exit status. */
static int prepare(const run_args *a, run_state *s)
{
    char err[RIP_ERR_LEN];
    rip_status st = rip_tfl_model_load(a->model, &s->model, err);
    if (st == RIP_OK)
        st = rip_net_build(&s->model, &s->net, err);
    if (st != RIP_OK)
        return fail(st, err);
    if (a->n_inputs != s->net.n_inputs) {
        fprintf(stderr, "ripsim run: %s has %zu input%s, but %zu --input given (see 'ripsim run --help')\n",
                a->model, s->net.n_inputs, s->net.n_inputs == 1 ? "" : "s", a->n_inputs);
        return RIP_EX_USAGE;
    }
    s->in = calloc(s->net.n_inputs + 1, sizeof *s->in);
    s->out = calloc(s->net.n_outputs + 1, sizeof *s->out);
    if (s->in == NULL || s->out == NULL)
        return fail(RIP_S_NOMEM, "out of memory");
    for (size_t i = 0; i < s->net.n_inputs; i++) {
        if ((s->in[i] = malloc((size_t)s->net.inputs[i].bytes)) == NULL)
            return fail(RIP_S_NOMEM, "out of memory");
        if ((st = rip_net_read_input(&s->net, i, a->inputs[i], s->in[i], err)) != RIP_OK)
            return fail(st, err);
    }
    for (size_t i = 0; i < s->net.n_outputs; i++)
        if ((s->out[i] = calloc(1, (size_t)s->net.outputs[i].bytes)) == NULL)
            return fail(RIP_S_NOMEM, "out of memory");
    if ((st = rip_net_plan(&s->net, (rip_net_plan_kind)a->plan, &s->problem, &s->plan, &s->layout, err)) != RIP_OK)
        return fail(st, err);
    s->arena = calloc((size_t)s->layout.arena_bytes + 1, 1);
    s->scratch = calloc((size_t)s->layout.scratch_bytes + 1, 1);
    if (s->arena == NULL || s->scratch == NULL)
        return fail(RIP_S_NOMEM, "out of memory");
    return 0;
}

/* Stage --out and --dump (before the run).  0 or an exit status. */
static int stage_outputs(const run_args *a, run_state *s)
{
    rip_out_set_init(&s->set, "run");
    int rc;
    if (a->out && (rc = rip_out_set_file(&s->set, a->out, &s->out_file)) != 0)
        return rc;
    if (!a->dump)
        return 0;
    s->dump_names = calloc(s->net.n_ops + 1, sizeof *s->dump_names);
    for (size_t i = 0; s->dump_names && i < s->net.n_ops; i++)
        if ((s->dump_names[i] = malloc(48)) != NULL)
            snprintf(s->dump_names[i], 48, "op-%03zu-out-0.bin", i);
        else
            break;
    if (s->dump_names == NULL || (s->net.n_ops && s->dump_names[s->net.n_ops - 1] == NULL)) {
        rip_out_set_abort(&s->set);
        return fail(RIP_S_NOMEM, "out of memory");
    }
    return rip_out_set_dir(&s->set, a->dump, (const char *const *)s->dump_names, &s->dump_dir);
}

/* The --dump hook: operator op's output into the staged folder. */
static void dump_hook(void *ctx, int32_t op, rip_net_how how, const void *data, int64_t bytes)
{
    run_state *s = ctx;
    if (how == RIP_NET_FOLDED || s->dump_rc != 0)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", s->dump_dir->tmp, s->dump_names[op]);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        fprintf(stderr, "ripsim run: --dump: cannot create %s\n", path);
        s->dump_rc = RIP_EX_CANTCREAT;
        return;
    }
    bool ok = fwrite(data, 1, (size_t)bytes, f) == (size_t)bytes;
    if (fclose(f) != 0 || !ok) {
        fprintf(stderr, "ripsim run: --dump: cannot write %s\n", path);
        s->dump_rc = RIP_EX_IOERR;
    }
}

/* Every output's bytes into f in order, float32 little-endian. */
static void write_raw(FILE *f, const run_state *s)
{
    for (size_t i = 0; i < s->net.n_outputs; i++) {
        const rip_net_io *io = &s->net.outputs[i];
        if (io->type != RIP_TFL_FLOAT32) {
            fwrite(s->out[i], 1, (size_t)io->bytes, f);
            continue;
        }
        for (int64_t k = 0; k < io->elements; k++) {
            uint32_t v;
            memcpy(&v, (const uint8_t *)s->out[i] + 4 * k, 4);
            const uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
            fwrite(le, 1, 4, f);
        }
    }
}

/* ---- showing the outputs ---- */

/* Value k of output i, as text. */
static void print_value(FILE *f, const run_state *s, size_t i, int64_t k, bool json)
{
    if (s->net.outputs[i].type == RIP_TFL_INT8) {
        fprintf(f, "%d", ((const int8_t *)s->out[i])[k]);
        return;
    }
    float v;
    memcpy(&v, (const uint8_t *)s->out[i] + 4 * k, 4);
    if (isfinite(v))
        fprintf(f, "%.9g", (double)v);
    else
        fprintf(f, "%s", json ? "null" : "nan");
}

static void print_shape(FILE *f, const rip_tfl_tensor *t)
{
    fputc('[', f);
    for (size_t d = 0; d < t->rank; d++)
        fprintf(f, "%s%ld", d ? "," : "", (long)t->shape[d]);
    fputc(']', f);
}

static size_t used_candidates(const run_state *s, bool shifts)
{
    size_t n = 0;
    for (size_t k = 0; k < s->problem.n_cand; k++)
        n += s->plan->in_place[k] && (!shifts || s->plan->shift[k]);
    return n;
}

static void print_json(const run_args *a, const run_state *s)
{
    printf("{\"model\":");
    rip_json_string(stdout, a->model);
    printf(",\"plan\":\"%s\",\"strategy\":\"%s\",\"arena_bytes\":%lld,\"scratch_bytes\":%lld,\"in_place\":%zu,"
           "\"shifts\":%zu,\"outputs\":[",
           plan_names[a->plan], s->plan->strategy, (long long)s->layout.arena_bytes,
           (long long)s->layout.scratch_bytes, used_candidates(s, false), used_candidates(s, true));
    for (size_t i = 0; i < s->net.n_outputs; i++) {
        const rip_net_io *io = &s->net.outputs[i];
        const rip_tfl_tensor *t = &s->net.sg->tensors[io->tensor];
        printf("%s{\"index\":%zu,\"tensor\":%ld,\"name\":", i ? "," : "", i, (long)io->tensor);
        rip_json_string(stdout, t->name);
        printf(",\"type\":\"%s\",\"shape\":", rip_tfl_type_name(io->type));
        print_shape(stdout, t);
        printf(",\"values\":[");
        for (int64_t k = 0; k < io->elements; k++) {
            fputs(k ? "," : "", stdout);
            print_value(stdout, s, i, k, true);
        }
        printf("]}");
    }
    printf("]}\n");
}

static void print_summary(const run_args *a, const run_state *s)
{
    enum { SHOWN = 32 };
    printf("model        %s\n", a->model);
    printf("plan         %s (strategy %s): arena %lld B, scratch %lld B, %zu of %zu candidates in place, %zu "
           "shifts\n",
           plan_names[a->plan], s->plan->strategy, (long long)s->layout.arena_bytes,
           (long long)s->layout.scratch_bytes, used_candidates(s, false), s->problem.n_cand,
           used_candidates(s, true));
    for (size_t i = 0; i < s->net.n_outputs; i++) {
        const rip_net_io *io = &s->net.outputs[i];
        const rip_tfl_tensor *t = &s->net.sg->tensors[io->tensor];
        printf("output %-5zu tensor %ld %s ", i, (long)io->tensor, rip_tfl_type_name(io->type));
        print_shape(stdout, t);
        printf(":");
        for (int64_t k = 0; k < io->elements && k < SHOWN; k++) {
            putchar(' ');
            print_value(stdout, s, i, k, false);
        }
        printf("%s\n", io->elements > SHOWN ? " ..." : "");
    }
}

int rip_cmd_run(int argc, char **argv)
{
    run_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    run_state s;
    memset(&s, 0, sizeof s);
    bool staged = false;
    if ((rc = prepare(&a, &s)) != 0 || (rc = stage_outputs(&a, &s)) != 0)
        goto done;
    staged = true;
    char err[RIP_ERR_LEN];
    rip_status st = rip_net_run(&s.net, &s.layout, s.arena, s.scratch, (const void *const *)s.in, s.out,
                                a.dump ? dump_hook : NULL, &s, err);
    if (st != RIP_OK || s.dump_rc != 0) {
        rc = st != RIP_OK ? fail(st, err) : s.dump_rc;
        goto done;
    }
    if (s.out_file)
        write_raw(s.out_file->f, &s);
    staged = false;
    if ((rc = rip_out_set_commit(&s.set)) != 0)
        goto done;
    if (a.out && strcmp(a.out, "-") == 0)
        rc = 0;
    else if (a.json)
        print_json(&a, &s);
    else
        print_summary(&a, &s);
done:
    if (staged)
        rip_out_set_abort(&s.set);
    run_free(&s);
    return rc;
}
