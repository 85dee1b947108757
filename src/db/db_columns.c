/*
** db_columns.c — the column dictionary: what every column of every table
** and view of the verdict database means, its unit, and what judges it
** (db.h, rip_db_fill_columns).
**
** The one source of the column docs: rip_db_fill_columns writes them into
** table columns of every database ripsim creates, `ripsim schema` prints
** them (from a database or from this binary), and the README's section
** "Column dictionary" is `ripsim schema --markdown`, which a test compares.
** A doc names its table, or NULL for a column name that means the same in
** every table having it; the per-configuration and per-formula columns are
** described from their registries (rip_config_name, rip_formulas).  A
** column no doc describes stops the creation of a database: a new column
** cannot ship undocumented.
*/
#include "db.h"
#include "status.h"

#include <stdio.h>
#include <string.h>

#include "formulas.h"

typedef struct column_doc {
    const char *table, *column, *meaning, *unit, *judged_against;
} column_doc;

static const column_doc docs[] = {
    /* runs */
    {"runs", "run_id", "the run; always 1 (one run per database)", NULL, NULL},
    {"runs", "seed", "PCG32 initstate of the sweep; layer i draws from sequence i", NULL, NULL},
    {"runs", "n_layers", "layers in the whole sweep (all shards)", "layers", NULL},
    {"runs", "shard_index", "this database holds the layers with layer_idx % shard_count = shard_index", NULL, NULL},
    {"runs", "shard_count", "number of shards the sweep was split into", "shards", NULL},
    {"runs", "generator_set", "the generator categories as name:weight,... (sweep --generators reads it back)", NULL, NULL},
    {"runs", "ripsim_version", "version of the ripsim that created the database", NULL, NULL},
    {"runs", "source_commit", "git describe of the source that ripsim was built from ('unknown' outside git, "
     "'unrecorded' when migrated from schema version 4 or older)", NULL, NULL},
    {"runs", "generator_fingerprint", "FNV-1a 64 (16 hex digits) of every category of the run's set: name, tier, "
     "weight in the set and first draws from a fixed seed; a resumed sweep must match it ('unrecorded': migrated)", NULL, NULL},
    /* columns */
    {"columns", "table_name", "a table or view of this database", NULL, NULL},
    {"columns", "column_name", "one of its columns", NULL, NULL},
    {"columns", "meaning", "what the column holds", NULL, NULL},
    {"columns", "unit", "its unit; NULL when not a quantity", NULL, NULL},
    {"columns", "judged_against", "the column of the same row a value is judged against; NULL when none", NULL, NULL},
    /* configs, formulas, generators */
    {"configs", "config_id", "column order of the configuration in layer_results (rip_config order)", NULL, NULL},
    {"configs", "dense", "1: stores the dense input (workspace = gap + n_in_dense)", "0/1", NULL},
    {"configs", "pruned", "1: stores only the read input (workspace = gap + n_in_read)", "0/1", NULL},
    {"formulas", "ord", "the formula's id and column order in layer_results (paper order)", NULL, NULL},
    {"formulas", "paper", "where the closed form is in the paper", NULL, NULL},
    {"formulas", "exec_config", "the configuration whose truth judges it; NULL for naive_workspace", NULL, NULL},
    {"formulas", "is_workspace", "1: a workspace size, not a gap (never judged)", "0/1", NULL},
    {"generators", "ord", "the category's id (layer_results.gen): its place in the run's set (Tab. 5 order for the paper's)", NULL, NULL},
    {"generators", "weight", "its weight in the run's set: a share of the weights' sum (percent for the paper's 20)", NULL, NULL},
    {"generators", "title", "the category in the paper's Tab. 5 wording", NULL, NULL},
    {"generators", "ranges", "the parameter ranges the category draws", NULL, NULL},
    /* verdict_counts, run_log */
    {"verdict_counts", "ord", "the formula (formulas.ord)", NULL, NULL},
    {"verdict_counts", "verdict", "0 n/a, 1 unsafe, 2 tight, 3 loose", NULL, NULL},
    {"verdict_counts", "n", "layers with this verdict for this formula", "layers", NULL},
    {"run_log", "at", "when the event happened, UTC ISO 8601 (provenance, never compared)", NULL, NULL},
    {"run_log", "event", "start, resume, finish, interrupted, merge, migrate, ...", NULL, NULL},
    {"run_log", "detail", "the event's parameters (seed, shard, jobs, version, commit, counts)", NULL, NULL},
    /* truths, verdicts, verdict_summary */
    {"truths", "gap", "simulated minimum gap of this configuration (the truth)", "scalars", NULL},
    {"truths", "workspace", "gap + the input scalars the configuration stores", "scalars", NULL},
    {"verdicts", "exec_config", "the configuration whose truth judges the formula; NULL for naive_workspace", NULL,
     NULL},
    {"verdicts", "value", "the closed form's value; NULL where not defined", "scalars", "truth"},
    {"verdicts", "truth", "the judging configuration's simulated minimum gap", "scalars", NULL},
    {"verdicts", "verdict", "unsafe (value < truth), tight (=), loose (>), n/a (undefined or not judged)", NULL,
     NULL},
    {"verdicts", "margin", "value - truth; NULL when n/a", "scalars", NULL},
    {"verdict_summary", "exec_config", "the configuration judging the formula", NULL, NULL},
    {"verdict_summary", "unsafe", "layers where the formula is below its truth", "layers", NULL},
    {"verdict_summary", "tight", "layers where it equals its truth", "layers", NULL},
    {"verdict_summary", "loose", "layers where it is above its truth", "layers", NULL},
    {"verdict_summary", "na", "layers where it is undefined or not judged", "layers", NULL},
    /* executions, execution_summary */
    {"executions", "exec_config", "one of the four rip_* configurations, executed with the int8 kernels", NULL,
     NULL},
    {"executions", "gap", "the truth it was executed at", "scalars", NULL},
    {"executions", "bit_exact", "1: the in-place output equals the dual-buffer output", "0/1", NULL},
    {"executions", "early_overwrite_at_truth", "1: the instrumented run at the truth read an overwritten input",
     "0/1", NULL},
    {"executions", "caught_at_truth_minus_1", "1: the instrumented run at truth - 1 caught an early overwrite; "
     "NULL when gap = 0", "0/1", NULL},
    {"executions", "catch_step", "output scalars written before that catch; NULL when none", "scalars", NULL},
    {"executions", "checksum", "FNV-1a 32-bit of the dual-buffer output, 8 hex digits", NULL, NULL},
    {"execution_summary", "executed", "layers executed under the configuration", "layers", NULL},
    {"execution_summary", "bit_exact", "of those, bit-exact in place", "layers", NULL},
    {"execution_summary", "early_overwrite_at_truth", "of those, an early overwrite at the truth", "layers", NULL},
    {"execution_summary", "truth_zero", "of those, with truth 0", "layers", NULL},
    {"execution_summary", "truth_positive", "of those, with truth > 0", "layers", NULL},
    {"execution_summary", "caught_at_truth_minus_1", "of those, caught at truth - 1", "layers", NULL},
    /* optima, optimum_gaps (sweep --optimum) */
    {"optima", "gap", "traversal-optimal herringbone_taps_reader gap over every visiting order", "scalars", NULL},
    {"optima", "lower", "the exact search's live-bytes lower bound", "scalars", NULL},
    {"optima", "row_major", "the herringbone_taps_reader rule's gap in row-major order", "scalars", NULL},
    {"optima", "visit_order", "an optimal order: pixels r*w_out+c, comma-separated", NULL, NULL},
    {"optimum_gaps", "pixels", "output pixels h_out * w_out", "pixels", NULL},
    {"optimum_gaps", "optimum", "optima.gap", "scalars", NULL},
    {"optimum_gaps", "row_major_over", "optima.row_major - optimum", "scalars", NULL},
    /* any table: the layer and its geometry */
    {NULL, "run_id", "the run; always 1", NULL, NULL},
    {NULL, "layer_idx", "the layer's index in the sweep (its PCG32 sequence)", NULL, NULL},
    {NULL, "gen", "the layer's generator category (generators.ord)", NULL, NULL},
    {NULL, "generator", "the layer's generator category (sweeps/generators/)", NULL, NULL},
    {NULL, "tier", "1 real-network geometry, 2 small or degenerate, 3 corners (paper Tab. 5)", NULL, NULL},
    {NULL, "exec_config", "execution configuration (rip_padded_gather ... herringbone_pruned)", NULL, NULL},
    {NULL, "formula", "closed form (gm2019_eq1 ... naive_workspace)", NULL, NULL},
    {NULL, "cin", "input channels (SPEC cin)", "channels", NULL},
    {NULL, "cout", "output channels (SPEC cout)", "channels", NULL},
    {NULL, "h_in", "input height (SPEC h)", "pixels", NULL},
    {NULL, "w_in", "input width (SPEC w)", "pixels", NULL},
    {NULL, "k_h", "kernel height (SPEC k=HxW)", "taps", NULL},
    {NULL, "k_w", "kernel width", "taps", NULL},
    {NULL, "s_h", "vertical stride (SPEC s=HxW)", "pixels", NULL},
    {NULL, "s_w", "horizontal stride", "pixels", NULL},
    {NULL, "d_h", "vertical dilation (SPEC d=HxW)", "pixels", NULL},
    {NULL, "d_w", "horizontal dilation", "pixels", NULL},
    {NULL, "p_h", "top padding (= p_top; kept from schema version 2)", "pixels", NULL},
    {NULL, "p_w", "left padding (= p_left; kept from schema version 2)", "pixels", NULL},
    {NULL, "p_top", "top padding (SPEC pt)", "pixels", NULL},
    {NULL, "p_bottom", "bottom padding (SPEC pb)", "pixels", NULL},
    {NULL, "p_left", "left padding (SPEC pl)", "pixels", NULL},
    {NULL, "p_right", "right padding (SPEC pr)", "pixels", NULL},
    {NULL, "h_out", "output height", "pixels", NULL},
    {NULL, "w_out", "output width", "pixels", NULL},
    {NULL, "restricted", "1 inside Gural & Murmann's setting (p=0, s=d=1, odd square k, square input)", "0/1",
     NULL},
    {NULL, "n_in_padded", "input scalars with the padding", "scalars", NULL},
    {NULL, "n_in_dense", "input scalars without the padding", "scalars", NULL},
    {NULL, "n_out", "output scalars", "scalars", NULL},
    {NULL, "n_in_read", "padded input scalars some tap reads (what herringbone_pruned stores)", "scalars", NULL},
    {NULL, "spec", "the layer as a SPEC: `ripsim layer SPEC` reads it verbatim and gives this row's numbers", NULL,
     NULL},
};

/* The doc of (table, column), or NULL: the table's own first, then the shared one. */
static const column_doc *find_doc(const char *table, const char *column)
{
    const column_doc *shared = NULL;
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        if (strcmp(docs[i].column, column) != 0)
            continue;
        if (docs[i].table && strcmp(docs[i].table, table) == 0)
            return &docs[i];
        if (!docs[i].table && !shared)
            shared = &docs[i];
    }
    return shared;
}

/* The configuration or formula named name: d filled (meaning in buf), or false. */
static bool registry_doc(const char *name, column_doc *d, char *buf, size_t len)
{
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        if (strcmp(name, rip_config_name((rip_config)e)) == 0) {
            snprintf(buf, len, "simulated minimum gap of %s (the truth its closed forms are judged against)", name);
            *d = (column_doc){.meaning = buf, .unit = "scalars"};
            return true;
        }
    size_t nf = 0;
    const rip_formula_info *f = rip_formulas(&nf);
    for (size_t i = 0; i < nf; i++)
        if (strcmp(name, f[i].name) == 0) {
            snprintf(buf, len, "closed form %s (%s)%s; NULL where not defined", name, f[i].paper,
                     f[i].is_workspace ? ", a workspace size" : "");
            *d = (column_doc){.meaning = buf, .unit = "scalars", .judged_against = f[i].judged_by};
            return true;
        }
    return false;
}

/* The doc of (table, column) into *d (meaning possibly in buf): false when none. */
static bool describe(const char *table, const char *column, column_doc *d, char *buf, size_t len)
{
    const column_doc *doc = find_doc(table, column);
    if (doc) {
        *d = *doc;
        return true;
    }
    if (registry_doc(column, d, buf, len))
        return true;
    /* optimum_gaps: NAME_over = NAME - optimum */
    size_t n = strlen(column);
    char base[96];
    if (n > 5 && n - 5 < sizeof base && strcmp(column + n - 5, "_over") == 0) {
        snprintf(base, sizeof base, "%.*s", (int)(n - 5), column);
        column_doc b;
        char ignored[256];
        if (registry_doc(base, &b, ignored, sizeof ignored)) {
            snprintf(buf, len, "%s - optimum (how far above the traversal optimum)", base);
            *d = (column_doc){.meaning = buf, .unit = "scalars"};
            return true;
        }
    }
    return false;
}

rip_status rip_db_fill_columns(sqlite3 *db, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *q = NULL, *ins = NULL;
    rip_status s = RIP_OK;
    int rc = sqlite3_prepare_v2(db,
        "SELECT m.name, p.name FROM main.sqlite_master m JOIN pragma_table_info(m.name) p"
        " WHERE m.type IN ('table', 'view') ORDER BY m.rowid, p.cid", -1, &q, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO main.columns VALUES (?,?,?,?,?)", -1, &ins, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(q, 0), *c = (const char *)sqlite3_column_text(q, 1);
        column_doc d;
        char buf[256];
        if (!t || !c) {
            rc = SQLITE_NOMEM;
            break;
        }
        if (!describe(t, c, &d, buf, sizeof buf)) {
            snprintf(err, RIP_ERR_LEN, "internal: column %.60s.%.60s has no documentation (src/db/db_columns.c)", t,
                     c);
            s = RIP_S_INTERNAL;
            break;
        }
        sqlite3_bind_text(ins, 1, t, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 2, c, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 3, d.meaning, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 4, d.unit, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 5, d.judged_against, -1, SQLITE_STATIC);
        rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        sqlite3_reset(ins);
    }
    if (s == RIP_OK && rc != SQLITE_DONE) {
        snprintf(err, RIP_ERR_LEN, "database: cannot fill the column dictionary (%s)", sqlite3_errmsg(db));
        s = rip_db_status(rc);
        if (s == RIP_OK)
            s = RIP_S_INTERNAL;
    }
    sqlite3_finalize(q);
    sqlite3_finalize(ins);
    return s;
}

rip_status rip_db_open_reference(sqlite3 **db, char err[RIP_ERR_LEN])
{
    *db = NULL;
    sqlite3 *mem = NULL;
    rip_status s = RIP_OK;
    if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        s = RIP_S_NOMEM;
    } else if (rip_db_exec(mem, rip_db_schema_sql, err) != 0 || rip_db_exec(mem, rip_db_optima_sql, err) != 0) {
        s = RIP_S_INTERNAL;
    } else {
        s = rip_db_fill_columns(mem, err);
    }
    if (s != RIP_OK) {
        sqlite3_close(mem);
        return s;
    }
    *db = mem;
    return RIP_OK;
}
