/*
** cmd_codegen.c — `ripsim codegen GRAPH.csv|MODEL.tflite --plan base|rip
** --out DIR`: the C code of one model under one memory plan
** (src/codegen/codegen.h), for the host test, the QEMU images and the Pico
** firmware.  A TFLite model is recognised by its identifier "TFL3"
** (whatever its name), as `ripsim plan` recognises it.
**
** The exit statuses are the table `exits` below (also printed by --help).
*/
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "codegen/codegen.h"
#include "out.h"
#include "out_set.h"
#include "tflite/tfl_model.h"

static const char about[] =
    "Generate C for one model graph (schema: firmware/models/README.md) or TFLite\n"
    "model (.tflite, what `ripsim run` runs) under one memory plan, into the\n"
    "folder DIR (made when missing):\n"
    "  model.c       the arena (one static array of the plan's peak bytes), the\n"
    "                scratch buffer (when some kernel call takes it), kernel\n"
    "                parameters as const data and the op sequence, every tensor\n"
    "                at its planned offset, in-place ops called on overlapping\n"
    "                pointers as the plan places them;\n"
    "  model_blob.S  .incbin \"model.bin\" into read-only data (assemble with\n"
    "                -Wa,-I,DIR);\n"
    "  model.bin     weights, biases, requantization and input;\n"
    "  model.json    model, plan, arena_bytes, scratch_bytes, n_ops, n_logits, ...\n"
    "The plans are Tab. 3's: base = strategy tinyengine, in-place depthwise, no\n"
    "RiP; rip = strategy milp with the RiP candidates (dense, gather first, V = 4).\n"
    "A graph's weights are seeded stand-ins (real MCUNet weights are not available\n"
    "here): PCG32 from SEED and the graph's name, calibrated so activations stay\n"
    "spread; the same for both plans, so both compute the same logits.  A TFLite\n"
    "model brings its own weights, biases and quantization (TFLM's prepare-time\n"
    "integers, as `ripsim run` computes them) and takes its input from --input /\n"
    "--input-f32 (as `ripsim run` reads them); its steps are `ripsim run`'s, in\n"
    "the same arena layout, and the reference output (CRC-32 in model.json) is\n"
    "that of `ripsim run` on the host.\n";

static const char notes[] =
    "Build: model.c model_blob.S firmware/runtime/*.c firmware/kernels/*.c with\n"
    "-I firmware/kernels -I firmware/runtime -Wa,-I,DIR.  DIR is replaced whole:\n"
    "the four files are written into a new folder beside it, which takes DIR's\n"
    "place once complete (a failed or interrupted run leaves DIR as it was), so\n"
    "a DIR holding any other file is refused (exit 73).  The same command writes\n"
    "the same bytes.  Errors are one line on stderr.\n"
    "\n"
    "MODEL.tflite: give --input FILE (a .bmp or the tensor's raw bytes) or\n"
    "--input-f32 FILE (float32 values, quantized for an int8 input) once per model\n"
    "input, in the model's order, exactly as to `ripsim run`; --name sets the\n"
    "model's name (default: the file's name without .tflite); --seed does not\n"
    "apply.  model.c calls one kernel per step of the net; float32 inputs stay in\n"
    "model.bin, float32 outputs go to arrays beside the arena.\n";

static const rip_exit_doc exits[] = {
    {0, "generated"},
    {64, "bad command line"},
    {65, "bad graph or model, an op the generator does not support, a bad input file, or --arena below "
         "the peak"},
    {66, "graph, model or input file missing or unreadable"},
    {69, "--plan rip of a .tflite: milp's CBC module is missing"},
    {70, "internal error (a strategy failed, or the plan does not match its kernels)"},
    {71, "out of memory, or milp's CBC solver process failed (--plan rip)"},
    {73, "DIR or a file in it cannot be created, or DIR holds other files"},
    {74, "a file cannot be written, or standard output"},
};

static const char *const plans[] = {"base", "rip", NULL};

#define MAX_INPUTS 16

/* --input and --input-f32, in the order given. */
typedef struct input_list {
    rip_cg_input v[MAX_INPUTS];
    size_t n;
} input_list;

static bool add_input(const char *v, input_list *l, bool f32, char *why, size_t why_len)
{
    if (l->n == MAX_INPUTS) {
        snprintf(why, why_len, "at most %d input files", MAX_INPUTS);
        return false;
    }
    l->v[l->n++] = (rip_cg_input){v, f32};
    return true;
}

static bool parse_input(const char *v, void *dest, char *why, size_t why_len)
{
    return add_input(v, dest, false, why, why_len);
}

static bool parse_input_f32(const char *v, void *dest, char *why, size_t why_len)
{
    return add_input(v, dest, true, why, why_len);
}

/* Print what was generated (both kinds of model). */
static void print_summary(const rip_cg_summary *s, const char *out, bool tflite)
{
    printf("model        %s (%s %s), plan %s (strategy %s)\n", s->model, tflite ? "TFLite model" : "graph", s->graph,
           s->plan, s->strategy);
    printf("arena        %lld B (plan peak %lld B)\n", (long long)s->arena, (long long)s->peak);
    printf("scratch      %lld B\n", (long long)s->scratch);
    printf("%s%lld, %lld in place, %lld runtime shifts\n", tflite ? "steps        " : "ops          ",
           (long long)s->n_ops, (long long)s->n_inplace, (long long)s->n_shifts);
    printf("%s%lld B in %lld output%s, reference CRC-32 %08x\n", tflite ? "outputs      " : "logits       ",
           (long long)s->n_logits, (long long)s->n_outputs, s->n_outputs == 1 ? "" : "s", (unsigned)s->checksum);
    printf("blob         %lld B\n", (long long)s->blob_bytes);
    printf("wrote        %s/model.c, model_blob.S, model.bin, model.json\n", out);
}

int rip_cmd_codegen(int argc, char **argv)
{
    int plan_ix = -1;
    const char *out = NULL, *graph = NULL, *name = NULL;
    int64_t arena = 0, seed = RIP_CG_SEED_DEFAULT;
    bool arena_given = false, seed_given = false;
    input_list inputs = {.n = 0};
    const rip_opt opts[] = {
        {.name = "--plan", .kind = RIP_OPT_ENUM, .dest = &plan_ix, .metavar = "base|rip", .choices = plans,
         .help = "base (TinyEngine first fit, in-place depthwise) or rip\n(MILP with RiP in place); required"},
        {.name = "--out", .kind = RIP_OPT_STR, .dest = &out, .metavar = "DIR",
         .help = "folder of the generated files; required"},
        {.name = "--arena", .kind = RIP_OPT_INT, .dest = &arena, .metavar = "BYTES", .lo = 1, .hi = INT64_MAX,
         .given = &arena_given,
         .help = "arena size (default: the plan's peak); below the peak is\nrefused (exit 65)"},
        {.name = "--seed", .kind = RIP_OPT_INT, .dest = &seed, .metavar = "S", .lo = 0, .hi = INT64_MAX,
         .given = &seed_given, .help = "PCG32 seed of a graph's weights and input (default 20261129)"},
        {.name = "--input", .kind = RIP_OPT_CUSTOM, .dest = &inputs, .metavar = "FILE", .parse = parse_input,
         .repeat = true, .help = "a .tflite's input: a .bmp or the tensor's raw bytes;\nonce per model input"},
        {.name = "--input-f32", .kind = RIP_OPT_CUSTOM, .dest = &inputs, .metavar = "FILE", .parse = parse_input_f32,
         .repeat = true, .help = "a .tflite's input as float32 values (quantized for an\nint8 input)"},
        {.name = "--name", .kind = RIP_OPT_STR, .dest = &name, .metavar = "NAME",
         .help = "a .tflite's model name (default: the file's stem)"},
    };
    const rip_cmd cmd = {
        .name = "codegen",
        .synopsis = "GRAPH.csv --plan base|rip --out DIR [--arena BYTES] [--seed S]\n"
                    "MODEL.tflite --input FILE|--input-f32 FILE... --plan base|rip --out DIR [--arena BYTES] "
                    "[--name NAME]",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = &graph, .min_pos = 1,
        .max_pos = 1, .missing = "missing GRAPH.csv or MODEL.tflite", .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim codegen firmware/models/mcunet/mcunet-in0.csv --plan rip --out /tmp/in0-rip",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if (plan_ix < 0)
        return rip_args_usage(&cmd, "--plan is required (base or rip)");
    if (!out)
        return rip_args_usage(&cmd, "--out is required (the folder of the generated files)");
    const bool tflite = rip_tfl_file_is_model(graph);
    if (tflite && seed_given)
        return rip_args_usage(&cmd, "--seed is for a graph's seeded weights; a .tflite brings its own");
    if (tflite && inputs.n == 0)
        return rip_args_usage(&cmd, "a .tflite needs --input FILE (or --input-f32 FILE), once per model input");
    if (!tflite && (inputs.n > 0 || name))
        return rip_args_usage(&cmd, "--input, --input-f32 and --name are for a .tflite model");
    rip_out_set set;
    rip_out_item *dir;
    rip_out_set_init(&set, "codegen");
    if ((rc = rip_out_set_dir(&set, out, rip_cg_file_names, &dir)) != 0)
        return rc;

    rip_cg_summary s;
    char err[RIP_ERR_LEN];
    rip_status st;
    if (tflite) {
        rip_cg_tflite_opts o = {.plan = (rip_cg_plan_kind)plan_ix, .arena = arena_given ? arena : 0, .name = name,
                                .inputs = inputs.v, .n_inputs = inputs.n};
        st = rip_codegen_tflite(graph, &o, dir->tmp, &s, err);
    } else {
        rip_cg_opts o = {.plan = (rip_cg_plan_kind)plan_ix, .arena = arena_given ? arena : 0, .seed = (uint64_t)seed};
        st = rip_codegen(graph, &o, dir->tmp, &s, err);
    }
    if (st != RIP_OK) {
        rip_out_set_abort(&set);
        fprintf(stderr, "ripsim codegen: %s\n", err);
        return rip_exit_status(st);
    }
    if ((rc = rip_out_set_commit(&set)) != 0)
        return rc;
    print_summary(&s, out, tflite);
    return rip_out_check_stdout("codegen");
}
