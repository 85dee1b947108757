/*
** cmd_execute.c — `ripsim execute SPEC`: one layer executed with the int8
** kernels, in place at a gap (default: the simulated truth) and in dual
** buffers, compared byte for byte, with the instrumented run's first read of
** an overwritten input.
**
** Output is a readable table by default and one JSON object with --json.
** The exit statuses are the table `exits` below (also printed by --help).
*/
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "evaluate.h"
#include "execute.h"
#include "layer_json.h"
#include "out.h"
#include "sim.h"
#include "spec.h"

static const char about[] =
    "Execute one convolution layer with the int8 kernels of firmware/kernels/ on\n"
    "random int8 input, weights, bias and requantization drawn from a seed: in\n"
    "place in one workspace (output left-aligned from 0, input GAP scalars above\n"
    "it) and in dual buffers, and compare the two outputs byte for byte.  The\n"
    "in-place run is the instrumented build: it also reports the first read of\n"
    "an input scalar that was already overwritten (or a write past the workspace).\n"
    "\n"
    "SPEC is the one word of 'ripsim layer' (see 'ripsim layer --help').\n";

static const char notes[] =
    "At GAP = the truth of CONFIG a correct kernel is bit-exact with no early\n"
    "overwrite.  At truth - 1 (truth > 0) the instrumented run catches one for\n"
    "the gather configurations; the taps kernels write each channel right after\n"
    "reading its taps and need a scalar less than the simulator's taps truth, so\n"
    "they are caught at truth - 2.\n"
    "JSON keys: layer (as 'ripsim layer --json'), config, gap, truth, bit_exact,\n"
    "early_overwrite (null, or {step, pixel_r, pixel_c, address}: step = output\n"
    "scalars written before the read), checksum (FNV-1a 32-bit of the dual-buffer\n"
    "output bytes, 8 hex digits).  Tensors: PCG32 stream (SEED ^ 0x5249505f45584543,\n"
    "0), the stream of layer 0 of 'ripsim sweep --execute --seed SEED'.\n"
    "A layer whose buffers exceed 256 MiB is refused.\n";

static const rip_exit_doc exits[] = {
    {0, "executed (below the truth, a mismatch or an overwrite is the expected finding)"},
    {1, "at a gap >= the truth, the in-place output differs or an early overwrite was caught"},
    {64, "bad command line"},
    {65, "bad SPEC (the message names the field), gap below 0 or above N_out, or a layer too large to "
         "simulate or execute"},
    {70, "internal error (a kernel refused the layer)"},
    {71, "out of memory"},
    {74, "output cannot be written"},
};

static const char *const configs[] = {"rip_padded_gather", "rip_padded_taps", "rip_dense_gather",
                                      "rip_dense_taps", NULL};

static void print_json(const rip_layer *L, rip_config e, int64_t truth, const rip_xrun *r, uint32_t sum)
{
    printf("{");
    rip_layer_json(stdout, L);
    printf(",\"config\":\"%s\",\"gap\":%lld,\"truth\":%lld,\"bit_exact\":%s,\"early_overwrite\":",
           rip_config_name(e), (long long)r->gap, (long long)truth, r->bit_exact ? "true" : "false");
    if (r->caught)
        printf("{\"step\":%lld,\"pixel_r\":%lld,\"pixel_c\":%lld,\"address\":%lld}", (long long)r->step,
               (long long)r->pixel_r, (long long)r->pixel_c, (long long)r->address);
    else
        printf("null");
    printf(",\"checksum\":\"%08x\"}\n", (unsigned)sum);
}

static void print_table(const rip_layer *L, rip_config e, int64_t truth, int64_t seed, const rip_xrun *r,
                        uint32_t sum)
{
    char spec[256];
    bool dense = e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS;
    bool gather = e == RIP_CONFIG_PADDED_GATHER || e == RIP_CONFIG_DENSE_GATHER;
    rip_spec_format(L, spec, sizeof spec);
    printf("layer      %s\n", spec);
    printf("config     %s (%s layout, %s)\n", rip_config_name(e), dense ? "dense" : "padded",
           gather ? "gather-first, sigma = 0" : "taps from the workspace, sigma = C_out");
    printf("gap        %lld scalars (truth %lld; workspace %lld = gap + %lld stored input)\n",
           (long long)r->gap, (long long)truth, (long long)r->workspace,
           (long long)(r->workspace - r->gap));
    printf("seed       %lld\n", (long long)seed);
    printf("dual       checksum %08x (FNV-1a 32-bit of the %lld output bytes)\n", (unsigned)sum,
           (long long)L->n_out);
    if (r->bit_exact)
        printf("in place   bit-exact: the output equals the dual-buffer output\n");
    else
        printf("in place   NOT bit-exact: %lld of %lld output bytes differ\n", (long long)r->differ,
               (long long)L->n_out);
    if (!r->caught)
        printf("checked    no early overwrite\n");
    else if (r->overflow)
        printf("checked    write past the workspace: address %lld >= %lld, output pixel (%lld, %lld), "
               "after %lld output scalars\n", (long long)r->address, (long long)r->workspace,
               (long long)r->pixel_r, (long long)r->pixel_c, (long long)r->step);
    else
        printf("checked    early overwrite: output pixel (%lld, %lld) read workspace address %lld after it "
               "was overwritten, after %lld output scalars\n", (long long)r->pixel_r, (long long)r->pixel_c,
               (long long)r->address, (long long)r->step);
}

int rip_cmd_execute(int argc, char **argv)
{
    bool json = false, gap_given = false;
    int config_ix = 2; /* rip_dense_gather, the deployed configuration */
    int64_t gap = 0, seed = 20261129;
    const char *spec = NULL;
    const rip_opt opts[] = {
        {.name = "--config", .kind = RIP_OPT_ENUM, .dest = &config_ix, .metavar = "C", .choices = configs,
         .help = "rip_padded_gather, rip_padded_taps, rip_dense_gather\n(default, the deployed one) or "
                 "rip_dense_taps"},
        {.name = "--gap", .kind = RIP_OPT_INT, .dest = &gap, .metavar = "N", .lo = INT64_MIN, .hi = INT64_MAX,
         .given = &gap_given, .help = "scalars between output start and input (default: the truth of C);\n"
                                      "0 <= N <= N_out"},
        {.name = "--seed", .kind = RIP_OPT_INT, .dest = &seed, .metavar = "S", .lo = 0, .hi = INT64_MAX,
         .help = "PCG32 seed of the tensors (default 20261129)"},
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &json, .flag_value = true,
         .help = "print one JSON object (keys in the notes below)"},
    };
    const rip_cmd cmd = {
        .name = "execute", .synopsis = "[--config C] [--gap N] [--seed S] [--json] SPEC", .about = about,
        .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = &spec, .min_pos = 1, .max_pos = 1,
        .missing = "missing SPEC", .notes = notes, .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim execute --gap 549 cin=1,cout=5,h=14,k=3   (truth 550: the overwrite is caught)",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    rip_config e = (rip_config)config_ix;

    char err[RIP_ERR_LEN];
    rip_layer L;
    if (rip_spec_parse(spec, &L, err) != 0 || rip_exec_size_ok(&L, err) != 0 ||
        rip_sim_size_ok(&L, RIP_ENGINE_FAST, err) != 0) {
        fprintf(stderr, "ripsim execute: %s\n", err);
        return RIP_EX_DATAERR;
    }
    if (gap_given && (gap < 0 || gap > L.n_out)) {
        fprintf(stderr, "ripsim execute: gap: must be in [0, N_out = %lld] (got %lld)\n", (long long)L.n_out,
                (long long)gap);
        return RIP_EX_DATAERR;
    }
    int64_t truth = 0;
    if (rip_sim_truth(&L, e, RIP_ENGINE_FAST, &truth) != 0) {
        fprintf(stderr, "ripsim execute: out of memory while simulating the layer\n");
        return RIP_EX_OSERR;
    }
    if (!gap_given)
        gap = truth;

    rip_pcg32 g;
    rip_exec_stream(&g, (uint64_t)seed, 0);
    rip_xlayer *x = NULL;
    rip_xrun r;
    rip_status s = rip_xlayer_new(&L, &g, &x, err);
    if (s == RIP_OK)
        s = rip_xlayer_run(x, e, gap, true, false, &r, err);
    uint32_t sum = x ? rip_xlayer_checksum(x) : 0;
    rip_xlayer_free(x);
    if (s != RIP_OK) {
        fprintf(stderr, "ripsim execute: %s\n", err);
        return rip_exit_status(s);
    }
    if (json)
        print_json(&L, e, truth, &r, sum);
    else
        print_table(&L, e, truth, seed, &r, sum);
    rc = rip_out_check_stdout("execute");
    if (rc == 0 && gap >= truth && (!r.bit_exact || r.caught)) {
        fprintf(stderr, "ripsim execute: at gap %lld >= truth %lld the in-place run %s\n", (long long)gap,
                (long long)truth, !r.bit_exact ? "is not bit-exact" : "read an overwritten input");
        rc = RIP_EX_FAIL;
    }
    return rc;
}
