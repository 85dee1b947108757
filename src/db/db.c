/*
** db.c — opening, validating and initialising the verdict database.
**
** The rule that shapes this file: a database that is not ours, or is ours
** at another schema version or for another run, is never modified.  So the
** checks read first (user_version, the runs table) and only a validated
** database is switched to WAL or written.
*/
#include "db.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "formulas.h"
#include "generator.h"
#include "status.h"

void rip_db_close(sqlite3 *db)
{
    if (db)
        sqlite3_close_v2(db);
}

int rip_db_exec(sqlite3 *db, const char *sql, char err[RIP_ERR_LEN])
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "database: %s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* Single integer from a query; -1 with err on failure. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
        snprintf(err, RIP_ERR_LEN, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

/* Is this an existing ripsim database of our version?  0 or an exit status. */
static int validate(sqlite3 *db, const char *path, char err[RIP_ERR_LEN])
{
    char why[RIP_ERR_LEN];
    int64_t version = -1, has_runs = 0;
    if (query_int(db, "PRAGMA user_version", &version, why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.100s: not an SQLite database (%.120s)", path, why);
        return RIP_EX_DATAERR;
    }
    if (query_int(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='runs'",
                  &has_runs, why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.100s: cannot read (%.120s)", path, why);
        return RIP_EX_DATAERR;
    }
    if (version != RIP_DB_SCHEMA_VERSION) {
        if (version == 0 && !has_runs)
            snprintf(err, RIP_ERR_LEN, "%s: not a ripsim database (no schema version, no runs table)", path);
        else
            snprintf(err, RIP_ERR_LEN, "%s: schema version %lld, this ripsim reads version %d",
                     path, (long long)version, RIP_DB_SCHEMA_VERSION);
        return RIP_EX_DATAERR;
    }
    if (!has_runs) {
        snprintf(err, RIP_ERR_LEN, "%s: not a ripsim database (no runs table)", path);
        return RIP_EX_DATAERR;
    }
    return 0;
}

static int create_schema(sqlite3 *db, const char *path, char err[RIP_ERR_LEN])
{
    char why[RIP_ERR_LEN], sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d;", RIP_DB_SCHEMA_VERSION);
    if (rip_db_exec(db, "BEGIN", why) != 0 || rip_db_exec(db, rip_db_schema_sql, why) != 0 ||
        rip_db_exec(db, sql, why) != 0 || rip_db_exec(db, "COMMIT", why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.100s: cannot create the database (%.120s)", path, why);
        return RIP_EX_CANTCREAT;
    }
    return 0;
}

int rip_db_open(const char *path, rip_db_mode mode, sqlite3 **out, bool *created, char err[RIP_ERR_LEN])
{
    sqlite3 *db = NULL;
    struct stat sb;
    bool exists = stat(path, &sb) == 0;
    bool fresh = !exists || (S_ISREG(sb.st_mode) && sb.st_size == 0);
    int rc = 0;

    if (created)
        *created = false;
    if (exists && !S_ISREG(sb.st_mode)) {
        snprintf(err, RIP_ERR_LEN, "%s: not a regular file", path);
        return RIP_EX_DATAERR;
    }
    if (!exists && mode != RIP_DB_CREATE) {
        snprintf(err, RIP_ERR_LEN, "%s: no such database", path);
        return RIP_EX_NOINPUT;
    }
    if (exists && access(path, mode == RIP_DB_READ ? R_OK : R_OK | W_OK) != 0) {
        snprintf(err, RIP_ERR_LEN, "%s: %s", path, strerror(errno));
        return mode == RIP_DB_READ ? RIP_EX_NOINPUT : RIP_EX_CANTCREAT;
    }
    int flags = mode == RIP_DB_READ ? SQLITE_OPEN_READONLY
              : SQLITE_OPEN_READWRITE | (mode == RIP_DB_CREATE ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "%s: cannot open (%s)", path, db ? sqlite3_errmsg(db) : "out of memory");
        rc = mode == RIP_DB_CREATE && !exists ? RIP_EX_CANTCREAT : RIP_EX_NOINPUT;
        goto fail;
    }
    sqlite3_busy_timeout(db, 10000);
    if (fresh && mode == RIP_DB_CREATE) {
        if ((rc = create_schema(db, path, err)) != 0) {
            sqlite3_close_v2(db);
            db = NULL;
            if (!exists)
                unlink(path);
            return rc;
        }
        if (created)
            *created = true;
    } else if ((rc = validate(db, path, err)) != 0) {
        goto fail;
    }
    *out = db;
    return 0;
fail:
    rip_err_one_line(err);   /* SQLite quotes damaged schema text, newlines and all */
    rip_db_close(db);
    return rc;
}

int rip_db_read_run(sqlite3 *db, rip_run_info *run, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int result = -1;
    int rc = sqlite3_prepare_v2(db,
        "SELECT seed, n_layers, shard_index, shard_count, generator_set, ripsim_version "
        "FROM runs WHERE run_id = ?", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 1, RIP_DB_RUN_ID);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        result = 1;
    } else if (rc == SQLITE_ROW) {
        run->seed = sqlite3_column_int64(st, 0);
        run->n_layers = sqlite3_column_int64(st, 1);
        run->shard_index = sqlite3_column_int64(st, 2);
        run->shard_count = sqlite3_column_int64(st, 3);
        snprintf(run->generator_set, sizeof run->generator_set, "%s",
                 (const char *)sqlite3_column_text(st, 4));
        snprintf(run->version, sizeof run->version, "%s", (const char *)sqlite3_column_text(st, 5));
        result = 0;
    } else {
        snprintf(err, RIP_ERR_LEN, "database: cannot read the run (%s)", sqlite3_errmsg(db));
        rip_err_one_line(err);
    }
    sqlite3_finalize(st);
    return result;
}

int rip_db_write_run(sqlite3 *db, const rip_run_info *run, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
        "INSERT INTO runs (run_id, seed, n_layers, shard_index, shard_count, generator_set, "
        "ripsim_version) VALUES (?,?,?,?,?,?,?)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int(st, 1, RIP_DB_RUN_ID);
        sqlite3_bind_int64(st, 2, run->seed);
        sqlite3_bind_int64(st, 3, run->n_layers);
        sqlite3_bind_int64(st, 4, run->shard_index);
        sqlite3_bind_int64(st, 5, run->shard_count);
        sqlite3_bind_text(st, 6, run->generator_set, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, run->version, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    st = NULL;

    size_t nf = 0;
    const rip_formula_info *f = rip_formulas(&nf);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO formulas VALUES (?,?,?,?,?)", -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < nf; i++) {
        sqlite3_bind_text(st, 1, f[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_text(st, 3, f[i].paper, -1, SQLITE_STATIC);
        if (f[i].judged_by)
            sqlite3_bind_text(st, 4, f[i].judged_by, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 4);
        sqlite3_bind_int(st, 5, f[i].is_workspace);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    st = NULL;

    size_t ng = 0;
    const rip_generator *const *g = rip_generators(&ng);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO generators VALUES (?,?,?,?,?,?)", -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < ng; i++) {
        sqlite3_bind_text(st, 1, g[i]->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_int(st, 3, g[i]->tier);
        sqlite3_bind_int(st, 4, g[i]->weight);
        sqlite3_bind_text(st, 5, g[i]->title, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, g[i]->ranges, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "database: cannot record the run (%s)", sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

int rip_db_tune_for_writing(sqlite3 *db, char err[RIP_ERR_LEN])
{
    /* WAL + NORMAL: a committed batch survives kill -9 of this process; a
    ** batch in flight is rolled back as a whole on the next open. */
    return rip_db_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err);
}

int rip_db_log(sqlite3 *db, const char *event, const char *detail)
{
    char at[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "INSERT INTO run_log VALUES (?,?,?,?)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int(st, 1, RIP_DB_RUN_ID);
        sqlite3_bind_text(st, 2, at, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, event, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, detail, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}
