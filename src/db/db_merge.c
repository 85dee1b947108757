/*
** db_merge.c — combine sweep shards into one database (see db.h).
**
** Order of work, so that a failure never leaves a partial OUT: check every
** input read-only (and an existing OUT), build the result in a temporary
** file beside OUT (".OUT.merge-PID-N"), copy OUT's own rows and run_log
** and then each input's (its run_log too, but an event OUT's own log
** already holds) in its own transaction, and rename the temporary
** file over OUT only when everything is in.  On failure the temporary file
** and its journal are removed and OUT is as it was.  Errors name the file
** at fault: rows two files hold differently name both, a write that fails
** names OUT (where the temporary file is), a read names the input.  An OUT
** that is a symbolic link is replaced through it (db_replace.c).
*/
#include "db.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int64_t count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/*
** Status and one line for a failed statement while copying path into the
** merged database (a temporary file beside out): a write that failed (a
** full disk, a file size limit, a read-only folder) is out's; anything
** else, path's.
*/
static rip_status copy_failed(sqlite3 *db, const char *path, const char *out, char err[RIP_ERR_LEN])
{
    int rc = sqlite3_extended_errcode(db);
    rip_status s = rip_db_status(rc);
    bool writing = (rc & 0xff) == SQLITE_FULL || (rc & 0xff) == SQLITE_READONLY || rc == SQLITE_IOERR_WRITE ||
                   rc == SQLITE_IOERR_FSYNC || rc == SQLITE_IOERR_DIR_FSYNC || rc == SQLITE_IOERR_TRUNCATE ||
                   rc == SQLITE_IOERR_DELETE || rc == SQLITE_IOERR_DIR_CLOSE || rc == SQLITE_IOERR_CLOSE;
    if (s == RIP_S_BUSY)
        snprintf(err, RIP_ERR_LEN, "%.200s: locked by another process (waited %d s)", path ? path : out,
                 RIP_DB_BUSY_MS / 1000);
    else if (writing || !path)
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot write the merged database (%.200s)", out, sqlite3_errmsg(db));
    else
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot copy its rows (%.200s)", path, sqlite3_errmsg(db));
    rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    if (writing)
        return (rc & 0xff) == SQLITE_READONLY ? RIP_S_CANTCREATE : RIP_S_IO;
    return s == RIP_S_BUSY || s == RIP_S_NOMEM || s == RIP_S_DATA ? s : RIP_S_IO;
}

/* Attach the database at path read-only as schema name; an SQLite code. */
static int attach(sqlite3 *db, const char *path, const char *name)
{
    char uri[4200], sql[64];
    sqlite3_stmt *st = NULL;
    if (!rip_db_reader_uri(path, uri, sizeof uri))
        return SQLITE_CANTOPEN;
    snprintf(sql, sizeof sql, "ATTACH ? AS %s", name);
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The databases merged so far, in the order they were copied (OUT's own rows first). */
typedef struct sources {
    const char *path[260];
    int n;
    int64_t out_log;   /* run_log rows that came from OUT itself (rowids 1..out_log) */
} sources;

/*
** Rows of table t in s (attached) that differ from main's, where the check
** of either cannot say which is right (a change that moves no verdict):
** the first such layer, and which earlier source gave main's row (each
** source is attached in turn, on this error path only).  One line naming
** both files.  RIP_S_DATA.
*/
static rip_status blame(sqlite3 *db, const char *path, const char *t, const char *key, int64_t differ,
                        const sources *done, char err[RIP_ERR_LEN])
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT min(layer_idx) FROM (SELECT * FROM s.%s WHERE (%s) IN (SELECT %s FROM main.%s)"
             " EXCEPT SELECT * FROM main.%s)", t, key, key, t, t);
    int64_t layer = count(db, sql);
    const char *other = NULL;
    for (int k = 0; k < done->n && !other; k++) {
        if (attach(db, done->path[k], "b") != SQLITE_OK)
            continue;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM b.%s WHERE layer_idx = %lld", t, (long long)layer);
        if (count(db, sql) > 0)
            other = done->path[k];
        sqlite3_exec(db, "DETACH b", NULL, NULL, NULL);
    }
    snprintf(err, RIP_ERR_LEN, "%.150s and %.150s hold different %s rows for layer %lld (%lld rows differ); one of "
             "them was damaged or altered", path, other ? other : "an earlier input", t, (long long)layer,
             (long long)differ);
    return RIP_S_DATA;
}

/*
** Copy the layer rows and executions of path (read-only) into main, in one
** transaction (verdict_counts is counted once at the end, since inputs may
** overlap), and its run_log (every shard's history: when and by which
** ripsim and commit each part was computed).  Rows present
** on both sides must be identical: the same run computes the same rows, so
** a difference means a damaged or altered file, and both are named.  done:
** the sources copied before, path is added to it.
*/
static rip_status copy_source(sqlite3 *db, const char *path, const char *out, sources *done,
                              char err[RIP_ERR_LEN])
{
    static const char *const tables[] = {"layer_results", "executions"};
    static const char *const keys[] = {"layer_idx", "run_id, layer_idx, exec_config"};
    char sql[600];
    rip_status s = RIP_OK;
    if (attach(db, path, "s") != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot read it (%.200s)", path, sqlite3_errmsg(db));
        return rip_db_status(sqlite3_errcode(db)) == RIP_S_BUSY ? RIP_S_BUSY : RIP_S_NOINPUT;
    }
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        s = copy_failed(db, NULL, out, err);
        goto detach;
    }
    for (size_t t = 0; t < 2 && s == RIP_OK; t++) {
        snprintf(sql, sizeof sql,
                 "SELECT (SELECT count(*) FROM s.%s JOIN main.%s USING (%s))"
                 " - (SELECT count(*) FROM (SELECT * FROM s.%s INTERSECT SELECT * FROM main.%s))",
                 tables[t], tables[t], keys[t], tables[t], tables[t]);
        int64_t differ = count(db, sql);
        if (differ < 0) {
            s = copy_failed(db, path, out, err);
        } else if (differ != 0) {
            s = blame(db, path, tables[t], keys[t], differ, done, err);
        } else {
            snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO main.%s SELECT * FROM s.%s", tables[t], tables[t]);
            if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
                s = copy_failed(db, path, out, err);
        }
    }
    /* the categories the run was drawn with: every input names the same
    ** (check_inputs compared their generator sets), so the first one's stay */
    if (s == RIP_OK &&
        sqlite3_exec(db, "INSERT OR IGNORE INTO main.generators SELECT * FROM s.generators", NULL, NULL, NULL) !=
            SQLITE_OK)
        s = copy_failed(db, path, out, err);
    /* an event OUT's own log holds (an earlier merge of this input) is not copied twice; the
    ** inputs' events are all kept, equal ones too (two shards finishing in the same second) */
    snprintf(sql, sizeof sql,
             "INSERT INTO main.run_log SELECT * FROM s.run_log l WHERE NOT EXISTS (SELECT 1 FROM main.run_log m"
             " WHERE m.rowid <= %lld AND m.run_id = l.run_id AND m.at = l.at AND m.event = l.event AND"
             " m.detail IS l.detail)", (long long)done->out_log);
    if (s == RIP_OK && sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        s = copy_failed(db, path, out, err);
    if (s == RIP_OK && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        s = copy_failed(db, NULL, out, err);
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    if (s == RIP_OK)
        done->path[done->n++] = path;
detach:
    sqlite3_exec(db, "DETACH s", NULL, NULL, NULL);
    return s;
}

/* The same file (device and inode) as the one of sb? */
static bool same_file(const char *path, const struct stat *sb)
{
    struct stat other;
    return stat(path, &other) == 0 && other.st_dev == sb->st_dev && other.st_ino == sb->st_ino;
}

/*
** Check every input read-only: a ripsim database holding a run, all of the
** same run (shards may differ), none of them OUT.  Fills *run from in[0].
*/
static rip_status check_inputs(const char *out, const char *const *in, int n_in, rip_run_info *run,
                               int64_t *formulas, char err[RIP_ERR_LEN])
{
    struct stat osb, sb;
    bool out_exists = stat(out, &osb) == 0;
    char what[RIP_ERR_LEN];
    for (int i = 0; i < n_in; i++) {
        rip_db_found f;
        if (strcmp(in[i], out) == 0 || (out_exists && same_file(in[i], &osb))) {
            snprintf(err, RIP_ERR_LEN, "%s is both the output and an input", in[i]);
            return RIP_S_DATA;
        }
        if (stat(in[i], &sb) != 0) {
            snprintf(err, RIP_ERR_LEN, "%s: %s", in[i], strerror(errno));
            return RIP_S_NOINPUT;
        }
        rip_status s = rip_db_inspect(in[i], false, &f, err);
        if (s != RIP_OK)
            return s;
        if (f.empty || !f.has_run) {
            snprintf(err, RIP_ERR_LEN, "%s holds no run (an empty sweep database)", in[i]);
            return RIP_S_DATA;
        }
        if (i == 0) {
            *run = f.run;
            *formulas = f.formulas;
        } else if (!rip_run_same(run, &f.run, false, in[0], in[i], what, sizeof what)) {
            snprintf(err, RIP_ERR_LEN, "%.100s is not the run of %.100s (%.250s)", in[i], in[0], what);
            return RIP_S_DATA;
        } else if (f.formulas != *formulas) {
            snprintf(err, RIP_ERR_LEN, "%.150s lists %lld formulas, %.150s %lld", in[i], (long long)f.formulas,
                     in[0], (long long)*formulas);
            return RIP_S_DATA;
        }
    }
    return RIP_OK;
}

rip_status rip_db_merge(const char *out, const char *const *in, int n_in, rip_merge_result *res,
                        char err[RIP_ERR_LEN])
{
    char tmp[4200], what[RIP_ERR_LEN], detail[160], real[4096];
    rip_db_found check;
    struct stat osb;
    sqlite3 *db = NULL;
    int64_t formulas = 0;
    bool have_tmp = false;
    rip_db_found fo;
    rip_status s;

    memset(res, 0, sizeof *res);
    if ((s = check_inputs(out, in, n_in, &res->run, &formulas, err)) != RIP_OK)
        return s;
    res->run.shard_index = 0;
    res->run.shard_count = 1;
    bool out_exists = stat(out, &osb) == 0;
    /* an existing OUT must hold this run as one machine would: shard 0/1 */
    if ((s = rip_db_inspect(out, true, &fo, err)) != RIP_OK)
        return s;
    if (!fo.empty && (!fo.has_run || !rip_run_same(&fo.run, &res->run, true, out, in[0], what, sizeof what))) {
        snprintf(err, RIP_ERR_LEN, "%.150s already holds another run (%.250s); choose a new output", out,
                 fo.has_run ? what : "no run row");
        return RIP_S_DATA;
    }
    /* a link is merged through: the file it names is built beside and replaced */
    const char *target = rip_db_resolve(out, real, sizeof real);
    if ((s = rip_db_temp_beside(target, "merge", out_exists ? &osb : NULL, tmp, sizeof tmp, err)) != RIP_OK)
        return s;
    have_tmp = true;
    if ((s = rip_db_create(tmp, &res->run, &db, err)) != RIP_OK)
        goto done;
    sources *done_src = calloc(1, sizeof *done_src);
    if (!done_src) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        s = RIP_S_NOMEM;
        goto done;
    }
    if (!fo.empty)
        s = copy_source(db, out, out, done_src, err);
    done_src->out_log = count(db, "SELECT count(*) FROM main.run_log");
    for (int i = 0; i < n_in && s == RIP_OK; i++)
        s = copy_source(db, in[i], out, done_src, err);
    free(done_src);
    if (s != RIP_OK)
        goto done;
    if (rip_db_exec(db, "BEGIN IMMEDIATE", what) != 0 || rip_db_exec(db, rip_db_recount_sql, what) != 0 ||
        rip_db_exec(db, "COMMIT", what) != 0) {
        s = copy_failed(db, NULL, out, err);
        goto done;
    }
    res->layers = count(db, "SELECT count(*) FROM layer_results");
    snprintf(detail, sizeof detail, "%d inputs, %lld of %lld layers", n_in, (long long)res->layers,
             (long long)res->run.n_layers);
    if (rip_db_log(db, "merge", detail) != 0) {
        s = copy_failed(db, NULL, out, err);
        goto done;
    }
    if ((s = rip_db_check_now(db, out, &check, err)) != RIP_OK)
        goto done;
    sqlite3_close_v2(db); /* every commit is already on disk (synchronous=FULL) */
    db = NULL;
    if (rip_db_replace(tmp, target) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot put the merged database in place (%.100s)", out, strerror(errno));
        s = RIP_S_IO;
        goto done;
    }
    have_tmp = false;
done:
    sqlite3_close_v2(db);
    if (have_tmp)
        rip_db_remove_temp(tmp);
    return s;
}
