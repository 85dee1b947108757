/*
** db_check.c — is a sweep database whole?  Two checks on an open connection.
**
** Pages: SQLite's PRAGMA quick_check (b-tree structure, page use, record
** format, NOT NULL).  It finds the damage of bytes overwritten anywhere in
** the file, because every b-tree page starts with a header it validates.
** It does not compare index to table content (integrity_check does, at
** about 3x the cost: 0.42 s against 0.16 s on a 10,000-layer database).
**
** Rows: what SQLite cannot know.  Every stored layer lies in the run (index
** below n, in its shard), has exactly one truth per execution configuration
** and one verdict per formula of the formulas table, and no truth or
** verdict exists without its layer.  A sweep writes a batch of layers with
** all their rows in one transaction, so anything else is damage (or rows
** deleted by hand), and resuming over it would report a run complete that
** is not.  From schema version 2 on, table executions must exist, and a
** layer has all RIP_DB_EXEC_CONFIGS execution rows or none (a sweep without
** --execute stores none), none without its layer.
**
** Schema version 3 (and 4, which adds n_in_read and the column of
** herringbone_pruned) keeps a layer's truths and values in its one row
** (NOT NULL truths, which quick_check verifies), so "every layer has all
** its rows" holds by construction and the checks that cost a pass per
** truth and verdict are gone.  What remains is cheap: the lookup tables
** name the columns of layer_results (table_info), the indexes lie in the
** run (a rowid range; one pass over the keys only for a shard), every
** generator id is known, and for every formula verdict_counts adds up to
** the number of layers (written in the same transactions as the rows, so
** a layer deleted or added by hand shows).
*/
#include "db.h"
#include "status.h"

#include <stdio.h>
#include <string.h>

/* Integers of one row of sql with ?1..?nb bound to b[0..nb); an SQLite code. */
static int row_ints(sqlite3 *db, const char *sql, const int64_t *b, int nb, int64_t *out, int n)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    for (int i = 0; rc == SQLITE_OK && i < nb; i++)
        rc = sqlite3_bind_int64(st, i + 1, b[i]);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        for (int i = 0; i < n; i++)
            out[i] = sqlite3_column_int64(st, i);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_CORRUPT;
    }
    sqlite3_finalize(st);
    return rc;
}

static rip_status sql_failed(sqlite3 *db, int rc, const char *path, char err[RIP_ERR_LEN])
{
    rip_status s = rip_db_status(rc);
    if (s == RIP_S_BUSY)
        snprintf(err, RIP_ERR_LEN, "%.200s: locked by another process (waited %d s)", path,
                 RIP_DB_BUSY_MS / 1000);
    else
        snprintf(err, RIP_ERR_LEN, "%.200s: damaged database, refused (%.200s)", path, sqlite3_errmsg(db));
    rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    return s == RIP_S_INTERNAL ? RIP_S_DATA : s;
}

rip_status rip_db_check_pages(sqlite3 *db, const char *path, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    rip_status s = RIP_OK;
    /* quick_check(1): the first problem is enough to refuse */
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        if (!t || strcmp((const char *)t, "ok") != 0) {
            char line[200];
            snprintf(line, sizeof line, "%s", t ? (const char *)t : "no answer");
            for (char *p = line; *p; p++)
                if (*p == '\n' || *p == '\r')
                    *p = ' ';
            snprintf(err, RIP_ERR_LEN, "%.200s: damaged database, refused (SQLite quick_check: %s)", path, line);
            s = RIP_S_DATA;
        }
    } else {
        s = sql_failed(db, rc, path, err);
    }
    sqlite3_finalize(st);
    return s;
}

/* Table executions (schema version 2): present, whole per layer, no orphans. */
static rip_status check_executions(sqlite3 *db, const char *path, rip_db_found *found, char err[RIP_ERR_LEN])
{
    const char *orphans = found->schema_version >= 3
        ? "SELECT count(*), min(layer_idx) FROM executions e WHERE e.run_id <> 1 OR NOT EXISTS"
          " (SELECT 1 FROM layer_results l WHERE l.layer_idx = e.layer_idx)"
        : "SELECT count(*), min(layer_idx) FROM executions e WHERE NOT EXISTS (SELECT 1 FROM layers l"
          " WHERE l.run_id = e.run_id AND l.layer_idx = e.layer_idx)";
    int64_t have = 0, c[2] = {0}, bad[2] = {0};
    int rc = row_ints(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'executions'",
                      NULL, 0, &have, 1);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    if (!have) {
        snprintf(err, RIP_ERR_LEN, "%s: damaged database, refused (schema version %lld without table executions)",
                 path, (long long)found->schema_version);
        return RIP_S_DATA;
    }
    const int64_t per = RIP_DB_EXEC_CONFIGS;
    rc = row_ints(db,
                  "SELECT count(*), min(layer_idx) FROM (SELECT layer_idx, count(*) AS n FROM executions"
                  " GROUP BY run_id, layer_idx) WHERE n <> ?1",
                  &per, 1, bad, 2);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    if (bad[0] > 0) {
        snprintf(err, RIP_ERR_LEN,
                 "%s: damaged database, refused (%lld layers lack executions of some configuration, first %lld)",
                 path, (long long)bad[0], (long long)bad[1]);
        return RIP_S_DATA;
    }
    rc = row_ints(db, orphans, NULL, 0, bad, 2);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    if (bad[0] > 0) {
        snprintf(err, RIP_ERR_LEN, "%s: damaged database, refused (%lld executions without their layer, first %lld)",
                 path, (long long)bad[0], (long long)bad[1]);
        return RIP_S_DATA;
    }
    if ((rc = row_ints(db, "SELECT count(*), count(DISTINCT layer_idx) FROM executions", NULL, 0, c, 2)) != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    found->executed = c[1];
    return RIP_OK;
}

/* The row checks of schema versions 1 and 2 (a migration's input). */
static rip_status check_rows_v2(sqlite3 *db, const char *path, const rip_run_info *run, rip_db_found *found,
                                char err[RIP_ERR_LEN])
{
    int64_t c[4] = {0}, bad[3] = {0};
    int rc = row_ints(db,
                      "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM layers), "
                      "(SELECT count(*) FROM formulas), (SELECT count(*) FROM truths)",
                      NULL, 0, c, 4);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    int64_t runs = c[0], layers = c[1], formulas = c[2], truths = c[3], verdicts = 0;
    if ((rc = row_ints(db, "SELECT count(*) FROM verdicts", NULL, 0, &verdicts, 1)) != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    found->layers = layers;
    found->formulas = formulas;
    if (runs > 1 || (runs == 1 && !run)) {
        snprintf(err, RIP_ERR_LEN, "%s: damaged database, refused (%lld rows in runs, no run %d)", path,
                 (long long)runs, RIP_DB_RUN_ID);
        return RIP_S_DATA;
    }
    if (!run) {
        if (layers + truths + verdicts == 0)
            return RIP_OK; /* created by an old ripsim, run row not yet written */
        snprintf(err, RIP_ERR_LEN, "%s: damaged database, refused (rows stored but no run)", path);
        return RIP_S_DATA;
    }
    if (run->n_layers < 1 || run->shard_count < 1 || run->shard_index < 0 ||
        run->shard_index >= run->shard_count) {
        snprintf(err, RIP_ERR_LEN, "%s: damaged database, refused (run of n %lld, shard %lld/%lld)", path,
                 (long long)run->n_layers, (long long)run->shard_index, (long long)run->shard_count);
        return RIP_S_DATA;
    }
    if (layers > 0 && formulas < 1) {
        snprintf(err, RIP_ERR_LEN, "%s: damaged database, refused (the formulas table is empty)", path);
        return RIP_S_DATA;
    }
    const int64_t b[3] = {run->n_layers, run->shard_count, run->shard_index};
    rc = row_ints(db,
                  "SELECT count(*), min(layer_idx) FROM layers WHERE run_id <> 1"
                  " OR layer_idx < 0 OR layer_idx >= ?1 OR layer_idx % ?2 <> ?3",
                  b, 3, bad, 2);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    if (bad[0] > 0) {
        snprintf(err, RIP_ERR_LEN, "%s: damaged database, refused (%lld layers outside the run, first %lld)",
                 path, (long long)bad[0], (long long)bad[1]);
        return RIP_S_DATA;
    }
    const int64_t per[2] = {RIP_DB_V3_CONFIGS, formulas};
    rc = row_ints(db,
                  "SELECT count(*), min(layer_idx) FROM layers l WHERE "
                  "(SELECT count(*) FROM truths t WHERE t.run_id = l.run_id AND t.layer_idx = l.layer_idx) <> ?1"
                  " OR (SELECT count(*) FROM verdicts v WHERE v.run_id = l.run_id AND v.layer_idx = l.layer_idx)"
                  " <> ?2",
                  per, 2, bad, 2);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    if (bad[0] > 0) {
        snprintf(err, RIP_ERR_LEN,
                 "%s: damaged database, refused (%lld layers lack truths or verdicts, first layer %lld)", path,
                 (long long)bad[0], (long long)bad[1]);
        return RIP_S_DATA;
    }
    /* every layer has exactly its rows, so equal totals mean no orphans */
    if (truths != layers * RIP_DB_V3_CONFIGS || verdicts != layers * formulas) {
        snprintf(err, RIP_ERR_LEN,
                 "%s: damaged database, refused (%lld truths and %lld verdicts for %lld layers)", path,
                 (long long)truths, (long long)verdicts, (long long)layers);
        return RIP_S_DATA;
    }
    return found->schema_version >= 2 ? check_executions(db, path, found, err) : RIP_OK;
}

/* One line "damaged database, refused (why)" for the v3 checks. */
static rip_status damaged(const char *path, const char *why, int64_t a, int64_t b, char err[RIP_ERR_LEN])
{
    char w[200];
    snprintf(w, sizeof w, why, (long long)a, (long long)b);
    snprintf(err, RIP_ERR_LEN, "%.200s: damaged database, refused (%s)", path, w);
    return RIP_S_DATA;
}

/* Schema versions 3 and 4 (see the top of this file). */
static rip_status check_rows_v3(sqlite3 *db, const char *path, const rip_run_info *run, rip_db_found *found,
                                char err[RIP_ERR_LEN])
{
    int64_t c[4] = {0}, bad[2] = {0};
    /* layer_results: layer_idx, gen, 20 geometry columns (version 4: and n_in_read), then the
    ** configurations (version 3: all but herringbone_pruned) and the formulas */
    const bool v4 = found->schema_version >= 4;
    const int64_t first_truth = v4 ? 23 : 22, n_configs = v4 ? RIP_EXEC_COUNT : RIP_DB_V3_CONFIGS;
    const int64_t col[2] = {first_truth, first_truth + n_configs};
    int rc = row_ints(db,
                      "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM layer_results),"
                      " (SELECT count(*) FROM formulas), (SELECT count(*) FROM configs)",
                      NULL, 0, c, 4);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    int64_t runs = c[0], layers = c[1], formulas = c[2], configs = c[3];
    found->layers = layers;
    found->formulas = formulas;
    if (runs > 1 || (runs == 1 && !run))
        return damaged(path, "%lld rows in runs, no run 1", runs, 0, err);
    if (!run)
        return layers == 0 ? RIP_OK : damaged(path, "%lld layers stored but no run", layers, 0, err);
    if (run->n_layers < 1 || run->shard_count < 1 || run->shard_index < 0 || run->shard_index >= run->shard_count)
        return damaged(path, "run of n %lld, shard count %lld", run->n_layers, run->shard_count, err);
    /* the lookup tables name the columns they index */
    rc = row_ints(db,
                  "SELECT (SELECT count(*) FROM configs c JOIN pragma_table_info('layer_results') p"
                  "         ON p.name = c.exec_config AND p.cid = ?1 + c.config_id),"
                  " (SELECT count(*) FROM formulas f JOIN pragma_table_info('layer_results') p"
                  "         ON p.name = f.formula AND p.cid = ?2 + f.ord),"
                  " (SELECT count(*) FROM pragma_table_info('layer_results'))",
                  col, 2, c, 3);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    /* (an empty formulas table is damage only once layers are stored, as in version 2) */
    if (configs != n_configs || c[0] != configs || c[1] != formulas ||
        c[2] != col[1] + RIP_DB_N_FORMULAS || (layers > 0 && formulas != RIP_DB_N_FORMULAS))
        return damaged(path, "%lld configurations and %lld formulas do not name the columns of layer_results",
                       configs, formulas, err);
    const int64_t b[3] = {run->n_layers, run->shard_count, run->shard_index};
    rc = row_ints(db, "SELECT count(*), min(layer_idx) FROM layer_results WHERE layer_idx < 0 OR layer_idx >= ?1",
                  b, 1, bad, 2);
    /* known generators: ripsim numbers them 0..n-1, and a range test per row
    ** costs a third less than a lookup (the fallback, for any other table) */
    int64_t g[3] = {0};
    if (rc == SQLITE_OK && bad[0] == 0)
        rc = row_ints(db, "SELECT count(*), coalesce(min(ord), 0), coalesce(max(ord), -1) FROM generators", NULL, 0,
                      g, 3);
    const int64_t bg[4] = {run->n_layers, run->shard_count, run->shard_index, g[0]};
    const bool numbered = g[1] == 0 && g[2] == g[0] - 1;
    if (rc == SQLITE_OK && bad[0] == 0)
        rc = row_ints(db,
                      numbered
                          ? "SELECT count(*), min(layer_idx) FROM layer_results"
                            " WHERE (?2 > 1 AND layer_idx % ?2 <> ?3) OR gen < 0 OR gen >= ?4"
                          : "SELECT count(*), min(layer_idx) FROM layer_results"
                            " WHERE (?2 > 1 AND layer_idx % ?2 <> ?3) OR gen NOT IN (SELECT ord FROM generators)",
                      bg, numbered ? 4 : 3, bad, 2);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    if (bad[0] > 0)
        return damaged(path, "%lld layers outside the run or of no known generator, first %lld", bad[0], bad[1], err);
    /* every formula's verdicts add up to the layers: no layer came or went without its counts */
    rc = row_ints(db,
                  "SELECT (SELECT count(*) FROM formulas f WHERE ?1 <>"
                  "          coalesce((SELECT sum(n) FROM verdict_counts c WHERE c.ord = f.ord), 0)),"
                  " (SELECT count(*) FROM verdict_counts WHERE n < 0 OR ord NOT IN (SELECT ord FROM formulas))",
                  &layers, 1, c, 2);
    if (rc != SQLITE_OK)
        return sql_failed(db, rc, path, err);
    if (c[0] + c[1] > 0)
        return damaged(path, "verdict_counts disagrees with the %lld layers stored (%lld formulas)", layers,
                       c[0] + c[1], err);
    return check_executions(db, path, found, err);
}

rip_status rip_db_check_rows(sqlite3 *db, const char *path, const rip_run_info *run, rip_db_found *found,
                             char err[RIP_ERR_LEN])
{
    return found->schema_version >= 3 ? check_rows_v3(db, path, run, found, err)
                                      : check_rows_v2(db, path, run, found, err);
}
