/*
** db_migrate.c — convert a schema version 1 to 4 database to the current
** version (5) in place (see db.h, rip_db_migrate).
**
** Order of work, so that nothing is lost however it ends: check the input
** read-only (the checks of its own version), build the current version in
** a temporary file beside it (".NAME.migrate-PID-N", one transaction),
** simulate herringbone_pruned (which versions 1 to 3 lack) for every
** layer, copy version 4's rows as they are (its optima too), compare every
** row the views of the current version give with the rows of the input
** (layers, truths, verdicts, executions, in version 4's columns; versions
** 3 and 4 give them by their views), flush, and rename over the input.
** The provenance version 5 adds to runs is not invented: a migrated run
** says RIP_DB_UNRECORDED for its source commit and generator fingerprint.
** Until the rename the input is untouched; after it, it is the converted
** database.  A kill leaves at worst the temporary file.  A path that is a
** symbolic link is converted through it, the file keeping its owner and
** mode (db_replace.c).
*/
#include "db.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formulas.h"

/* A value of one row of sql, or -1 when it fails. */
static int64_t one(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* Columns of layer_results that every version has, up to n_out. */
static const char geometry_cols[] =
    "layer_idx, gen, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, p_top, p_bottom, p_left, p_right,"
    " h_out, w_out, restricted, n_in_padded, n_in_dense, n_out";

/* ", name" for the first RIP_DB_V3_CONFIGS configurations and every formula, appended at sql + n. */
static size_t append_names(char *sql, size_t len, size_t n, bool formulas)
{
    size_t nf = 0;
    const rip_formula_info *f = rip_formulas(&nf);
    if (!formulas)
        for (int e = 0; e < RIP_DB_V3_CONFIGS && n < len; e++)
            n += (size_t)snprintf(sql + n, len - n, ", %s", rip_config_name((rip_config)e));
    for (size_t i = 0; formulas && i < nf && n < len; i++)
        n += (size_t)snprintf(sql + n, len - n, ", %s", f[i].name);
    return n;
}

/*
** The INSERT of layer_results from the rows of schema s (version 1 or 2:
** its tables; version 3: its layer_results, column for column; version 4:
** all of its layer_results).  n_in_read and herringbone_pruned, which
** versions 1 to 3 lack, are 0 here and computed by fill_pruned().  False
** if it does not fit in len.
*/
static bool pivot_sql(char *sql, size_t len, int64_t version)
{
    if (version >= 4)
        return snprintf(sql, len, "INSERT INTO main.layer_results SELECT * FROM s.layer_results ORDER BY layer_idx")
               < (int)len;
    size_t n = (size_t)snprintf(sql, len, "INSERT INTO main.layer_results (%s", geometry_cols), nf = 0;
    n = append_names(sql, len, n, false);
    if (n < len)
        n += (size_t)snprintf(sql + n, len - n, ", n_in_read, herringbone_pruned");
    n = append_names(sql, len, n, true);
    if (version >= 3) {
        if (n < len)
            n += (size_t)snprintf(sql + n, len - n, ") SELECT %s", geometry_cols);
        n = append_names(sql, len, n, false);
        if (n < len)
            n += (size_t)snprintf(sql + n, len - n, ", 0, 0");
        n = append_names(sql, len, n, true);
        if (n < len)
            n += (size_t)snprintf(sql + n, len - n, " FROM s.layer_results ORDER BY layer_idx");
        return n < len;
    }
    if (n < len)
        n += (size_t)snprintf(sql + n, len - n,
                              ") SELECT l.layer_idx, g.ord, l.cin, l.cout, l.h_in, l.w_in, l.k_h, l.k_w,"
                              " l.s_h, l.s_w, l.d_h, l.d_w, l.p_top, l.p_bottom, l.p_left, l.p_right, l.h_out,"
                              " l.w_out, l.restricted, l.n_in_padded, l.n_in_dense, l.n_out");
    for (int e = 0; e < RIP_DB_V3_CONFIGS && n < len; e++)
        n += (size_t)snprintf(sql + n, len - n,
                              ", (SELECT gap FROM s.truths t WHERE t.run_id = 1 AND t.layer_idx = l.layer_idx"
                              " AND t.exec_config = '%s')", rip_config_name((rip_config)e));
    if (n < len)
        n += (size_t)snprintf(sql + n, len - n, ", 0, 0");
    const rip_formula_info *f = rip_formulas(&nf);
    for (size_t i = 0; i < nf && n < len; i++)
        n += (size_t)snprintf(sql + n, len - n,
                              ", (SELECT value FROM s.verdicts v WHERE v.run_id = 1 AND v.layer_idx = l.layer_idx"
                              " AND v.formula = '%s')", f[i].name);
    if (n < len)
        n += (size_t)snprintf(sql + n, len - n,
                              " FROM s.layers l JOIN main.generators g USING (generator) WHERE l.run_id = 1"
                              " ORDER BY l.layer_idx");
    return n < len;
}

/*
** Version 4's additions for every converted layer: n_in_read and the truth
** of herringbone_pruned, computed by the caller's pruned() (the fast
** simulator, with the engine and search of a default sweep, so a migrated
** database holds the rows a sweep would write).  RIP_OK; RIP_S_DATA (a
** layer that does not derive: rows that do not convert), pruned()'s
** status, or SQLite's, with why[].
*/
static rip_status fill_pruned(sqlite3 *db, rip_db_pruned_fn pruned, char why[RIP_ERR_LEN])
{
    sqlite3_stmt *q = NULL, *u = NULL;
    int rc = sqlite3_prepare_v2(db,
        "SELECT layer_idx, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, p_top, p_bottom, p_left, p_right"
        " FROM main.layer_results ORDER BY layer_idx", -1, &q, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "UPDATE main.layer_results SET n_in_read = ?2, herringbone_pruned = ?3"
                                    " WHERE layer_idx = ?1", -1, &u, NULL);
    rip_status result = rc == SQLITE_OK ? RIP_OK : rip_db_status(rc);
    if (result != RIP_OK)
        snprintf(why, RIP_ERR_LEN, "%s", sqlite3_errmsg(db));
    while (result == RIP_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t v[1 + RIP_LAYER_GEOMETRY]; /* layer_idx, geometry */
        for (int i = 0; i < 1 + RIP_LAYER_GEOMETRY; i++)
            v[i] = sqlite3_column_int64(q, i);
        rip_layer L = rip_layer_from_geometry(v + 1);
        char e[RIP_ERR_LEN];
        int64_t gap = -1, n_read = -1;
        if (rip_layer_derive(&L, e) != 0) {
            snprintf(why, RIP_ERR_LEN, "layer %lld: %.300s", (long long)v[0], e);
            result = RIP_S_DATA;
        } else if ((result = pruned(&L, &n_read, &gap, e)) != RIP_OK) {
            snprintf(why, RIP_ERR_LEN, "layer %lld: %.300s", (long long)v[0], e);
        } else {
            sqlite3_bind_int64(u, 1, v[0]);
            sqlite3_bind_int64(u, 2, n_read);
            sqlite3_bind_int64(u, 3, gap);
            if ((rc = sqlite3_step(u)) != SQLITE_DONE) {
                snprintf(why, RIP_ERR_LEN, "%s", sqlite3_errmsg(db));
                result = rip_db_status(rc);
            }
            sqlite3_reset(u);
        }
    }
    if (result == RIP_OK && rc != SQLITE_DONE) {
        snprintf(why, RIP_ERR_LEN, "%s", sqlite3_errmsg(db));
        result = rip_db_status(rc);
    }
    sqlite3_finalize(q);
    sqlite3_finalize(u);
    return result;
}

/*
** Rows of the input that the converted database does not give back, per
** table; the verdicts' truth is compared where judged (older fixtures left
** it NULL for n/a).  -1 on failure.
*/
static int64_t rows_lost(sqlite3 *db, bool with_exec)
{
    /* layers in the columns every version has (version 5 adds spec) */
#define LAYER_COLS "run_id, layer_idx, generator, tier, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, " \
                   "p_h, p_w, p_top, p_bottom, p_left, p_right, h_out, w_out, restricted, n_in_padded, n_in_dense, n_out"
    static const char *const q[] = {
        "SELECT count(*) FROM (SELECT " LAYER_COLS " FROM s.layers EXCEPT SELECT " LAYER_COLS " FROM main.layers)",
        "SELECT count(*) FROM (SELECT * FROM s.truths EXCEPT SELECT * FROM main.truths)",
        "SELECT count(*) FROM (SELECT run_id, layer_idx, formula, exec_config, value, verdict, margin,"
        " CASE verdict WHEN 'n/a' THEN NULL ELSE truth END FROM s.verdicts EXCEPT"
        " SELECT run_id, layer_idx, formula, exec_config, value, verdict, margin,"
        " CASE verdict WHEN 'n/a' THEN NULL ELSE truth END FROM main.verdicts)",
        "SELECT count(*) FROM (SELECT * FROM s.executions EXCEPT SELECT * FROM main.executions)",
        "SELECT (SELECT count(*) FROM s.layers) - (SELECT count(*) FROM main.layer_results)",
    };
#undef LAYER_COLS
    int64_t lost = 0;
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        if (i == 3 && !with_exec)
            continue;
        int64_t n = one(db, q[i]);
        if (n < 0)
            return -1;
        lost += n < 0 ? -n : n;
    }
    return lost;
}

/*
** Version 4's optima (sweep --optimum), when s has them: table optima and
** view optimum_gaps made in main, with their rows of the column dictionary,
** and the rows copied.  RIP_OK, or SQLite's status with why[].
*/
static rip_status copy_optima(sqlite3 *db, int64_t version, char why[RIP_ERR_LEN])
{
    if (version < 4 || one(db, "SELECT count(*) FROM s.sqlite_master WHERE type = 'table' AND name = 'optima'") <= 0)
        return RIP_OK;
    if (rip_db_exec(db, rip_db_optima_sql, why) != 0 ||
        rip_db_exec(db, "INSERT INTO main.optima SELECT * FROM s.optima", why) != 0)
        return rip_db_status(sqlite3_errcode(db)) == RIP_OK ? RIP_S_IO : rip_db_status(sqlite3_errcode(db));
    return rip_db_fill_columns(db, why);
}

/* Fill the temporary database db (schema, reference tables and run made) from s. */
static rip_status convert(sqlite3 *db, const char *path, int64_t version, rip_db_pruned_fn pruned,
                          char err[RIP_ERR_LEN])
{
    const bool with_exec = version >= 2;
    char sql[8192], why[RIP_ERR_LEN];
    if (!pivot_sql(sql, sizeof sql, version)) {
        snprintf(err, RIP_ERR_LEN, "internal: the conversion query does not fit");
        return RIP_S_INTERNAL;
    }
    /* the reference tables as the input has them (its generators may not be this binary's);
    ** a formula this binary has no column for loses its verdicts, which the comparison finds */
    rip_status filled = RIP_OK;
    if (rip_db_exec(db, "BEGIN IMMEDIATE", why) != 0 ||
        rip_db_exec(db, "DELETE FROM main.generators; INSERT INTO main.generators SELECT * FROM s.generators;"
                        "DELETE FROM main.formulas; INSERT INTO main.formulas SELECT f.* FROM s.formulas f"
                        " JOIN pragma_table_info('layer_results') p ON p.name = f.formula", why) != 0 ||
        rip_db_exec(db, sql, why) != 0 || (version < 4 && (filled = fill_pruned(db, pruned, why)) != RIP_OK) ||
        (filled = copy_optima(db, version, why)) != RIP_OK ||
        (with_exec && rip_db_exec(db, "INSERT INTO main.executions SELECT * FROM s.executions", why) != 0) ||
        rip_db_exec(db, "INSERT INTO main.run_log SELECT * FROM s.run_log", why) != 0 ||
        rip_db_exec(db, rip_db_recount_sql, why) != 0) {
        /* a row that does not convert is bad data (65), as are SQLite's constraint failures */
        rip_status s = filled != RIP_OK ? filled : rip_db_status(sqlite3_errcode(db));
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot convert its rows (%.200s)%s", path, why,
                 s == RIP_S_DATA ? "; left as it was" : "");
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return s == RIP_S_BUSY || s == RIP_S_NOMEM || s == RIP_S_DATA || (filled != RIP_OK && s == RIP_S_INTERNAL)
                   ? s
                   : RIP_S_IO;
    }
    int64_t lost = rows_lost(db, with_exec);
    if (lost != 0) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        if (lost < 0)
            snprintf(err, RIP_ERR_LEN, "%.200s: cannot compare its rows (%.200s)", path, sqlite3_errmsg(db));
        else
            snprintf(err, RIP_ERR_LEN, "%.200s: %lld rows would not convert exactly (a generator or verdict "
                     "this ripsim does not know); left as it was", path, (long long)lost);
        return lost < 0 ? RIP_S_IO : RIP_S_DATA;
    }
    if (rip_db_exec(db, "COMMIT", why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot write the converted database (%.200s)", path, why);
        return RIP_S_IO;
    }
    return RIP_OK;
}

rip_status rip_db_migrate(const char *path, int64_t *from, int64_t *layers, rip_db_pruned_fn pruned,
                          const rip_progress_cb *progress, char err[RIP_ERR_LEN])
{
    char tmp[4200], uri[4200], why[RIP_ERR_LEN], real[4096];
    rip_db_found found;
    struct stat sb;
    sqlite3 *db = NULL;
    bool have_tmp = false;
    rip_status s;

    *from = *layers = 0;
    if (stat(path, &sb) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: %s", path, strerror(errno));
        return RIP_S_NOINPUT;
    }
    if ((s = rip_db_inspect_old(path, true, &found, err)) != RIP_OK)
        return s;
    if (found.empty || !found.has_run) {
        snprintf(err, RIP_ERR_LEN, "%s holds no run (an empty sweep database); delete it instead", path);
        return RIP_S_DATA;
    }
    *from = found.schema_version;
    *layers = found.layers;
    if (found.schema_version == RIP_DB_SCHEMA_VERSION)
        return RIP_OK;
    if (access(path, W_OK) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: %s", path, strerror(errno));
        return RIP_S_CANTCREATE;
    }
    /* a link is converted through: the file it names is built beside and replaced */
    const char *target = rip_db_resolve(path, real, sizeof real);
    rip_progress_report(progress, 0, 4, "creating the converted copy");
    if ((s = rip_db_temp_beside(target, "migrate", &sb, tmp, sizeof tmp, err)) != RIP_OK)
        return s;
    have_tmp = true;
    if ((s = rip_db_create(tmp, &found.run, &db, err)) != RIP_OK)
        goto done;
    sqlite3_stmt *st = NULL;
    int rc = rip_db_reader_uri(path, uri, sizeof uri) ? sqlite3_prepare_v2(db, "ATTACH ? AS s", -1, &st, NULL)
                                                      : SQLITE_CANTOPEN;
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot read it (%.200s)", path, sqlite3_errmsg(db));
        s = RIP_S_NOINPUT;
        goto done;
    }
    rip_progress_report(progress, 1, 4, "converting the rows");
    if ((s = convert(db, path, found.schema_version, pruned, err)) != RIP_OK)
        goto done;
    sqlite3_exec(db, "DETACH s", NULL, NULL, NULL);
    snprintf(why, sizeof why, "from schema version %lld, %lld layers", (long long)found.schema_version,
             (long long)found.layers);
    rip_db_log(db, "migrate", why);
    rip_db_found check;
    rip_progress_report(progress, 2, 4, "checking the copy");
    if ((s = rip_db_check_now(db, path, &check, err)) != RIP_OK)
        goto done;
    sqlite3_close_v2(db); /* every commit is on disk (synchronous=FULL) */
    db = NULL;
    rip_progress_report(progress, 3, 4, "putting it in place");
    if (rip_db_replace(tmp, target) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot put the converted database in place (%.100s)", path,
                 strerror(errno));
        s = RIP_S_IO;
        goto done;
    }
    have_tmp = false;
    rip_progress_report(progress, 4, 4, "converted");
done:
    sqlite3_close_v2(db);
    if (have_tmp)
        rip_db_remove_temp(tmp);
    return s;
}
