/*
** cmd_layer.c — `ripsim layer SPEC`: one layer, every closed form beside the
** simulated truth that judges it.
**
** Output is a readable table by default and the DESIGN.md JSON object with
** --json.  Exit status: 0 when every defined formula was judged (whatever
** the verdicts: an unsafe verdict is a finding, not an error), 64 on a bad
** command line, 65 on a bad SPEC or a layer too large to simulate, 71 when
** memory runs out.
*/
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "evaluate.h"
#include "spec.h"

static const char usage_text[] =
    "usage: ripsim layer [--json] [--engine fast|plain] [--no-sim] SPEC\n"
    "\n"
    "Evaluate one convolution layer: every closed form of the RiP paper beside\n"
    "the simulated minimum gap (truth) it is judged against, with its verdict\n"
    "(unsafe < truth, tight = truth, loose > truth, n/a where undefined).\n"
    "\n"
    "SPEC is one word of comma-separated key=value items:\n"
    "  cin=5,cout=8,h=12,w=12,k=3,s=1,d=1,p=0\n"
    "  cin, cout, h, k are required; w defaults to h, s and d to 1, p to 0.\n"
    "  k, s, d, p take A or AxB (height x width); p is symmetric.\n"
    "  pt=, pb=, pl=, pr= set the top/bottom/left/right padding one by one\n"
    "  (they override p= for their side).\n"
    "\n"
    "options:\n"
    "  --json           print one JSON object (keys: layer, truth, formulas)\n"
    "  --engine E       simulator engine: fast (default, per pixel) or plain\n"
    "                   (per scalar, slow; same answers)\n"
    "  --no-sim         closed forms only (truths null, verdicts n/a)\n"
    "  -h, --help       this help\n"
    "\n"
    "Gaps and truths are in scalars (activation elements).  Exit status: 0 ok,\n"
    "64 usage error, 65 bad SPEC or layer too large, 71 out of memory.\n"
    "Example: ripsim layer cin=1,cout=5,h=14,k=3   (paper Tab. 2, first row)\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "ripsim layer: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'ripsim layer --help'.\n");
    return RIP_EX_USAGE;
}

static int64_t stored_input(const rip_layer *L, rip_exec e)
{
    return (e == RIP_EXEC_DENSE_GATHER || e == RIP_EXEC_DENSE_TAPS) ? L->n_in_dense : L->n_in_padded;
}

static void print_json(const rip_layer *L, const rip_eval *ev, bool with_sim)
{
    printf("{\"layer\":{\"cin\":%lld,\"cout\":%lld,\"h_in\":%lld,\"w_in\":%lld,"
           "\"k_h\":%lld,\"k_w\":%lld,\"s_h\":%lld,\"s_w\":%lld,\"d_h\":%lld,\"d_w\":%lld,"
           "\"p_h\":%lld,\"p_w\":%lld,\"h_out\":%lld,\"w_out\":%lld,"
           "\"p_top\":%lld,\"p_bottom\":%lld,\"p_left\":%lld,\"p_right\":%lld},",
           (long long)L->cin, (long long)L->cout, (long long)L->h_in, (long long)L->w_in,
           (long long)L->k_h, (long long)L->k_w, (long long)L->s_h, (long long)L->s_w,
           (long long)L->d_h, (long long)L->d_w, (long long)L->p_top, (long long)L->p_left,
           (long long)L->h_out, (long long)L->w_out, (long long)L->p_top,
           (long long)L->p_bottom, (long long)L->p_left, (long long)L->p_right);
    printf("\"truth\":{");
    for (int e = 0; e < RIP_EXEC_COUNT; e++) {
        printf("%s\"%s\":", e ? "," : "", rip_exec_name((rip_exec)e));
        if (with_sim)
            printf("%lld", (long long)ev->truth[e]);
        else
            printf("null");
    }
    printf("},\"formulas\":{");
    for (size_t i = 0; i < ev->n_formulas; i++) {
        printf("%s\"%s\":", i ? "," : "", ev->info[i].name);
        if (ev->defined[i])
            printf("%lld", (long long)ev->value[i]);
        else
            printf("null");
    }
    printf("}}\n");
}

static void print_table(const rip_layer *L, const rip_eval *ev, bool with_sim, rip_engine engine)
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
        printf("truth (minimum gap by binary search, %s simulator)\n",
               engine == RIP_ENGINE_FAST ? "fast" : "plain");
        printf("  %-26s %14s %16s\n", "execution config", "gap", "workspace");
        for (int e = 0; e < RIP_EXEC_COUNT; e++)
            printf("  %-26s %14lld %16lld\n", rip_exec_name((rip_exec)e), (long long)ev->truth[e],
                   (long long)(ev->truth[e] + stored_input(L, (rip_exec)e)));
        printf("\n");
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
    bool json = false, with_sim = true, opts_done = false;
    rip_engine engine = RIP_ENGINE_FAST;
    const char *spec = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!opts_done && a[0] == '-' && a[1] != '\0') {
            if (strcmp(a, "--") == 0) {
                opts_done = true;
            } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                fputs(usage_text, stdout);
                return RIP_EX_OK;
            } else if (strcmp(a, "--json") == 0) {
                json = true;
            } else if (strcmp(a, "--no-sim") == 0) {
                with_sim = false;
            } else if (strcmp(a, "--engine") == 0 || strncmp(a, "--engine=", 9) == 0) {
                const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
                if (v == NULL)
                    return usage_error("option '%s' needs a value (fast or plain)", a);
                if (strcmp(v, "fast") == 0)
                    engine = RIP_ENGINE_FAST;
                else if (strcmp(v, "plain") == 0)
                    engine = RIP_ENGINE_PLAIN;
                else
                    return usage_error("--engine takes fast or plain, not '%s'", v);
            } else {
                return usage_error("unknown option '%s'", a);
            }
        } else if (spec == NULL) {
            spec = a;
        } else {
            return usage_error("one SPEC only; unexpected argument '%s'", a);
        }
    }
    if (spec == NULL)
        return usage_error("%s", "missing SPEC");

    char err[RIP_ERR_LEN];
    rip_layer L;
    if (rip_spec_parse(spec, &L, err) != 0) {
        fprintf(stderr, "ripsim layer: %s\n", err);
        return RIP_EX_DATAERR;
    }
    rip_eval ev;
    if (rip_evaluate(&L, engine, with_sim, &ev, err) != 0) {
        fprintf(stderr, "ripsim layer: %s\n", err);
        return strstr(err, "out of memory") ? RIP_EX_OSERR : RIP_EX_DATAERR;
    }
    if (json)
        print_json(&L, &ev, with_sim);
    else
        print_table(&L, &ev, with_sim, engine);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ripsim layer: cannot write output\n");
        return RIP_EX_IOERR;
    }
    return RIP_EX_OK;
}
