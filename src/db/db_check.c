/*
** db_check.c — is a sweep database whole and ripsim's?  The one check
** (rip_db_check, db.h) that every command runs on every database it opens,
** inside one read transaction, so that it judges one state of the file
** however another process writes it meanwhile.  In order:
**
** Version: PRAGMA user_version and table runs say which ripsim schema it is.
**
** Schema (db_check_schema.c): exactly the objects ripsim creates for that
** version, before anything could run a foreign trigger or view.
**
** Pages: SQLite's PRAGMA quick_check (b-tree structure, page use, record
** format, NOT NULL).  It finds the damage of bytes overwritten anywhere in
** the file, because every b-tree page starts with a header it validates.
** It does not compare index to table content (integrity_check does, at
** about 3x the cost: 0.42 s against 0.16 s on a 10,000-layer database).
**
** Rows, versions 1 and 2: every stored layer lies in the run (index below
** n, in its shard), has exactly one truth per execution configuration and
** one verdict per formula of the formulas table, and no truth or verdict
** exists without its layer.  A sweep writes a batch of layers with all
** their rows in one transaction, so anything else is damage (or rows
** deleted by hand), and resuming over it would report a run complete that
** is not.  From schema version 2 on, table executions must exist, and a
** layer has all RIP_DB_EXEC_CONFIGS execution rows or none (a sweep without
** --execute stores none), none without its layer.
**
** Rows, versions 3 to 5 (4 adds n_in_read and the column of
** herringbone_pruned): a layer's truths and values are its one row (NOT
** NULL truths, which quick_check verifies), so "every layer has all its
** rows" holds by construction.  The lookup tables name the columns of
** layer_results (table_info), and executions are whole per layer.
** Version 5: table columns, the column dictionary, names exactly the
** columns of the tables and views (its wording is documentation and is
** not compared).
**
** Values (db_check_values.c): every value an integer in range, every layer
** in the run and of a known generator, and the verdicts recomputed from
** the truths and values equal to verdict_counts (versions 3 to 5) or to the
** stored verdicts (versions 1, 2).
*/
#include "db.h"
#include "db_check.h"
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

rip_status rip_db_check_failed(sqlite3 *db, int rc, const char *path, char err[RIP_ERR_LEN])
{
    rip_status s = rip_db_status(rc);
    if (s == RIP_S_BUSY)
        snprintf(err, RIP_ERR_LEN, "%.200s: locked by another process (waited %d s)", path,
                 RIP_DB_BUSY_MS / 1000);
    else if (s == RIP_S_NOMEM)
        snprintf(err, RIP_ERR_LEN, "out of memory");
    else
        snprintf(err, RIP_ERR_LEN, "%.200s: damaged database, refused (%.200s)", path, sqlite3_errmsg(db));
    rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    return s == RIP_S_BUSY || s == RIP_S_NOMEM ? s : RIP_S_DATA;
}

/* SQLite's quick_check: the first problem is enough to refuse. */
static rip_status check_pages(sqlite3 *db, const char *path, char err[RIP_ERR_LEN])
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
        s = rip_db_check_failed(db, rc, path, err);
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
        return rip_db_check_failed(db, rc, path, err);
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
        return rip_db_check_failed(db, rc, path, err);
    if (bad[0] > 0) {
        snprintf(err, RIP_ERR_LEN,
                 "%s: damaged database, refused (%lld layers lack executions of some configuration, first %lld)",
                 path, (long long)bad[0], (long long)bad[1]);
        return RIP_S_DATA;
    }
    rc = row_ints(db, orphans, NULL, 0, bad, 2);
    if (rc != SQLITE_OK)
        return rip_db_check_failed(db, rc, path, err);
    if (bad[0] > 0) {
        snprintf(err, RIP_ERR_LEN, "%s: damaged database, refused (%lld executions without their layer, first %lld)",
                 path, (long long)bad[0], (long long)bad[1]);
        return RIP_S_DATA;
    }
    if ((rc = row_ints(db, "SELECT count(*), count(DISTINCT layer_idx) FROM executions", NULL, 0, c, 2)) != SQLITE_OK)
        return rip_db_check_failed(db, rc, path, err);
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
        return rip_db_check_failed(db, rc, path, err);
    int64_t runs = c[0], layers = c[1], formulas = c[2], truths = c[3], verdicts = 0;
    if ((rc = row_ints(db, "SELECT count(*) FROM verdicts", NULL, 0, &verdicts, 1)) != SQLITE_OK)
        return rip_db_check_failed(db, rc, path, err);
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
        return rip_db_check_failed(db, rc, path, err);
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
        return rip_db_check_failed(db, rc, path, err);
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
    rip_status s = found->schema_version >= 2 ? check_executions(db, path, found, err) : RIP_OK;
    return s == RIP_OK ? rip_db_check_verdict_rows(db, path, err) : s;
}

rip_status rip_db_damaged(const char *path, const char *why, int64_t a, int64_t b, char err[RIP_ERR_LEN])
{
    char w[200];
    snprintf(w, sizeof w, why, (long long)a, (long long)b);
    snprintf(err, RIP_ERR_LEN, "%.200s: damaged database, refused (%s)", path, w);
    return RIP_S_DATA;
}

/* Schema versions 3 to 5 (see the top of this file). */
static rip_status check_rows_v3(sqlite3 *db, const char *path, const rip_run_info *run, rip_db_found *found,
                                char err[RIP_ERR_LEN])
{
    int64_t c[4] = {0};
    /* layer_results: layer_idx, gen, 20 geometry columns (version 4 on: and n_in_read), then the
    ** configurations (version 3: all but herringbone_pruned) and the formulas */
    const bool v4 = found->schema_version >= 4;
    const int64_t first_truth = v4 ? 23 : 22, n_configs = v4 ? RIP_CONFIG_COUNT : RIP_DB_V3_CONFIGS;
    const int64_t col[2] = {first_truth, first_truth + n_configs};
    /* (whether layers are stored: their number comes from the pass over them, which counts them) */
    int rc = row_ints(db,
                      "SELECT (SELECT count(*) FROM runs), EXISTS (SELECT 1 FROM layer_results),"
                      " (SELECT count(*) FROM formulas), (SELECT count(*) FROM configs)",
                      NULL, 0, c, 4);
    if (rc != SQLITE_OK)
        return rip_db_check_failed(db, rc, path, err);
    int64_t runs = c[0], layers = c[1], formulas = c[2], configs = c[3];
    found->formulas = formulas;
    if (runs > 1 || (runs == 1 && !run))
        return rip_db_damaged(path, "%lld rows in runs, no run 1", runs, 0, err);
    if (!run)
        return layers == 0 ? RIP_OK : rip_db_damaged(path, "layers stored but no run", 0, 0, err);
    if (run->n_layers < 1 || run->shard_count < 1 || run->shard_index < 0 || run->shard_index >= run->shard_count)
        return rip_db_damaged(path, "run of n %lld, shard count %lld", run->n_layers, run->shard_count, err);
    /* the lookup tables name the columns they index */
    rc = row_ints(db,
                  "SELECT (SELECT count(*) FROM configs c JOIN pragma_table_info('layer_results') p"
                  "         ON p.name = c.exec_config AND p.cid = ?1 + c.config_id),"
                  " (SELECT count(*) FROM formulas f JOIN pragma_table_info('layer_results') p"
                  "         ON p.name = f.formula AND p.cid = ?2 + f.ord),"
                  " (SELECT count(*) FROM pragma_table_info('layer_results'))",
                  col, 2, c, 3);
    if (rc != SQLITE_OK)
        return rip_db_check_failed(db, rc, path, err);
    /* (an empty formulas table is damage only once layers are stored, as in version 2) */
    if (configs != n_configs || c[0] != configs || c[1] != formulas ||
        c[2] != col[1] + RIP_DB_N_FORMULAS || (layers > 0 && formulas != RIP_DB_N_FORMULAS))
        return rip_db_damaged(path, "%lld configurations and %lld formulas do not name the columns of layer_results",
                       configs, formulas, err);
    /* version 5: the column dictionary names exactly the columns of the tables and views */
    if (found->schema_version >= 5) {
        rc = row_ints(db,
                       "WITH s AS MATERIALIZED (SELECT m.name AS t, p.name AS c FROM sqlite_master m"
                       "  JOIN pragma_table_info(m.name) p WHERE m.type IN ('table', 'view'))"
                       " SELECT (SELECT count(*) FROM (SELECT t, c FROM s EXCEPT SELECT table_name, column_name"
                       " FROM columns)) + (SELECT count(*) FROM (SELECT table_name, column_name FROM columns"
                       " EXCEPT SELECT t, c FROM s))", NULL, 0, c, 1);
        if (rc != SQLITE_OK)
            return rip_db_check_failed(db, rc, path, err);
        if (c[0] != 0)
            return rip_db_damaged(path, "the column dictionary (table columns) misses or invents %lld columns",
                                  c[0], 0, err);
    }
    rip_status s = rip_db_check_layer_values(db, path, run, first_truth, n_configs, &found->layers, err);
    return s == RIP_OK ? check_executions(db, path, found, err) : s;
}

/* Single integer from a query; an SQLite code (a query that returns no row: SQLITE_CORRUPT). */
static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    return row_ints(db, sql, NULL, 0, out, 1);
}

/* "not an SQLite database, or damaged" for a failed first read of the file. */
static rip_status unreadable(sqlite3 *db, int rc, const char *path, char err[RIP_ERR_LEN])
{
    rip_status s = rip_db_status(rc);
    if (s == RIP_S_BUSY)
        snprintf(err, RIP_ERR_LEN, "%.200s: locked by another process (waited %d s)", path, RIP_DB_BUSY_MS / 1000);
    else if (s == RIP_S_DATA)
        snprintf(err, RIP_ERR_LEN, "%.200s: not an SQLite database, or damaged (read: %.150s)", path,
                 sqlite3_errmsg(db));
    else
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot read (%.150s)", path, sqlite3_errmsg(db));
    rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    return s == RIP_S_INTERNAL ? RIP_S_IO : s;
}

/* The schema version of a file that holds a database: one ripsim reads or converts, or RIP_S_DATA. */
static rip_status check_version(sqlite3 *db, const char *path, int64_t *version, char err[RIP_ERR_LEN])
{
    int64_t has_runs = 0;
    int rc = query_int(db, "PRAGMA user_version", version);
    if (rc == SQLITE_OK)
        rc = query_int(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='runs'", &has_runs);
    if (rc != SQLITE_OK)
        return unreadable(db, rc, path, err);
    if (*version >= RIP_DB_SCHEMA_OLDEST && *version <= RIP_DB_SCHEMA_VERSION && has_runs)
        return RIP_OK;
    if (*version >= RIP_DB_SCHEMA_OLDEST && *version <= RIP_DB_SCHEMA_VERSION)
        snprintf(err, RIP_ERR_LEN, "%s: not a ripsim database (no runs table)", path);
    else if (*version == 0 && !has_runs)
        snprintf(err, RIP_ERR_LEN, "%s: not a ripsim database (no schema version, no runs table)", path);
    else
        snprintf(err, RIP_ERR_LEN, "%s: schema version %lld, this ripsim reads version %d (and converts versions %d to %d "
                 "with ripsim migrate)", path, (long long)*version, RIP_DB_SCHEMA_VERSION, RIP_DB_SCHEMA_OLDEST,
                 RIP_DB_SCHEMA_VERSION - 1);
    return RIP_S_DATA;
}

rip_status rip_db_check(sqlite3 *db, const char *path, rip_db_found *found, bool *hot, char err[RIP_ERR_LEN])
{
    int64_t pages = 0, version = -1;
    char why[RIP_ERR_LEN];
    memset(found, 0, sizeof *found);
    *hot = false;
    if (sqlite3_get_autocommit(db)) {
        snprintf(err, RIP_ERR_LEN, "internal: the check of %.200s needs a read transaction", path);
        return RIP_S_INTERNAL;
    }
    int rc = query_int(db, "PRAGMA page_count", &pages);
    if (rc != SQLITE_OK) {
        *hot = sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK;
        if (*hot) {
            snprintf(err, RIP_ERR_LEN, "%.200s: a write to it was interrupted (hot %.200s-journal); rerun the "
                     "sweep that writes it to recover, then retry", path, path);
            return RIP_S_BUSY;
        }
        return unreadable(db, rc, path, err);
    }
    if (pages == 0) { /* an interrupted creation, rolled back: nothing stored */
        found->empty = true;
        return RIP_OK;
    }
    rip_status s = check_version(db, path, &version, err);
    if (s == RIP_OK)
        s = rip_db_check_schema(db, path, version, err);
    if (s == RIP_OK)
        s = check_pages(db, path, err);
    if (s != RIP_OK)
        return s;
    found->schema_version = version;
    int got = rip_db_read_run(db, &found->run, why);
    if (got < 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: %.250s", path, why);
        return RIP_S_DATA;
    }
    found->has_run = got == 0;
    const rip_run_info *run = found->has_run ? &found->run : NULL;
    return version >= 3 ? check_rows_v3(db, path, run, found, err) : check_rows_v2(db, path, run, found, err);
}

rip_status rip_db_check_now(sqlite3 *db, const char *path, rip_db_found *found, char err[RIP_ERR_LEN])
{
    bool hot = false;
    int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return rip_db_check_failed(db, rc, path, err);
    rip_status s = rip_db_check(db, path, found, &hot, err);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL); /* it read only */
    return s;
}
