/*
** db.c — small services of the verdict database: statements, the run row,
** the run identity, run_log, and SQLite result codes as rip_status.
** Opening and creating live in db_open.c, the checks in db_check.c.
*/
#include "db.h"
#include "status.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "formulas.h"

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
        rip_err_one_line(err);   /* SQLite may quote damaged schema text */
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

rip_status rip_db_status(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK: case SQLITE_ROW: case SQLITE_DONE: return RIP_OK;
    case SQLITE_BUSY: case SQLITE_LOCKED: return RIP_S_BUSY;
    case SQLITE_NOMEM: return RIP_S_NOMEM;
    case SQLITE_CORRUPT: case SQLITE_NOTADB: case SQLITE_FORMAT: case SQLITE_SCHEMA:
    case SQLITE_MISMATCH: case SQLITE_CONSTRAINT: return RIP_S_DATA;
    case SQLITE_CANTOPEN: case SQLITE_PERM: case SQLITE_AUTH: return RIP_S_NOINPUT;
    case SQLITE_READONLY: return RIP_S_CANTCREATE;
    case SQLITE_IOERR: case SQLITE_FULL: case SQLITE_PROTOCOL: return RIP_S_IO;
    default: return RIP_S_INTERNAL;
    }
}

/* First comma-separated item where a and b differ ("" when one runs out). */
static void first_item_diff(const char *a, const char *b, char *ia, char *ib, size_t len)
{
    while (*a || *b) {
        size_t na = strcspn(a, ","), nb = strcspn(b, ",");
        if (na != nb || strncmp(a, b, na) != 0) {
            snprintf(ia, len, "%.*s", (int)na, a);
            snprintf(ib, len, "%.*s", (int)nb, b);
            return;
        }
        a += na + (a[na] == ',');
        b += nb + (b[nb] == ',');
    }
    ia[0] = ib[0] = '\0';
}

bool rip_run_same(const rip_run_info *a, const rip_run_info *b, bool with_shard, const char *a_name,
                  const char *b_name, char *what, size_t len)
{
    char ia[96], ib[96];
    if (a->seed != b->seed)
        snprintf(what, len, "--seed: %lld in %s, %lld in %s", (long long)a->seed, a_name,
                 (long long)b->seed, b_name);
    else if (a->n_layers != b->n_layers)
        snprintf(what, len, "--n: %lld in %s, %lld in %s", (long long)a->n_layers, a_name,
                 (long long)b->n_layers, b_name);
    else if (with_shard && (a->shard_index != b->shard_index || a->shard_count != b->shard_count))
        snprintf(what, len, "--shard: %lld/%lld in %s, %lld/%lld in %s", (long long)a->shard_index,
                 (long long)a->shard_count, a_name, (long long)b->shard_index,
                 (long long)b->shard_count, b_name);
    else if (strcmp(a->generator_set, b->generator_set) != 0) {
        first_item_diff(a->generator_set, b->generator_set, ia, ib, sizeof ia);
        snprintf(what, len, "generator categories (name:weight): '%s' in %s, '%s' in %s",
                 *ia ? ia : "(none)", a_name, *ib ? ib : "(none)", b_name);
    } else if (strcmp(a->fingerprint, b->fingerprint) != 0 && strcmp(a->fingerprint, RIP_DB_UNRECORDED) != 0 &&
               strcmp(b->fingerprint, RIP_DB_UNRECORDED) != 0)
        snprintf(what, len, "generator fingerprint: %s in %s (ripsim %s, %s), %s in %s (ripsim %s, %s): the "
                 "categories draw other layers",
                 a->fingerprint, a_name, a->version, a->commit, b->fingerprint, b_name, b->version, b->commit);
    else
        return true;
    return false;
}

int rip_db_read_run(sqlite3 *db, rip_run_info *run, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int result = -1;
    /* version 4 and older: no provenance columns */
    int rc = sqlite3_prepare_v2(db,
        "SELECT seed, n_layers, shard_index, shard_count, generator_set, ripsim_version, source_commit, "
        "generator_fingerprint FROM runs WHERE run_id = ?", -1, &st, NULL);
    if (rc != SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
            "SELECT seed, n_layers, shard_index, shard_count, generator_set, ripsim_version, '" RIP_DB_UNRECORDED
            "', '" RIP_DB_UNRECORDED "' FROM runs WHERE run_id = ?", -1, &st, NULL);
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
        const unsigned char *g = sqlite3_column_text(st, 4), *v = sqlite3_column_text(st, 5);
        snprintf(run->generator_set, sizeof run->generator_set, "%s", g ? (const char *)g : "");
        snprintf(run->version, sizeof run->version, "%s", v ? (const char *)v : "");
        const unsigned char *c = sqlite3_column_text(st, 6), *f = sqlite3_column_text(st, 7);
        snprintf(run->commit, sizeof run->commit, "%s", c ? (const char *)c : "");
        snprintf(run->fingerprint, sizeof run->fingerprint, "%s", f ? (const char *)f : "");
        result = 0;
    } else {
        snprintf(err, RIP_ERR_LEN, "database: cannot read the run (%s)", sqlite3_errmsg(db));
        rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    }
    sqlite3_finalize(st);
    return result;
}

int rip_db_write_run(sqlite3 *db, const rip_run_info *run, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
        "INSERT INTO runs (run_id, seed, n_layers, shard_index, shard_count, generator_set, "
        "ripsim_version, source_commit, generator_fingerprint) VALUES (?,?,?,?,?,?,?,?,?)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int(st, 1, RIP_DB_RUN_ID);
        sqlite3_bind_int64(st, 2, run->seed);
        sqlite3_bind_int64(st, 3, run->n_layers);
        sqlite3_bind_int64(st, 4, run->shard_index);
        sqlite3_bind_int64(st, 5, run->shard_count);
        sqlite3_bind_text(st, 6, run->generator_set, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, run->version, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 8, run->commit[0] ? run->commit : "unknown", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 9, run->fingerprint[0] ? run->fingerprint : RIP_DB_UNRECORDED, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    st = NULL;

    size_t nf = 0;
    const rip_formula_info *f = rip_formulas(&nf);
    if (rc == SQLITE_OK && nf != RIP_DB_N_FORMULAS)
        rc = SQLITE_MISMATCH; /* the schema has a value column per formula of the registry */
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

    /* schema versions 3 and 4: the configurations, in rip_config order (layer_results' columns) */
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO configs VALUES (?,?,?,?)", -1, &st, NULL);
    for (int e = 0; rc == SQLITE_OK && e < RIP_CONFIG_COUNT; e++) {
        sqlite3_bind_text(st, 1, rip_config_name((rip_config)e), -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, e);
        sqlite3_bind_int(st, 3, e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS);
        sqlite3_bind_int(st, 4, e == RIP_CONFIG_HB_PRUNED);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    st = NULL;

    size_t ng = run->n_generators;
    const rip_db_generator *g = run->generators;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO generators VALUES (?,?,?,?,?,?)", -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < ng; i++) {
        sqlite3_bind_text(st, 1, g[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_int(st, 3, g[i].tier);
        sqlite3_bind_int(st, 4, g[i].weight);
        sqlite3_bind_text(st, 5, g[i].title, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, g[i].ranges, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK && rip_db_fill_columns(db, err) != RIP_OK)
        return -1;
    if (rc != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "database: cannot record the run (%s)", sqlite3_errmsg(db));
        rip_err_one_line(err);   /* SQLite may quote damaged schema text */
        return -1;
    }
    return 0;
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
