/*
** sweep_open.c — opening the database for a sweep run (sweep_internal.h):
** check it read-only (never touching a foreign or damaged one; db.h), or
** create it with its run row in one transaction (when another process
** created it first, what it created is checked instead: the same run
** resumes, another is refused).  And the hint a stopped run leaves in its
** error message and in the database's log: a rerun resumes.
*/
#include <stdio.h>
#include <string.h>

#include "formulas.h"
#include "sweep_internal.h"

static rip_status open_checked(const rip_sweep_opts *o, const rip_run_info *want, sqlite3 **db,
                               rip_db_found *found, char err[RIP_ERR_LEN])
{
    char what[RIP_ERR_LEN];
    size_t nf = 0;
    rip_status s = rip_db_inspect(o->db_path, true, found, err);
    if (s == RIP_OK && found->empty) {
        s = rip_db_create(o->db_path, want, db, err);
        if (s != RIP_S_BUSY)
            return s;
        /* another process may have created it first, in one transaction: then its run decides,
        ** as for any existing database (the same run resumes, another one is refused) */
        char why[RIP_ERR_LEN];
        if (rip_db_inspect(o->db_path, true, found, why) != RIP_OK || found->empty)
            return s;
        s = RIP_OK;
    }
    if (s != RIP_OK)
        return s;
    if (found->has_run && !rip_run_same(&found->run, want, true, "the database", "this command", what,
                                        sizeof what)) {
        if (strcmp(found->run.generator_set, want->generator_set) != 0) {
            /* the way back to a database of another set: name that set */
            size_t k = (size_t)snprintf(err, RIP_ERR_LEN, "%.60s holds another generator set (%.150s); ",
                                        o->db_path, what);
            if (k + strlen(found->run.generator_set) + 60 < RIP_ERR_LEN)
                snprintf(err + k, RIP_ERR_LEN - k, "resume it with --generators %s (or choose another --db)",
                         found->run.generator_set);
            else
                snprintf(err + k, RIP_ERR_LEN - k, "resume it with --generators and its runs.generator_set, "
                         "or choose another --db");
        } else {
            snprintf(err, RIP_ERR_LEN, "%.150s holds another run (%.250s); resume with its arguments or choose "
                     "another --db", o->db_path, what);
        }
        return RIP_S_DATA;
    }
    rip_formulas(&nf);
    if (found->has_run && found->formulas != (int64_t)nf) {
        snprintf(err, RIP_ERR_LEN, "%s lists %lld formulas, this ripsim evaluates %zu; choose another --db",
                 o->db_path, (long long)found->formulas, nf);
        return RIP_S_DATA;
    }
    /* checked: from here on this database is ours to write */
    if ((s = rip_db_open_write(o->db_path, db, err)) != RIP_OK)
        return s;
    if (!found->has_run) { /* schema of an older ripsim, no run row yet */
        char why[RIP_ERR_LEN];
        if (rip_db_exec(*db, "BEGIN IMMEDIATE", why) != 0 || rip_db_write_run(*db, want, why) != 0 ||
            rip_db_exec(*db, "COMMIT", why) != 0) {
            snprintf(err, RIP_ERR_LEN, "%.200s: %.250s", o->db_path, why);
            s = rip_db_status(sqlite3_errcode(*db)) == RIP_S_BUSY ? RIP_S_BUSY : RIP_S_IO;
            rip_db_close(*db);
            *db = NULL;
        }
    }
    return s;
}

rip_status sweep_open(const rip_sweep_opts *o, const rip_run_info *want, sqlite3 **db, rip_db_found *found,
                      char err[RIP_ERR_LEN])
{
    rip_status s = open_checked(o, want, db, found, err);
    char why[RIP_ERR_LEN];
    /* --no-fsync: SQLite still writes every commit to the file before it
    ** returns, so a killed process loses nothing; only the OS's flush to
    ** the disk is skipped (a machine crash or power cut may damage it) */
    if (s == RIP_OK && o->no_fsync && rip_db_exec(*db, "PRAGMA synchronous=OFF", why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: %.250s", o->db_path, why);
        rip_db_close(*db);
        *db = NULL;
        s = RIP_S_IO;
    }
    return s;
}

void sweep_note_stop(sqlite3 *db, const char *event, const rip_sweep_result *res, const char *path,
                     char err[RIP_ERR_LEN])
{
    size_t n = strlen(err);
    if (res->in_shard > 0)
        snprintf(err + n, RIP_ERR_LEN - n, "; %lld of %lld layers are saved in %s, rerun the same command to resume",
                 (long long)(res->already_done + res->computed), (long long)res->in_shard, path);
    else
        snprintf(err + n, RIP_ERR_LEN - n, "; rerun the same command to resume");
    if (db) {
        sqlite3_busy_timeout(db, 500); /* best effort: the holder of a lock may block this too */
        rip_db_log(db, event, err);
    }
}
