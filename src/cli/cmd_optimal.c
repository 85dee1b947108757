/*
** cmd_optimal.c — `ripsim optimal SPEC`: the traversal-optimal gap of one
** layer (the smallest herringbone_taps_reader gap over every visiting order
** of the output pixels, sim/optimum.h) beside the six simulated truths.
**
** Table by default; --json prints one object
**   {"layer":{...as ripsim layer...},"optimum":{"gap":G,"order":[...]},
**    "truth":{...six configurations...}}
** with order the pixel indices r*w_out + c in visit order.
*/
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "cli.h"
#include "layer_json.h"
#include "optimum.h"
#include "out.h"
#include "sim.h"
#include "spec.h"

static const char about[] =
    "The traversal-optimal minimum of one layer: the smallest herringbone_taps_reader\n"
    "gap (count-based pool, each input released after its last reader) over every\n"
    "visiting order of the output pixels, found by exact search (dynamic programming\n"
    "over the sets of produced pixels), with an order that attains it.  The order is\n"
    "run by the simulator: it completes at the optimum and fails one scalar below.\n"
    "\n"
    "SPEC as for `ripsim layer` (cin=1,cout=5,h=6,k=3,...).\n";

static const char notes[] =
    "The search keeps 2^P states for P = h_out*w_out output pixels (P = 25: 130\n"
    "to 200 MiB and seconds); larger grids are refused (--max-pixels, at most 30).\n";

static const rip_exit_doc exits[] = {
    {0, "solved"},
    {64, "bad command line"},
    {65, "bad SPEC, or an output grid larger than --max-pixels"},
    {70, "internal error (the simulator did not confirm the order; never printed as an optimum)"},
    {71, "out of memory"},
    {74, "output cannot be written"},
};

static void print_json(const rip_layer *L, const rip_optimum *o, const int64_t *truth)
{
    printf("{");
    rip_layer_json(stdout, L);
    printf(",\"optimum\":{\"gap\":%lld,\"order\":[", (long long)o->gap);
    for (int64_t t = 0; t < o->n_pix; t++)
        printf("%s%lld", t ? "," : "", (long long)o->order[t]);
    printf("]},\"truth\":{");
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        printf("%s\"%s\":%lld", e ? "," : "", rip_config_name((rip_config)e), (long long)truth[e]);
    printf("}}\n");
}

static void print_table(const rip_layer *L, const rip_optimum *o, const int64_t *truth, double secs)
{
    char spec[256];
    rip_spec_format(L, spec, sizeof spec);
    printf("layer      %s\n", spec);
    printf("grid       %lldx%lld output pixels (%lld), cin %lld, cout %lld\n\n", (long long)L->h_out,
           (long long)L->w_out, (long long)o->n_pix, (long long)L->cin, (long long)L->cout);
    printf("optimum    %lld   (workspace %lld)\n", (long long)o->gap, (long long)(o->gap + L->n_in_padded));
    printf("bounds     live-bytes lower %lld, herringbone order %lld, row-major order %lld\n",
           (long long)o->lower, (long long)o->hb_gap, (long long)o->row_gap);
    printf("search     %lld subsets evaluated, %.2f s\n\n", (long long)o->states, secs);
    printf("optimal order (visit step of each output pixel):\n");
    int64_t step[RIP_OPTIMUM_MAX_PIXELS];
    for (int64_t t = 0; t < o->n_pix; t++)
        step[o->order[t]] = t;
    for (int64_t r = 0; r < L->h_out; r++) {
        printf(" ");
        for (int64_t c = 0; c < L->w_out; c++)
            printf(" %3lld", (long long)step[r * L->w_out + c]);
        printf("\n");
    }
    printf("\ntruth (simulated, fixed orders)\n");
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        printf("  %-26s %14lld%s\n", rip_config_name((rip_config)e), (long long)truth[e],
               e == RIP_CONFIG_HB_TAPS_READER ? (truth[e] == o->gap ? "   = optimum" : "   > optimum") : "");
}

int rip_cmd_optimal(int argc, char **argv)
{
    bool json = false;
    int64_t max_pixels = RIP_OPTIMUM_DEFAULT_PIXELS;
    const char *spec = NULL;
    const rip_opt opts[] = {
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &json, .flag_value = true,
         .help = "print one JSON object (keys: layer, optimum, truth)"},
        {.name = "--max-pixels", .kind = RIP_OPT_INT, .dest = &max_pixels, .metavar = "P", .lo = 1,
         .hi = RIP_OPTIMUM_MAX_PIXELS,
         .help = "refuse output grids of more than P pixels (default 25, at most 30;\n"
                 "memory and time double with every pixel)"},
    };
    const rip_cmd cmd = {
        .name = "optimal", .synopsis = "[--json] [--max-pixels P] SPEC", .about = about, .opts = opts,
        .n_opts = sizeof opts / sizeof opts[0], .pos = &spec, .min_pos = 1, .max_pos = 1, .missing = "missing SPEC",
        .notes = notes, .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim optimal cin=1,cout=5,h=6,k=3",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;

    char err[RIP_ERR_LEN];
    rip_layer L;
    if (rip_spec_parse(spec, &L, err) != 0) {
        fprintf(stderr, "ripsim optimal: %s\n", err);
        return RIP_EX_DATAERR;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rip_optimum o;
    rip_status st = rip_optimum_search(&L, max_pixels, &o, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != RIP_OK) {
        fprintf(stderr, "ripsim optimal: %s\n", err);
        return rip_exit_status(st);
    }
    int64_t truth[RIP_CONFIG_COUNT];
    if (rip_sim_truths(&L, RIP_ENGINE_FAST, RIP_SEARCH_BRACKET, truth, NULL, NULL, err) != 0) {
        rip_optimum_free(&o);
        fprintf(stderr, "ripsim optimal: %s\n", err);
        return strstr(err, "internal error") ? RIP_EX_SOFTWARE : RIP_EX_OSERR;
    }
    if (json)
        print_json(&L, &o, truth);
    else
        print_table(&L, &o, truth, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    rip_optimum_free(&o);
    return rip_out_check_stdout("optimal");
}
