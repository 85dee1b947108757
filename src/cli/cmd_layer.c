/*
** cmd_layer.c — `ripsim layer SPEC`: one layer, every closed form beside the
** simulated truth that judges it.
**
** Output is a readable table by default and one JSON object with --json.
** The exit statuses are the table `exits` below (also printed by --help).
*/
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "evaluate.h"
#include "layer_json.h"
#include "out.h"
#include "progress_line.h"
#include "spec.h"

static const char about[] =
    "Evaluate one convolution layer: every closed form of the RiP paper beside\n"
    "the simulated minimum gap (truth) it is judged against, with its verdict\n"
    "(unsafe < truth, tight = truth, loose > truth, n/a where undefined).\n"
    "\n"
    "SPEC is one word of comma-separated key=value items:\n"
    "  cin=5,cout=8,h=12,w=12,k=3,s=1,d=1,p=0\n"
    "  cin, cout, h, k are required; w defaults to h, s and d to 1, p to 0.\n"
    "  k, s, d, p take A or AxB (height x width); p is symmetric.\n"
    "  pt=, pb=, pl=, pr= set the top/bottom/left/right padding one by one\n"
    "  (they override p= for their side).\n";

static const char notes[] =
    "Gaps and truths are in scalars (activation elements).  When stderr is a\n"
    "terminal, the configuration being simulated is shown there.\n";

static const rip_exit_doc exits[] = {
    {0, "evaluated (an unsafe verdict is a finding, not an error)"},
    {64, "bad command line"},
    {65, "bad SPEC (the message names the field) or a layer too large to simulate"},
    {70, "internal error (the simulator contradicted itself; never a truth)"},
    {71, "out of memory"},
    {74, "output cannot be written"},
};

static const char *const engines[] = {"fast", "plain", NULL};

/* The input scalars configuration e stores (its workspace is gap + this). */
static int64_t stored_input(const rip_layer *L, const rip_eval *ev, rip_config e)
{
    if (e == RIP_CONFIG_HB_PRUNED)
        return ev->n_in_read;
    return (e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS) ? L->n_in_dense : L->n_in_padded;
}

static void print_json(const rip_layer *L, const rip_eval *ev, bool with_sim)
{
    printf("{");
    rip_layer_json(stdout, L);
    printf(",");
    printf("\"truth\":{");
    for (int e = 0; e < RIP_CONFIG_COUNT; e++) {
        printf("%s\"%s\":", e ? "," : "", rip_config_name((rip_config)e));
        if (with_sim)
            printf("%lld", (long long)ev->truth[e]);
        else
            printf("null");
    }
    if (with_sim)
        printf("},\"n_in_read\":%lld,\"formulas\":{", (long long)ev->n_in_read);
    else
        printf("},\"n_in_read\":null,\"formulas\":{");
    for (size_t i = 0; i < ev->n_formulas; i++) {
        printf("%s\"%s\":", i ? "," : "", ev->info[i].name);
        if (ev->defined[i])
            printf("%lld", (long long)ev->value[i]);
        else
            printf("null");
    }
    printf("}}\n");
}

static void print_table(const rip_layer *L, const rip_eval *ev, bool with_sim, rip_engine engine, bool bisect)
{
    char spec[256];
    rip_spec_format(L, spec, sizeof spec);
    printf("layer      %s\n", spec);
    printf("geometry   %lldx%lldx%lld -> %lldx%lldx%lld   padded input %lldx%lld   "
           "k_eff %lldx%lld   pad t/b/l/r %lld/%lld/%lld/%lld\n",
           (long long)L->h_in, (long long)L->w_in, (long long)L->cin, (long long)L->h_out,
           (long long)L->w_out, (long long)L->cout, (long long)L->h_p, (long long)L->w_p,
           (long long)L->keff_h, (long long)L->keff_w, (long long)L->p_top,
           (long long)L->p_bottom, (long long)L->p_left, (long long)L->p_right);
    printf("restricted %s (Gural & Murmann: p=0, s=d=1, odd square k, square input)\n",
           rip_layer_is_restricted(L) ? "yes" : "no");
    printf("sizes      N_in padded %lld, N_in dense %lld, N_out %lld scalars\n\n",
           (long long)L->n_in_padded, (long long)L->n_in_dense, (long long)L->n_out);

    if (with_sim) {
        printf("truth (minimum gap, %s, %s simulator)\n",
               bisect ? "by binary search" : "one pass confirmed by runs at g and g - 1",
               engine == RIP_ENGINE_FAST ? "fast" : "plain");
        printf("  %-26s %14s %16s\n", "execution config", "gap", "workspace");
        for (int e = 0; e < RIP_CONFIG_COUNT; e++)
            printf("  %-26s %14lld %16lld\n", rip_config_name((rip_config)e), (long long)ev->truth[e],
                   (long long)(ev->truth[e] + stored_input(L, ev, (rip_config)e)));
        printf("  (herringbone_pruned stores only the %lld input scalars some tap reads, App. E.3)\n\n",
               (long long)ev->n_in_read);
    }
    printf("closed forms\n");
    printf("  %-16s %-40s %14s  %-24s %14s  %s\n", "formula", "paper", "value", "judged against",
           "truth", "verdict");
    for (size_t i = 0; i < ev->n_formulas; i++) {
        const rip_formula_info *f = &ev->info[i];
        char val[32] = "-", tru[32] = "-", verdict[48];
        if (ev->defined[i])
            snprintf(val, sizeof val, "%lld", (long long)ev->value[i]);
        int j = ev->judged_by[i];
        if (j >= 0 && with_sim)
            snprintf(tru, sizeof tru, "%lld", (long long)ev->truth[j]);
        snprintf(verdict, sizeof verdict, "%s", rip_verdict_name(ev->verdict[i]));
        if (ev->verdict[i] == RIP_UNSAFE || ev->verdict[i] == RIP_LOOSE)
            snprintf(verdict, sizeof verdict, "%s (%+lld)", rip_verdict_name(ev->verdict[i]),
                     (long long)(ev->value[i] - ev->truth[j]));
        if (f->is_workspace)
            snprintf(verdict, sizeof verdict, "n/a (a workspace, not a gap)");
        printf("  %-16s %-40s %14s  %-24s %14s  %s\n", f->name, f->paper, val,
               f->judged_by ? f->judged_by : "-", tru, verdict);
    }
}

int rip_cmd_layer(int argc, char **argv)
{
    bool json = false, no_sim = false, bisect = false;
    int engine_ix = 0;
    const char *spec = NULL;
    const rip_opt opts[] = {
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &json, .flag_value = true,
         .help = "print one JSON object (keys: layer, truth, n_in_read, formulas)"},
        {.name = "--engine", .kind = RIP_OPT_ENUM, .dest = &engine_ix, .metavar = "E", .choices = engines,
         .help = "simulator engine: fast (default, per pixel) or plain\n(per scalar, slow; same answers)"},
        {.name = "--no-sim", .kind = RIP_OPT_FLAG, .dest = &no_sim, .flag_value = true,
         .help = "closed forms only (truths null, verdicts n/a)"},
        {.name = "--full-bisection", .kind = RIP_OPT_FLAG, .dest = &bisect, .flag_value = true,
         .help = "find each truth by binary search over [0, N_out] instead of\n"
                 "the one-pass gap confirmed by two runs (same truths, slower)"},
    };
    const rip_cmd cmd = {
        .name = "layer", .synopsis = "[--json] [--engine fast|plain] [--no-sim] [--full-bisection] SPEC", .about = about,
        .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = &spec, .min_pos = 1, .max_pos = 1,
        .missing = "missing SPEC", .notes = notes, .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim layer cin=1,cout=5,h=14,k=3   (paper Tab. 2, first row)",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    bool with_sim = !no_sim;
    rip_engine engine = engine_ix == 0 ? RIP_ENGINE_FAST : RIP_ENGINE_PLAIN;

    char err[RIP_ERR_LEN];
    rip_layer L;
    if (rip_spec_parse(spec, &L, err) != 0) {
        fprintf(stderr, "ripsim layer: %s\n", err);
        return RIP_EX_DATAERR;
    }
    rip_eval ev;
    rip_progress pr;
    rip_progress_init(&pr, "layer", "configs", true);
    rip_progress_cb cb = rip_progress_callback(&pr);
    rip_progress_tick(&pr);
    rc = rip_evaluate_search(&L, engine, bisect ? RIP_SEARCH_BISECT : RIP_SEARCH_BRACKET, with_sim, &ev, &cb,
                             err);
    rip_progress_end(&pr);
    if (rc != 0) {
        fprintf(stderr, "ripsim layer: %s\n", err);
        return strstr(err, "out of memory")    ? RIP_EX_OSERR
               : strstr(err, "internal error") ? RIP_EX_SOFTWARE
                                               : RIP_EX_DATAERR;
    }
    if (json)
        print_json(&L, &ev, with_sim);
    else
        print_table(&L, &ev, with_sim, engine, bisect);
    return rip_out_check_stdout("layer");
}
