/*
** cmd_layer.c — `ripsim layer SPEC...`: each layer, every closed form beside
** the simulated truth that judges it.  The layers come from SPECs on the
** command line, from standard input (SPEC "-": one per line), or from a
** sweep database (--db DB IDX...: the stored layers by their index, read
** through the database's spec column).
**
** Output is a readable table per layer by default and one JSON object per
** line with --json.  The exit statuses are the table `exits` below (also
** printed by --help).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "db.h"
#include "evaluate.h"
#include "layer_json.h"
#include "out.h"
#include "progress_line.h"
#include "spec.h"

static const char about[] =
    "Evaluate convolution layers: every closed form of the RiP paper beside\n"
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
    "The names of the database, of --json and of layer CSV files are read as\n"
    "aliases, so a row of any of them pastes back (KEY: ALIAS):\n"
    "  cin: c_in   cout: c_out   h: h_in   w: w_in\n"
    "  k: k_h, k_w (one side each)   s: s_h, s_w   d: d_h, d_w\n"
    "  p: p_h (top and bottom), p_w (left and right)\n"
    "  pt: p_top   pb: p_bottom   pl: p_left   pr: p_right\n"
    "A width side defaults to its height side (k_h=3 alone is k=3).  A field\n"
    "given twice, under one name or two, must have the same value; a column\n"
    "that follows from the others (h_out, n_out, ...) is refused.  The canonical\n"
    "form, which the table prints and the database's spec column holds, uses\n"
    "the first names only.\n"
    "\n"
    "SPEC \"-\" reads SPECs from standard input, one per line (blank lines and\n"
    "lines starting with # skipped), e.g. sqlite3 DB 'select spec from layers'.\n"
    "With --db DB the words are layer indices (layer_idx) of that sweep\n"
    "database, each evaluated from its stored geometry.\n";

static const char notes[] =
    "Gaps and truths are in scalars (activation elements).  When stderr is a\n"
    "terminal, the configuration being simulated is shown there.  Several\n"
    "layers print one table each, separated by a blank line, or with --json\n"
    "one object per line (with --db, its first key is layer_idx).  The first\n"
    "bad SPEC or index stops the command.\n";

static const rip_exit_doc exits[] = {
    {0, "evaluated (an unsafe verdict is a finding, not an error)"},
    {64, "bad command line"},
    {65, "bad SPEC (the message names the field), a layer too large to simulate, a layer\n"
         "index the database does not hold, or a database that fails its check"},
    {66, "the database of --db is missing or unreadable"},
    {70, "internal error (the simulator contradicted itself; never a truth)"},
    {71, "out of memory"},
    {74, "output cannot be written, or standard input cannot be read"},
    {75, "the database of --db is locked by another process (try again)"},
};

static const char *const engines[] = {"fast", "plain", NULL};

/* The input scalars configuration e stores (its workspace is gap + this). */
static int64_t stored_input(const rip_layer *L, const rip_eval *ev, rip_config e)
{
    if (e == RIP_CONFIG_HB_PRUNED)
        return ev->n_in_read;
    return (e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS) ? L->n_in_dense : L->n_in_padded;
}

static void print_json(const rip_layer *L, const rip_eval *ev, bool with_sim, int64_t idx)
{
    printf("{");
    if (idx >= 0)
        printf("\"layer_idx\":%lld,", (long long)idx);
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

/* The command line of `ripsim layer`. */
typedef struct layer_args {
    bool json, no_sim, bisect;
    int engine_ix;
    const char *db;
    const char *pos[4096];
    size_t n_pos;
    int shown;   /* layers printed so far (a blank line between tables) */
} layer_args;

/* Evaluate and print layer L (idx: its stored index, or -1); 0 or an exit status. */
static int run_one(layer_args *a, const rip_layer *L, int64_t idx)
{
    char err[RIP_ERR_LEN];
    rip_eval ev;
    rip_progress pr;
    bool with_sim = !a->no_sim;
    rip_engine engine = a->engine_ix == 0 ? RIP_ENGINE_FAST : RIP_ENGINE_PLAIN;
    rip_progress_init(&pr, "layer", "configs", true);
    rip_progress_cb cb = rip_progress_callback(&pr);
    rip_progress_tick(&pr);
    int rc = rip_evaluate_search(L, engine, a->bisect ? RIP_SEARCH_BISECT : RIP_SEARCH_BRACKET, with_sim, &ev,
                                 &cb, err);
    rip_progress_end(&pr);
    if (rc != 0) {
        fprintf(stderr, "ripsim layer: %s\n", err);
        return strstr(err, "out of memory")    ? RIP_EX_OSERR
               : strstr(err, "internal error") ? RIP_EX_SOFTWARE
                                               : RIP_EX_DATAERR;
    }
    if (a->json) {
        print_json(L, &ev, with_sim, idx);
    } else {
        if (a->shown > 0)
            printf("\n");
        if (idx >= 0)
            printf("layer_idx  %lld of %s\n", (long long)idx, a->db);
        print_table(L, &ev, with_sim, engine, a->bisect);
    }
    a->shown++;
    return 0;
}

/* Parse spec (where: how to name it in a message) and run it; 0 or an exit status. */
static int run_spec(layer_args *a, const char *spec, const char *where, int64_t idx)
{
    char err[RIP_ERR_LEN];
    rip_layer L;
    if (rip_spec_parse(spec, &L, err) != 0) {
        fprintf(stderr, "ripsim layer: %s%s\n", where, err);
        return RIP_EX_DATAERR;
    }
    return run_one(a, &L, idx);
}

/* SPECs from standard input, one per line; 0 or the first failure's exit status. */
static int run_stdin(layer_args *a)
{
    char *line = NULL, where[64];
    size_t cap = 0;
    long n = 0;
    int rc = 0;
    ssize_t len;
    while (rc == 0 && (len = getline(&line, &cap, stdin)) >= 0) {
        n++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        snprintf(where, sizeof where, "standard input, line %ld: ", n);
        rc = run_spec(a, line, where, -1);
    }
    if (rc == 0 && ferror(stdin)) {
        fprintf(stderr, "ripsim layer: cannot read standard input\n");
        rc = RIP_EX_IOERR;
    }
    free(line);
    return rc;
}

/* The layers of a->db by their index (a->pos), through its spec column; 0 or an exit status. */
static int run_db(layer_args *a)
{
    char err[RIP_ERR_LEN], where[96];
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = rip_exit_status(rip_db_open_read(a->db, &db, err));
    if (rc != 0) {
        fprintf(stderr, "ripsim layer: %s\n", err);
        return rc;
    }
    if (sqlite3_prepare_v2(db, "SELECT spec FROM layers WHERE layer_idx = ?", -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "ripsim layer: %s: %s\n", a->db, sqlite3_errmsg(db));
        rc = RIP_EX_SOFTWARE;
    }
    for (size_t i = 0; rc == 0 && i < a->n_pos; i++) {
        char *end = NULL;
        long long idx = strtoll(a->pos[i], &end, 10);
        if (end == a->pos[i] || *end != '\0' || idx < 0) {
            fprintf(stderr, "ripsim layer: --db: '%.60s' is not a layer index (an integer >= 0)\n", a->pos[i]);
            rc = RIP_EX_USAGE;
            break;
        }
        sqlite3_bind_int64(st, 1, idx);
        if (sqlite3_step(st) != SQLITE_ROW) {
            fprintf(stderr, "ripsim layer: %s holds no layer %lld\n", a->db, idx);
            rc = RIP_EX_DATAERR;
        } else {
            snprintf(where, sizeof where, "layer %lld: ", idx);
            rc = run_spec(a, (const char *)sqlite3_column_text(st, 0), where, idx);
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    rip_db_close(db);
    return rc;
}

int rip_cmd_layer(int argc, char **argv)
{
    layer_args a = {0};
    const rip_opt opts[] = {
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &a.json, .flag_value = true,
         .help = "print one JSON object per layer and line (keys: layer, truth,\nn_in_read, formulas)"},
        {.name = "--db", .kind = RIP_OPT_STR, .dest = &a.db, .metavar = "DB",
         .help = "the words are layer indices of this sweep database"},
        {.name = "--engine", .kind = RIP_OPT_ENUM, .dest = &a.engine_ix, .metavar = "E", .choices = engines,
         .help = "simulator engine: fast (default, per pixel) or plain\n(per scalar, slow; same answers)"},
        {.name = "--no-sim", .kind = RIP_OPT_FLAG, .dest = &a.no_sim, .flag_value = true,
         .help = "closed forms only (truths null, verdicts n/a)"},
        {.name = "--full-bisection", .kind = RIP_OPT_FLAG, .dest = &a.bisect, .flag_value = true,
         .help = "find each truth by binary search over [0, N_out] instead of\n"
                 "the one-pass gap confirmed by two runs (same truths, slower)"},
    };
    const rip_cmd cmd = {
        .name = "layer",
        .synopsis = "[--json] [--engine fast|plain] [--no-sim] [--full-bisection] SPEC...\n"
                    "[--json] [...] -                 (SPECs from standard input)\n"
                    "[--json] [...] --db DB IDX...    (stored layers by index)",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = a.pos, .min_pos = 1,
        .max_pos = sizeof a.pos / sizeof a.pos[0], .n_pos = &a.n_pos, .missing = "missing SPEC", .notes = notes,
        .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim layer cin=1,cout=5,h=14,k=3   (paper Tab. 2, first row)",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if (a.db) {
        rc = run_db(&a);
    } else {
        for (size_t i = 0; rc <= 0 && i < a.n_pos; i++)
            rc = strcmp(a.pos[i], "-") == 0 ? run_stdin(&a) : run_spec(&a, a.pos[i], "", -1);
    }
    if (rc > 0)
        return rc;
    return rip_out_check_stdout("layer");
}
