/*
** db_check_values.c — the stored numbers of a sweep database, checked
** against each other: part of the one check (db_check.c).
**
** Versions 3 and 4 keep a layer's truths and values in its one row of
** layer_results and the verdict counts of every formula in verdict_counts,
** written in the same transaction.  One pass over layer_results requires:
**   - every value an integer (a closed form's value may be NULL): text or
**     a real is refused, never read as a number;
**   - every size below 2^31 (channels, grid, kernel, stride, dilation,
**     padding) and every other number below 2^61 in magnitude, so sums and
**     products of two cannot overflow in the readers' arithmetic;
**   - every layer inside the run (index below n, in the shard) and of a
**     generator of table generators;
** and recomputes each formula's verdicts from its value and the truth of
** its judging configuration (formulas.exec_config; none: n/a), which must
** equal verdict_counts row for row.  So a truth or value changed by hand
** is found whenever it changes a verdict, and a layer deleted, added or
** moved whenever the counts no longer add up.  What no recount can find is
** a change that moves no verdict: a truth that judges no formula
** (herringbone_taps_reader, herringbone_pruned), a loose formula's truth
** changed by less than its margin, or a geometry column; such a database
** is consistent with every stored verdict, and only simulating its layers
** again (not a storage check) would tell.
**
** The pass reads the rows from the pages of the file (db_pages.c), after
** quick_check has checked them in the same read transaction: about 0.15
** CPU-s for the 1,000,000 layers of `sweep --n 1000000`, where stepping the
** rows through SQLite (an SQL aggregate function of this file fed every
** column of every row, the cheapest way SQLite offers to look at every
** value once) costs about 0.6 s.  That reading can only pass a database:
** when it finds every row sound and the recount equal to verdict_counts,
** that is the answer; when it finds anything else, or cannot read the file
** that way (a WAL database, a record on overflow pages, ...), the pass
** through SQLite runs and decides, naming the first problem in rowid
** order.  Both apply the same rules (take_value, count_layer).
**
** Versions 1 and 2 (a migration's input) store every verdict with its
** truth and margin, so the check is the same by SQL: every value an
** integer, every verdict, truth and margin those of its value and of its
** judging configuration's row in truths.
*/
#include "db.h"
#include "db_check.h"
#include "db_pages.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    COL_GEN = 1,         /* layer_results: layer_idx, gen, */
    COL_FIRST_SIZE = 2,  /* cin ... w_out: sizes below 2^31 */
    COL_LAST_SIZE = 17,
    MAX_COLS = RIP_PAGES_MAX_COLS,
};
#define SIZE_LIMIT (INT64_C(1) << 31)
#define NUMBER_LIMIT (INT64_C(1) << 61)

/* The pass over layer_results: what it is given, what it counts, the first problem. */
typedef struct scan {
    int64_t n_layers, shard_count, shard_index;
    const int64_t *gens;        /* generators.ord, ascending */
    size_t n_gens;
    int n_cols, first_value, n_formulas;
    int judge[RIP_DB_N_FORMULAS];   /* the column of each formula's judging truth; -1: none */
    char names[MAX_COLS][48];       /* column names, for the messages */
    int64_t counts[RIP_DB_N_FORMULAS][4];   /* [formula ord][0 n/a, 1 unsafe, 2 tight, 3 loose] */
    int64_t rows;
    bool bad;
    char why[200];
} scan;

static bool known_generator(const scan *s, int64_t g)
{
    size_t lo = 0, hi = s->n_gens;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->gens[mid] < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_gens && s->gens[lo] == g;
}

static const char *type_name(int type)
{
    return type == SQLITE_TEXT ? "text" : type == SQLITE_FLOAT ? "real" : type == SQLITE_BLOB ? "blob" : "NULL";
}

/* Stop the pass at the current row with why (the aggregate then fails; s->bad tells it from SQLite's). */
static void stop(sqlite3_context *cx, scan *s)
{
    s->bad = true;
    sqlite3_result_error(cx, "ripsim: refused row", -1);
}

/*
** Column c of layer idx, of SQLite type `type` (v: its value when an
** integer), into *x (a closed form's NULL as INT64_MIN): false, with
** s->why, when it is not a value a sweep stores.
*/
static inline bool take_value(scan *s, int64_t idx, int c, int type, int64_t v, int64_t *x)
{
    if (type == SQLITE_INTEGER) {
        int64_t lim = c <= COL_LAST_SIZE ? SIZE_LIMIT : NUMBER_LIMIT;
        if (c >= COL_FIRST_SIZE && (v <= -lim || v >= lim)) {
            snprintf(s->why, sizeof s->why, "layer %lld: %s holds %lld, out of the range a sweep stores",
                     (long long)idx, s->names[c], (long long)v);
            return false;
        }
        *x = v;
        return true;
    }
    if (type == SQLITE_NULL && c >= s->first_value) {
        *x = INT64_MIN;
        return true;
    }
    snprintf(s->why, sizeof s->why, "layer %lld: %s holds a %s value, not an integer", (long long)idx, s->names[c],
             type_name(type));
    return false;
}

/*
** One layer's values x (x[0] its index, every column taken by take_value)
** counted into s: its verdicts recomputed.  false, with s->why, when it
** lies outside the run or is of no known generator.
*/
static inline bool count_layer(scan *s, const int64_t *x)
{
    const int64_t idx = x[0];
    s->rows++;
    if (idx < 0 || idx >= s->n_layers || (s->shard_count > 1 && idx % s->shard_count != s->shard_index)) {
        snprintf(s->why, sizeof s->why, "layer %lld lies outside the run (n %lld, shard %lld/%lld)", (long long)idx,
                 (long long)s->n_layers, (long long)s->shard_index, (long long)s->shard_count);
        return false;
    }
    if (!known_generator(s, x[COL_GEN])) {
        snprintf(s->why, sizeof s->why, "layer %lld: generator id %lld is not in table generators", (long long)idx,
                 (long long)x[COL_GEN]);
        return false;
    }
    for (int f = 0; f < s->n_formulas; f++) {
        const int64_t value = x[s->first_value + f];
        int k = 0; /* n/a: not judged, or not defined */
        if (s->judge[f] >= 0 && value != INT64_MIN) {
            const int64_t t = x[s->judge[f]];
            k = value < t ? 1 : value == t ? 2 : 3;
        }
        s->counts[f][k]++;
    }
    return true;
}

/* The aggregate's step: one row of layer_results, every column in order. */
static void scan_row(sqlite3_context *cx, int argc, sqlite3_value **v)
{
    scan *s = sqlite3_user_data(cx);
    if (s->bad || argc != s->n_cols)
        return;
    int64_t x[MAX_COLS];
    x[0] = sqlite3_value_int64(v[0]);
    for (int c = 1; c < argc; c++) {
        int type = sqlite3_value_type(v[c]);
        if (!take_value(s, x[0], c, type, type == SQLITE_INTEGER ? sqlite3_value_int64(v[c]) : 0, &x[c]))
            return stop(cx, s);
    }
    if (!count_layer(s, x))
        return stop(cx, s);
}

/* The same for a row read from the pages (rip_db_pages_rows): false when it is not a sound row. */
static bool page_row(void *ctx, int64_t rowid, const int64_t *value, const unsigned char *type, int n_cols)
{
    scan *s = ctx;
    int64_t x[MAX_COLS];
    if (n_cols != s->n_cols || type[0] != SQLITE_NULL)
        return false; /* layer_idx is the rowid, which its column stores as NULL */
    x[0] = rowid;
    for (int c = 1; c < n_cols; c++)
        if (!take_value(s, rowid, c, type[c], value[c], &x[c]))
            return false;
    return count_layer(s, x);
}

static void scan_end(sqlite3_context *cx)
{
    sqlite3_result_null(cx);
}

/* The column names of layer_results into s (s->n_cols); an SQLite code. */
static int load_columns(sqlite3 *db, scan *s)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('layer_results') ORDER BY cid", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW && s->n_cols < MAX_COLS) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(s->names[s->n_cols++], sizeof s->names[0], "%s", t ? (const char *)t : "?");
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/*
** Each formula's judging column (formulas.ord order; the lookups check has
** tied ord to the value columns) into s->judge; the generator ids into
** *gens.  RIP_OK, or a status with err.
*/
static rip_status load_lookups(sqlite3 *db, const char *path, scan *s, int64_t first_truth, int64_t n_configs,
                               int64_t **gens, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT f.ord, f.formula, f.exec_config, c.config_id FROM formulas f"
                                " LEFT JOIN configs c ON c.exec_config = f.exec_config ORDER BY f.ord",
                                -1, &st, NULL);
    rip_status status = RIP_OK;
    while (rc == SQLITE_OK && status == RIP_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        int64_t ord = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1), *by = (const char *)sqlite3_column_text(st, 2);
        bool judged = sqlite3_column_type(st, 3) != SQLITE_NULL;
        int64_t id = sqlite3_column_int64(st, 3);
        if (ord != s->n_formulas || ord >= RIP_DB_N_FORMULAS) {
            status = rip_db_damaged(path, "formula ord %lld where %lld was due", ord, s->n_formulas, err);
        } else if (by && (!judged || id < 0 || id >= n_configs)) {
            snprintf(err, RIP_ERR_LEN, "%.200s: damaged database, refused (formula %.40s is judged by %.40s, which "
                     "is not a configuration of table configs)", path, name ? name : "?", by);
            status = RIP_S_DATA;
        } else {
            s->judge[s->n_formulas++] = by ? (int)(first_truth + id) : -1;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (status != RIP_OK)
        return status;
    if (rc != SQLITE_DONE)
        return rip_db_check_failed(db, rc, path, err);
    size_t cap = 32;
    int64_t *g = malloc(cap * sizeof *g);
    rc = g ? sqlite3_prepare_v2(db, "SELECT ord FROM generators ORDER BY ord", -1, &st, NULL) : SQLITE_NOMEM;
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (s->n_gens == cap) {
            int64_t *more = realloc(g, 2 * cap * sizeof *g);
            if (!more) {
                rc = SQLITE_NOMEM;
                break;
            }
            g = more;
            cap *= 2;
        }
        g[s->n_gens++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    *gens = g;
    s->gens = g;
    return rc == SQLITE_DONE ? RIP_OK : rip_db_check_failed(db, rc, path, err);
}

/* verdict_counts against the recount s->counts; RIP_OK or RIP_S_DATA with err. */
static rip_status compare_counts(sqlite3 *db, const char *path, const scan *s, char err[RIP_ERR_LEN])
{
    int64_t stored[RIP_DB_N_FORMULAS][4] = {{0}};
    sqlite3_stmt *st = NULL;
    rip_status status = RIP_OK;
    int rc = sqlite3_prepare_v2(db, "SELECT ord, verdict, n FROM verdict_counts ORDER BY ord, verdict", -1, &st, NULL);
    while (rc == SQLITE_OK && status == RIP_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        int64_t ord = sqlite3_column_int64(st, 0), k = sqlite3_column_int64(st, 1), n = sqlite3_column_int64(st, 2);
        if (ord < 0 || ord >= s->n_formulas || k < 0 || k > 3 || n < 0)
            status = rip_db_damaged(path, "verdict_counts holds a count of no formula or verdict (ord %lld, verdict %lld)",
                                    ord, k, err);
        else
            stored[ord][k] = n;
    }
    sqlite3_finalize(st);
    if (status != RIP_OK)
        return status;
    if (rc != SQLITE_DONE)
        return rip_db_check_failed(db, rc, path, err);
    for (int f = 0; f < s->n_formulas; f++) {
        const int64_t *a = stored[f], *b = s->counts[f];
        if (memcmp(a, b, sizeof stored[f]) == 0)
            continue;
        char name[64] = "?";
        snprintf(name, sizeof name, "%s", s->names[s->first_value + f]);
        snprintf(err, RIP_ERR_LEN, "%.200s: damaged database, refused (the verdict counts of %s (%lld/%lld/%lld/%lld) "
                 "disagree with its layers (%lld/%lld/%lld/%lld unsafe/tight/loose/n/a))", path, name, (long long)a[1],
                 (long long)a[2], (long long)a[3], (long long)a[0], (long long)b[1], (long long)b[2], (long long)b[3],
                 (long long)b[0]);
        return RIP_S_DATA;
    }
    return RIP_OK;
}

/*
** The pass through SQLite: SELECT rip_check_layer(c0, c1, ...) FROM
** layer_results, the aggregate a function of this connection only, then
** the recount against verdict_counts.  RIP_OK, or a status with err.
*/
static rip_status sqlite_pass(sqlite3 *db, const char *path, scan *s, char err[RIP_ERR_LEN])
{
    size_t len = 64 + (size_t)s->n_cols * 50, at = 0;
    char *sql = malloc(len);
    if (!sql) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    at += (size_t)snprintf(sql + at, len - at, "SELECT rip_check_layer(");
    for (int c = 0; c < s->n_cols; c++)
        at += (size_t)snprintf(sql + at, len - at, "%s\"%s\"", c ? ", " : "", s->names[c]);
    snprintf(sql + at, len - at, ") FROM layer_results");
    int rc = sqlite3_create_function(db, "rip_check_layer", s->n_cols, SQLITE_UTF8 | SQLITE_DIRECTONLY, s, NULL,
                                     scan_row, scan_end);
    bool registered = rc == SQLITE_OK;
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    rip_status status;
    if (s->bad) {
        snprintf(err, RIP_ERR_LEN, "%.200s: damaged database, refused (%s)", path, s->why);
        status = RIP_S_DATA;
    } else if (rc != SQLITE_ROW) {
        status = rip_db_check_failed(db, rc, path, err);
    } else {
        status = compare_counts(db, path, s, err);
    }
    if (registered)
        sqlite3_create_function(db, "rip_check_layer", s->n_cols, SQLITE_UTF8, NULL, NULL, NULL, NULL);
    free(sql);
    return status;
}

rip_status rip_db_check_layer_values(sqlite3 *db, const char *path, const rip_run_info *run, int64_t first_truth,
                                     int64_t n_configs, int64_t *layers, char err[RIP_ERR_LEN])
{
    scan *s = calloc(1, sizeof *s);
    int64_t *gens = NULL;
    rip_status status = RIP_OK;
    *layers = 0;
    if (!s) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    s->n_layers = run->n_layers;
    s->shard_count = run->shard_count;
    s->shard_index = run->shard_index;
    s->first_value = (int)(first_truth + n_configs);
    int rc = load_columns(db, s);
    if (rc != SQLITE_OK) {
        status = rip_db_check_failed(db, rc, path, err);
        goto done;
    }
    if ((status = load_lookups(db, path, s, first_truth, n_configs, &gens, err)) != RIP_OK)
        goto done;
    /* The rows read from the pages can only pass the database: every row sound
    ** and the recount equal to verdict_counts.  Anything else, the pass
    ** through SQLite decides, and names the first problem in rowid order. */
    if (rip_db_pages_rows(db, "layer_results", s->n_cols, page_row, s) == RIP_PAGES_DONE &&
        compare_counts(db, path, s, err) == RIP_OK)
        goto done;
    memset(s->counts, 0, sizeof s->counts);
    s->rows = 0;
    s->bad = false;
    status = sqlite_pass(db, path, s, err);
done:
    *layers = s->rows;
    free(gens);
    free(s);
    return status;
}

/* The first layer of sql's rows (count, min(layer_idx)), or a failure: RIP_OK with *n, or a status. */
static rip_status first_bad(sqlite3 *db, const char *path, const char *sql, int64_t *n, int64_t *first,
                            char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *n = sqlite3_column_int64(st, 0);
        *first = sqlite3_column_int64(st, 1);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? RIP_OK : rip_db_check_failed(db, rc, path, err);
}

rip_status rip_db_check_verdict_rows(sqlite3 *db, const char *path, char err[RIP_ERR_LEN])
{
    /* (layers: the types of its 24 integer columns joined must be 'integer' 24 times) */
    static const char *const checks[][2] = {
        {"SELECT count(*), min(layer_idx) FROM layers WHERE typeof(layer_idx) || typeof(tier) || typeof(cin) ||"
         " typeof(cout) || typeof(h_in) || typeof(w_in) || typeof(k_h) || typeof(k_w) || typeof(s_h) || typeof(s_w) ||"
         " typeof(d_h) || typeof(d_w) || typeof(p_h) || typeof(p_w) || typeof(p_top) || typeof(p_bottom) ||"
         " typeof(p_left) || typeof(p_right) || typeof(h_out) || typeof(w_out) || typeof(restricted) ||"
         " typeof(n_in_padded) || typeof(n_in_dense) || typeof(n_out) <> replace(hex(zeroblob(24)), '00', 'integer')",
         "%lld layers hold a value that is not an integer, first layer %lld"},
        {"SELECT count(*), min(layer_idx) FROM layers WHERE generator NOT IN (SELECT generator FROM generators)",
         "%lld layers of no generator of table generators, first layer %lld"},
        {"SELECT count(*), min(layer_idx) FROM truths WHERE typeof(gap) <> 'integer' OR typeof(workspace) <> 'integer'",
         "%lld truths that are not integers, first layer %lld"},
        {"SELECT count(*), min(v.layer_idx) FROM verdicts v LEFT JOIN truths t ON t.run_id = v.run_id"
         " AND t.layer_idx = v.layer_idx AND t.exec_config = v.exec_config"
         " WHERE typeof(v.value) NOT IN ('integer', 'null') OR typeof(v.truth) NOT IN ('integer', 'null')"
         " OR typeof(v.margin) NOT IN ('integer', 'null')"
         " OR v.verdict IS NOT CASE WHEN v.value IS NULL OR t.gap IS NULL THEN 'n/a' WHEN v.value < t.gap THEN 'unsafe'"
         "   WHEN v.value = t.gap THEN 'tight' ELSE 'loose' END"
         " OR (v.verdict <> 'n/a' AND (v.truth IS NOT t.gap OR v.margin IS NOT v.value - t.gap))",
         "%lld verdicts that are not those of their value and judging truth, first layer %lld"},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        int64_t n = 0, first = 0;
        rip_status s = first_bad(db, path, checks[i][0], &n, &first, err);
        if (s != RIP_OK)
            return s;
        if (n > 0)
            return rip_db_damaged(path, checks[i][1], n, first, err);
    }
    return RIP_OK;
}
