/*
** claims_data.c — the tables the claims registry queries besides the sweep
** database, built into an in-memory SQLite database (claims.h):
**
**   real_all  every channel-mixing layer of every table in sweeps/layers/
**             (network = the file's stem), closed forms, simulated truths
**             and the Sec. 5.3 workspaces of compare.h;
**   tab6      the same columns for the 76 layers Tab. 6 selects
**             (table6.h's selection), network '(Tab. 6)';
**   paper     the layers the paper names in its text (Tab. 2, the Sec. 3.1
**             and App. F.4 examples, the two App. I layers), network = a tag;
**   plans     the eleven MCUNet models of Tab. 3 under the planner's
**             strategies, beside the paper's Tab. 3 figures;
**   mcunet    the same columns for every conv2d and pointwise op of those
**             eleven graphs (network = the graph, name = op<id>).
**
** Nothing here decides a verdict: the registry's SQL does (claims_registry.c).
*/
#include "claims.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "graph.h"
#include "optimum.h"
#include "paper_data.h"
#include "layer_csv.h"
#include "paper_tables.h"
#include "spec.h"
#include "table6.h"

/* Columns shared by real_all, tab6 and paper (CREATE TABLE body). */
static const char layer_cols[] =
    "network TEXT, name TEXT, cin INT, cout INT, h_in INT, w_in INT, k_h INT, k_w INT, s_h INT, s_w INT,"
    " d_h INT, d_w INT, p_top INT, p_bottom INT, p_left INT, p_right INT, h_out INT, w_out INT,"
    " n_in_padded INT, n_in_dense INT, n_out INT, restricted INT,"
    " rip_padded_gather INT, rip_padded_taps INT, rip_dense_gather INT, rip_dense_taps INT,"
    " herringbone_taps INT, herringbone_taps_reader INT, herringbone_pruned INT,"
    " gm2019_eq1 INT, corollary1 INT, thm11 INT, thm4_gather INT, thm4_taps INT, thm13_gather INT,"
    " thm13_taps INT, naive_workspace INT,"
    " w_naive INT, w_hb INT, w_rip INT, w_rip_col INT, w_rip_col_truth INT, w_dense INT, spec TEXT, size INT";
enum { N_LAYER_COLS = 45 };

static rip_status sql_exec(sqlite3 *db, const char *sql, char err[RIP_ERR_LEN])
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "claims: %.300s", msg ? msg : "sqlite error");
        sqlite3_free(msg);
        return RIP_S_INTERNAL;
    }
    return RIP_OK;
}

/* Value of the formula named `name` in ev, or SQL NULL when undefined. */
static void bind_formula(sqlite3_stmt *st, int col, const rip_eval *ev, const char *name)
{
    for (size_t f = 0; f < ev->n_formulas; f++)
        if (strcmp(ev->info[f].name, name) == 0) {
            if (ev->defined[f])
                sqlite3_bind_int64(st, col, ev->value[f]);
            else
                sqlite3_bind_null(st, col);
            return;
        }
    sqlite3_bind_null(st, col);
}

/*
** Evaluate L (closed forms, truths, compare.h's workspaces) and insert one
** row into the prepared INSERT st.  RIP_OK, or RIP_S_DATA (too large to
** simulate) / RIP_S_INTERNAL with err.
*/
static rip_status insert_layer(sqlite3_stmt *st, const char *network, const char *name, const rip_layer *L,
                               char err[RIP_ERR_LEN])
{
    rip_compare c;
    if (rip_compare_layer(L, RIP_ENGINE_FAST, true, &c, err) != 0)
        return RIP_S_DATA;
    static const char *const forms[] = {"gm2019_eq1", "corollary1", "thm11", "thm4_gather", "thm4_taps",
                                        "thm13_gather", "thm13_taps", "naive_workspace"};
    const int64_t geo[] = {L->cin, L->cout, L->h_in, L->w_in, L->k_h, L->k_w, L->s_h, L->s_w, L->d_h, L->d_w,
                           L->p_top, L->p_bottom, L->p_left, L->p_right, L->h_out, L->w_out,
                           L->n_in_padded, L->n_in_dense, L->n_out, rip_layer_is_restricted(L)};
    int col = 1;
    sqlite3_reset(st);
    sqlite3_bind_text(st, col++, network, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, col++, name, -1, SQLITE_TRANSIENT);
    for (size_t i = 0; i < sizeof geo / sizeof geo[0]; i++)
        sqlite3_bind_int64(st, col++, geo[i]);
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)   /* the columns above, in rip_config order */
        sqlite3_bind_int64(st, col++, c.ev.truth[e]);
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
        bind_formula(st, col++, &c.ev, forms[f]);
    const int64_t w[] = {c.w_naive, c.w_hb, c.w_rip, c.w_rip_col, c.T.n_in_padded + c.col_gap_truth};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        sqlite3_bind_int64(st, col++, w[i]);
    if (c.w_dense >= 0)
        sqlite3_bind_int64(st, col++, c.w_dense);
    else
        sqlite3_bind_null(st, col++);
    char spec[256];
    rip_spec_format(L, spec, sizeof spec);
    sqlite3_bind_text(st, col++, spec, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, col++, L->n_in_dense + L->n_out);
    if (sqlite3_step(st) != SQLITE_DONE) {
        snprintf(err, RIP_ERR_LEN, "claims: cannot store layer %.100s", name);
        return RIP_S_INTERNAL;
    }
    return RIP_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .csv of dir, sorted by name, into real_all (channel-mixing rows). */
static rip_status load_real_all(sqlite3_stmt *st, const char *dir, char err[RIP_ERR_LEN])
{
    rip_status s = RIP_OK;
    char **names = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, RIP_ERR_LEN, "%.300s: cannot open the layer tables", dir);
        return RIP_S_NOINPUT;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".csv") != 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                s = RIP_S_NOMEM;
                goto done;
            }
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name))) {
            s = RIP_S_NOMEM;
            goto done;
        }
        n++;
    }
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n && s == RIP_OK; i++) {
        char path[4096], stem[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(names[i]) - 4), names[i]);
        FILE *f = fopen(path, "r");
        if (!f) {
            snprintf(err, RIP_ERR_LEN, "%.300s: cannot open", path);
            s = RIP_S_NOINPUT;
            break;
        }
        rip_layer_table t = {0};
        s = rip_layer_csv_read(f, path, false, NULL, &t, err);
        fclose(f);
        for (size_t r = 0; r < t.n && s == RIP_OK; r++)
            if (t.rows[r].groups == 1)
                s = insert_layer(st, stem, t.rows[r].name, &t.rows[r].L, err);
        rip_layer_table_free(&t);
    }
done:
    if (s == RIP_S_NOMEM)
        snprintf(err, RIP_ERR_LEN, "out of memory");
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return s;
}

/* The layers the paper names in its text, by tag: Tab. 2's (paper_data.h)
** first. */
#define TAB2_LAYER(lim, cin, cout, k, hw, xs, eq1, truth, err, tag) \
    {tag, "cin=" #cin ",cout=" #cout ",h=" #hw ",k=" #k},
static const struct {
    const char *tag, *spec;
} paper_layers[] = {
    RIP_PAPER_TAB2(TAB2_LAYER)
    {"sec31_cout6", "cin=3,cout=6,h=5,k=3"},
    {"sec31_cout8", "cin=3,cout=8,h=5,k=3"},
    {"sec31_16to64", "cin=16,cout=64,h=8,k=3"},
    {"f4_simplest", "cin=2,cout=2,h=1,w=1,k=1x2,d=1x2,p=0x1"},
    {"appI_vgg16_conv1_2", "cin=64,cout=64,h=224,k=3,p=1"},
    {"appI_inception_stem", "cin=32,cout=64,h=147,k=3,p=1"},
};

/* The paper's Tab. 3 (bytes) and its Pico 1 column (a time reported), from paper_data.h. */
#define TAB3_ROW(file, label, buffer, base, rip, num, den, p2, p1, base_fits, rip_fits) \
    {file, label, buffer, base, rip, num, den, base_fits, rip_fits},
static const struct {
    const char *file, *label;
    int64_t buffer, base, rip, num, den;
    int base_fits, rip_fits;
} tab3[] = {RIP_PAPER_TAB3(TAB3_ROW)};
#undef TAB3_ROW

/* One plan's peak (and, for the caller who asks, its in-place and shift
** counts and tensor count); -1 never: a failure is a status with err. */
static rip_status plan_peak(const char *path, bool rip, bool dw, const char *strategy, int64_t *peak,
                            int64_t *n_tensors, int64_t *used, int64_t *shifts, char err[RIP_ERR_LEN])
{
    rip_plan_opts po = {.seed = 1, .time_limit = 150, .reproducible = true};
    rip_problem p;
    rip_plan *plan = NULL;
    rip_status s = rip_plan_graph_file(path, rip, dw, strategy, &po, &p, &plan, err);
    if (s != RIP_OK)
        return s;
    *peak = plan->peak;
    if (n_tensors) {
        *n_tensors = (int64_t)p.n;
        *used = *shifts = 0;
        for (size_t i = 0; i < p.n_cand; i++) {
            *used += plan->in_place[i];
            *shifts += plan->shift[i];
        }
    }
    rip_plan_free(plan);
    rip_problem_free(&p);
    return RIP_OK;
}

static rip_status load_plans(sqlite3 *db, const char *models_dir, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    rip_status s = sql_exec(db,
                            "CREATE TABLE plans (model TEXT, label TEXT, n_tensors INT, base INT, rip INT,"
                            " rip_inplace INT, rip_shifts INT, base_milp INT, naive_ff INT, naive_milp INT,"
                            " rip_ff INT, paper_buffer INT, paper_base INT, paper_rip INT, paper_num INT,"
                            " paper_den INT, paper_base_fits INT, paper_rip_fits INT)",
                            err);
    if (s != RIP_OK)
        return s;
    if (sqlite3_prepare_v2(db, "INSERT INTO plans VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) !=
        SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "claims: cannot prepare the plans insert");
        return RIP_S_INTERNAL;
    }
    for (size_t m = 0; m < sizeof tab3 / sizeof tab3[0] && s == RIP_OK; m++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/mcunet/%s.csv", models_dir, tab3[m].file);
        int64_t v[9] = {0};   /* n, base, rip, used, shifts, base_milp, naive_ff, naive_milp, rip_ff */
        if ((s = plan_peak(path, false, true, "tinyengine", &v[1], NULL, NULL, NULL, err)) != RIP_OK ||
            (s = plan_peak(path, true, true, "milp", &v[2], &v[0], &v[3], &v[4], err)) != RIP_OK ||
            (s = plan_peak(path, false, true, "milp", &v[5], NULL, NULL, NULL, err)) != RIP_OK ||
            (s = plan_peak(path, false, false, "tinyengine", &v[6], NULL, NULL, NULL, err)) != RIP_OK ||
            (s = plan_peak(path, false, false, "milp", &v[7], NULL, NULL, NULL, err)) != RIP_OK ||
            (s = plan_peak(path, true, true, "tinyengine", &v[8], NULL, NULL, NULL, err)) != RIP_OK)
            break;
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, tab3[m].file, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, tab3[m].label, -1, SQLITE_STATIC);
        for (int i = 0; i < 9; i++)
            sqlite3_bind_int64(st, 3 + i, v[i]);
        const int64_t p[] = {tab3[m].buffer, tab3[m].base, tab3[m].rip, tab3[m].num, tab3[m].den,
                             tab3[m].base_fits, tab3[m].rip_fits};
        for (int i = 0; i < 7; i++)
            sqlite3_bind_int64(st, 12 + i, p[i]);
        if (sqlite3_step(st) != SQLITE_DONE) {
            snprintf(err, RIP_ERR_LEN, "claims: cannot store plan %s", tab3[m].file);
            s = RIP_S_INTERNAL;
        }
    }
    sqlite3_finalize(st);
    return s;
}

/*
** Every conv2d and pointwise op of the eleven MCUNet graphs of Tab. 3
** (models_dir/mcunet/<file>.csv, in op order) into st, network = the
** graph's file stem, name = "op<id>": the channel-mixing layers the
** deployments run, a domain of their own for the claims.
*/
static rip_status load_mcunet(sqlite3_stmt *st, const char *models_dir, char err[RIP_ERR_LEN])
{
    rip_status s = RIP_OK;
    for (size_t m = 0; m < sizeof tab3 / sizeof tab3[0] && s == RIP_OK; m++) {
        char path[4096], name[32];
        snprintf(path, sizeof path, "%s/mcunet/%s.csv", models_dir, tab3[m].file);
        rip_graph g = {0};
        if ((s = rip_graph_load(path, &g, err)) != RIP_OK)
            break;
        for (size_t i = 0; i < g.n_ops && s == RIP_OK; i++) {
            const rip_op *op = &g.ops[i];
            if (op->kind != RIP_OP_CONV2D && op->kind != RIP_OP_POINTWISE)
                continue;
            rip_layer L = {.cin = op->c_in, .cout = op->c_out, .h_in = op->h_in, .w_in = op->w_in,
                           .k_h = op->k_h, .k_w = op->k_w, .s_h = op->s_h, .s_w = op->s_w, .d_h = op->d_h,
                           .d_w = op->d_w, .p_top = op->p_top, .p_bottom = op->p_bottom, .p_left = op->p_left,
                           .p_right = op->p_right};
            if (rip_layer_derive(&L, err) != 0) {
                s = RIP_S_DATA;
                break;
            }
            snprintf(name, sizeof name, "op%lld", (long long)op->id);
            s = insert_layer(st, tab3[m].file, name, &L, err);
        }
        rip_graph_free(&g);
    }
    return s;
}

rip_status rip_claims_build_aux(sqlite3 *db, const char *layers_dir, const char *models_dir,
                                char err[RIP_ERR_LEN])
{
    static const char *const tables[] = {"real_all", "tab6", "paper", "mcunet"};
    char sql[2048];
    sqlite3_stmt *ins[4] = {NULL, NULL, NULL, NULL};
    rip_csv_layer *sel = NULL;
    size_t n_sel = 0;
    rip_status s = sql_exec(db, "BEGIN", err);
    for (int t = 0; t < 4 && s == RIP_OK; t++) {
        snprintf(sql, sizeof sql, "CREATE TABLE %s (%s)", tables[t], layer_cols);
        if ((s = sql_exec(db, sql, err)) != RIP_OK)
            break;
        int len = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?", tables[t]);
        for (int i = 1; i < N_LAYER_COLS; i++)
            len += snprintf(sql + len, sizeof sql - (size_t)len, ",?");
        snprintf(sql + len, sizeof sql - (size_t)len, ")");
        if (sqlite3_prepare_v2(db, sql, -1, &ins[t], NULL) != SQLITE_OK) {
            snprintf(err, RIP_ERR_LEN, "claims: cannot prepare %s: %.200s", tables[t], sqlite3_errmsg(db));
            s = RIP_S_INTERNAL;
        }
    }
    if (s == RIP_OK)
        s = load_real_all(ins[0], layers_dir, err);
    if (s == RIP_OK)
        s = rip_table6_layers(layers_dir, &sel, &n_sel, err);
    for (size_t i = 0; i < n_sel && s == RIP_OK; i++)
        s = insert_layer(ins[1], "(Tab. 6)", sel[i].name, &sel[i].L, err);
    for (size_t i = 0; i < sizeof paper_layers / sizeof paper_layers[0] && s == RIP_OK; i++) {
        rip_layer L;
        if (rip_spec_parse(paper_layers[i].spec, &L, err) != 0) {
            s = RIP_S_INTERNAL;
            break;
        }
        s = insert_layer(ins[2], paper_layers[i].tag, paper_layers[i].spec, &L, err);
    }
    if (s == RIP_OK)
        s = load_mcunet(ins[3], models_dir, err);
    if (s == RIP_OK)
        s = load_plans(db, models_dir, err);
    if (s == RIP_OK)
        s = sql_exec(db, "COMMIT", err);
    for (int t = 0; t < 4; t++)
        sqlite3_finalize(ins[t]);
    free(sel);
    return s;
}

/*
** Table small_opt of aux: the traversal-optimal gap (sim/optimum.h) of
** every sweep layer with at most max_pixels output pixels, beside its
** herringbone truths, with the witness columns of the sweep's cl view
** (size, witness).  The exact search costs 2^P states, so only small grids;
** each optimum is confirmed by the simulator inside rip_optimum_search.
** RIP_OK, or RIP_S_DATA / RIP_S_NOMEM / RIP_S_INTERNAL with err.
*/
rip_status rip_claims_build_optima(sqlite3 *aux, sqlite3 *sweep, int64_t max_pixels, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *q = NULL, *ins = NULL;
    rip_status s = sql_exec(aux, "BEGIN; CREATE TABLE small_opt (layer_idx INT, restricted INT, n_pix INT,"
                                 " stale INT, optimum INT, herringbone_taps INT, herringbone_taps_reader INT,"
                                 " herringbone_pruned INT, n_in_read INT, n_in_padded INT, size INT, witness TEXT)",
                            err);
    if (s != RIP_OK)
        return s;
    if (sqlite3_prepare_v2(sweep,
                           "SELECT layer_idx, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, p_top, p_bottom,"
                           " p_left, p_right, restricted, herringbone_taps, herringbone_taps_reader,"
                           " herringbone_pruned, n_in_read, n_in_padded, size, witness"
                           " FROM cl WHERE h_out * w_out <= ?1 ORDER BY layer_idx",
                           -1, &q, NULL) != SQLITE_OK ||
        sqlite3_bind_int64(q, 1, max_pixels) != SQLITE_OK ||
        sqlite3_prepare_v2(aux, "INSERT INTO small_opt VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", -1, &ins, NULL) !=
            SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "claims: cannot read the small grids: %.200s", sqlite3_errmsg(sweep));
        s = RIP_S_INTERNAL;
    }
    int rc = SQLITE_OK;
    while (s == RIP_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t g[1 + RIP_LAYER_GEOMETRY]; /* layer_idx, geometry */
        for (int i = 0; i < 1 + RIP_LAYER_GEOMETRY; i++)
            g[i] = sqlite3_column_int64(q, i);
        rip_layer L = rip_layer_from_geometry(g + 1);
        rip_optimum o;
        char why[RIP_ERR_LEN];
        if (rip_layer_derive(&L, why) != 0) {
            snprintf(err, RIP_ERR_LEN, "claims: sweep layer %lld: %.300s", (long long)g[0], why);
            s = RIP_S_DATA;
            break;
        }
        if ((s = rip_optimum_search(&L, max_pixels, &o, why)) != RIP_OK) {
            snprintf(err, RIP_ERR_LEN, "claims: optimum of sweep layer %lld: %.300s", (long long)g[0], why);
            break;
        }
        const int64_t v[] = {g[0], sqlite3_column_int64(q, 15), o.n_pix,
                             sqlite3_column_int64(q, 19) < sqlite3_column_int64(q, 20), o.gap,
                             sqlite3_column_int64(q, 16), sqlite3_column_int64(q, 17), sqlite3_column_int64(q, 18),
                             sqlite3_column_int64(q, 19), sqlite3_column_int64(q, 20), sqlite3_column_int64(q, 21)};
        rip_optimum_free(&o);
        sqlite3_reset(ins);
        for (int i = 0; i < 11; i++)
            sqlite3_bind_int64(ins, i + 1, v[i]);
        sqlite3_bind_text(ins, 12, (const char *)sqlite3_column_text(q, 22), -1, SQLITE_TRANSIENT);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            snprintf(err, RIP_ERR_LEN, "claims: cannot store an optimum: %.200s", sqlite3_errmsg(aux));
            s = RIP_S_INTERNAL;
        }
    }
    if (s == RIP_OK && rc != SQLITE_DONE) {
        snprintf(err, RIP_ERR_LEN, "claims: cannot read the small grids: %.200s", sqlite3_errmsg(sweep));
        s = RIP_S_DATA;
    }
    sqlite3_finalize(q);
    sqlite3_finalize(ins);
    if (s == RIP_OK)
        s = sql_exec(aux, "COMMIT", err);
    else
        sqlite3_exec(aux, "ROLLBACK", NULL, NULL, NULL);
    return s;
}
