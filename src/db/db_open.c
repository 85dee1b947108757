/*
** db_open.c — opening and creating the verdict database (see db.h).
**
** Every existing database is first opened read-only and checked (schema
** version, SQLite's quick_check, ripsim's row counts, the run row); only a
** database that passes is opened for writing.  So a database that is not
** ours, or is damaged, is refused without a byte of it changing.
**
** Journal: ripsim writes with a rollback journal (journal_mode=DELETE,
** synchronous=FULL).  A committed batch survives kill -9 and power loss; an
** uncommitted one is rolled back from the -journal on the next write open.
** Readers of a rollback-journal database never create files (WAL readers
** create -shm, which another user could then not write), and a clean exit
** leaves no side file.
*/
#include "db.h"
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One line for a failed SQLite call on path; returns its status. */
static rip_status fail(sqlite3 *db, int rc, const char *path, const char *doing, char err[RIP_ERR_LEN])
{
    rip_status s = rip_db_status(rc);
    if (s == RIP_S_BUSY)
        snprintf(err, RIP_ERR_LEN, "%.200s: locked by another process (waited %d s)", path,
                 RIP_DB_BUSY_MS / 1000);
    else if (s == RIP_S_DATA)
        snprintf(err, RIP_ERR_LEN, "%.200s: not an SQLite database, or damaged (%.40s: %.150s)", path, doing,
                 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    else
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot %.40s (%.150s)", path, doing,
                 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    return s;
}

/* Is path an SQLite file whose header says WAL mode (bytes 18, 19 = 2)? */
static bool header_says_wal(const char *path)
{
    unsigned char h[20];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool wal = read(fd, h, sizeof h) == (ssize_t)sizeof h && memcmp(h, "SQLite format 3", 16) == 0 &&
               h[18] == 2 && h[19] == 2;
    close(fd);
    return wal;
}

static bool file_nonempty(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && sb.st_size > 0;
}

/* "file:" URI of path (percent-encoded) followed by query; false if it does not fit. */
static bool path_uri(const char *path, const char *query, char *uri, size_t len)
{
    static const char keep[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/+,=@";
    size_t n = (size_t)snprintf(uri, len, "file:%s", path[0] == '/' ? "//" : "");
    for (const unsigned char *p = (const unsigned char *)path; *p && n < len; p++)
        n += (size_t)(strchr(keep, *p) ? snprintf(uri + n, len - n, "%c", *p)
                                        : snprintf(uri + n, len - n, "%%%02X", *p));
    if (n < len)
        n += (size_t)snprintf(uri + n, len - n, "%s", query);
    return n < len;
}

bool rip_db_reader_uri(const char *path, char *uri, size_t len)
{
    char wal[4096];
    bool immutable = false;
    /* A WAL database with no -wal file holds everything in the main file;
    ** immutable=1 reads it without the -shm a WAL reader would create. */
    if (header_says_wal(path) && (size_t)snprintf(wal, sizeof wal, "%s-wal", path) < sizeof wal)
        immutable = !file_nonempty(wal);
    return path_uri(path, immutable ? "?immutable=1" : "?mode=ro", uri, len);
}

/* Flags of every connection: paths are URIs, and each connection is used
** by one thread only (the sweep's workers never touch SQLite), so none
** takes SQLite's per-call mutex: a report over 1,000,000 layers makes some
** 60 million column calls, a third of its time when each locked. */
#define OPEN_FLAGS (SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX)

/* Open uri with flags | OPEN_FLAGS.  No view or trigger of a database may
** call a function with side effects (trusted_schema off): the schema check
** refuses foreign objects, and this holds even before it has run. */
static int open_uri(const char *uri, int flags, sqlite3 **db)
{
    int rc = sqlite3_open_v2(uri, db, flags | OPEN_FLAGS, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_db_config(*db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    return rc;
}

/* Open path for writing through its URI (so that ATTACH takes URIs too). */
static int open_writer(const char *path, int flags, sqlite3 **db)
{
    char uri[4200];
    *db = NULL;
    if (!path_uri(path, "", uri, sizeof uri))
        return SQLITE_CANTOPEN;
    return open_uri(uri, flags, db);
}

/* Single integer from a query; an SQLite result code (SQLITE_OK on success). */
static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_CORRUPT; /* a pragma or count that returns no row */
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** Check the (read-only, open) connection: rip_db_check in a read
** transaction, which stays open on success; then refuse an older schema
** unless any_version.  *hot is set when a hot journal stopped the read.
*/
static rip_status validate(sqlite3 *db, const char *path, bool any_version, rip_db_found *found, bool *hot,
                           char err[RIP_ERR_LEN])
{
    int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return fail(db, rc, path, "read", err);
    rip_status s = rip_db_check(db, path, found, hot, err);
    if (s == RIP_OK && !found->empty && found->schema_version < RIP_DB_SCHEMA_VERSION && !any_version) {
        snprintf(err, RIP_ERR_LEN, "%.200s: schema version %lld of an older ripsim; convert it in place with: "
                 "ripsim migrate --db %.200s", path, (long long)found->schema_version, path);
        s = RIP_S_DATA;
    }
    return s;
}

/* Roll back a hot journal: what SQLite does on any read-write open. */
static rip_status recover_journal(const char *path, char err[RIP_ERR_LEN])
{
    sqlite3 *db = NULL;
    int64_t pages = 0;
    int rc = open_writer(path, SQLITE_OPEN_READWRITE, &db);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, RIP_DB_BUSY_MS);
        rc = query_int(db, "PRAGMA page_count", &pages);
    }
    rip_status s = rc == SQLITE_OK ? RIP_OK : fail(db, rc, path, "recover its journal", err);
    sqlite3_close_v2(db);
    return s;
}

/*
** The checked read-only open behind rip_db_inspect and rip_db_open_read.
** *out (when out is not NULL) receives the connection of a non-empty
** database that passed.
*/
static rip_status open_checked(const char *path, bool recover, bool any_version, sqlite3 **out,
                               rip_db_found *found, char err[RIP_ERR_LEN])
{
    struct stat sb;
    char uri[4200];
    sqlite3 *db = NULL;
    rip_status s = RIP_OK;

    memset(found, 0, sizeof *found);
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT) {
            found->empty = true;
            return RIP_OK;
        }
        snprintf(err, RIP_ERR_LEN, "%s: %s", path, strerror(errno));
        return RIP_S_NOINPUT;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, RIP_ERR_LEN, "%s: not a regular file", path);
        return RIP_S_DATA;
    }
    if (sb.st_size == 0) {
        found->empty = true;
        return RIP_OK;
    }
    if (access(path, R_OK) != 0) {
        snprintf(err, RIP_ERR_LEN, "%s: %s", path, strerror(errno));
        return RIP_S_NOINPUT;
    }
    if (!rip_db_reader_uri(path, uri, sizeof uri)) {
        snprintf(err, RIP_ERR_LEN, "%.200s: path too long", path);
        return RIP_S_NOINPUT;
    }
    for (int attempt = 0;; attempt++) {
        bool hot = false;
        int rc = open_uri(uri, SQLITE_OPEN_READONLY, &db);
        if (rc != SQLITE_OK) {
            s = fail(db, rc, path, "open", err);
            break;
        }
        sqlite3_busy_timeout(db, RIP_DB_BUSY_MS);
        memset(found, 0, sizeof *found);
        s = validate(db, path, any_version, found, &hot, err);
        if (!(hot && recover && attempt == 0))
            break;
        sqlite3_close_v2(db);
        db = NULL;
        if ((s = recover_journal(path, err)) != RIP_OK)
            break;
    }
    if (s == RIP_OK && out && !found->empty) {
        *out = db;
        db = NULL;
    }
    sqlite3_close_v2(db);
    return s;
}

rip_status rip_db_inspect(const char *path, bool recover, rip_db_found *found, char err[RIP_ERR_LEN])
{
    return open_checked(path, recover, false, NULL, found, err);
}

rip_status rip_db_inspect_old(const char *path, bool recover, rip_db_found *found, char err[RIP_ERR_LEN])
{
    return open_checked(path, recover, true, NULL, found, err);
}

rip_status rip_db_open_read_unchecked(const char *path, sqlite3 **out, char err[RIP_ERR_LEN])
{
    char uri[4200];
    sqlite3 *db = NULL;
    int64_t version = -1;
    rip_status s = RIP_OK;
    *out = NULL;
    if (!rip_db_reader_uri(path, uri, sizeof uri)) {
        snprintf(err, RIP_ERR_LEN, "%.200s: path too long", path);
        return RIP_S_NOINPUT;
    }
    int rc = open_uri(uri, SQLITE_OPEN_READONLY, &db);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, RIP_DB_BUSY_MS);
        rc = query_int(db, "PRAGMA user_version", &version);
    }
    if (rc != SQLITE_OK) {
        s = fail(db, rc, path, "open", err);
    } else if (version != RIP_DB_SCHEMA_VERSION) {
        snprintf(err, RIP_ERR_LEN, "%.200s: schema version %lld, expected %d", path, (long long)version,
                 RIP_DB_SCHEMA_VERSION);
        s = RIP_S_DATA;
    } else {
        *out = db;
        db = NULL;
    }
    sqlite3_close_v2(db);
    return s;
}

rip_status rip_db_open_read(const char *path, sqlite3 **db, char err[RIP_ERR_LEN])
{
    rip_db_found found;
    struct stat sb;
    *db = NULL;
    if (stat(path, &sb) != 0 && errno == ENOENT) {
        snprintf(err, RIP_ERR_LEN, "%s: no such database", path);
        return RIP_S_NOINPUT;
    }
    rip_status s = open_checked(path, false, false, db, &found, err);
    if (s == RIP_OK && found.empty) {
        snprintf(err, RIP_ERR_LEN, "%s: empty database (no sweep has written to it)", path);
        s = RIP_S_DATA;
    }
    return s;
}

rip_status rip_db_open_snapshot(const char *path, sqlite3 **out, char err[RIP_ERR_LEN])
{
    sqlite3 *db = NULL, *mem = NULL;
    sqlite3_backup *b = NULL;
    *out = NULL;
    rip_status s = rip_db_open_read(path, &db, err);
    if (s != RIP_OK)
        return s;
    /* a copy of the pages of the checked snapshot into an anonymous temporary
    ** database ("": on disk, deleted on close; memory stays the page cache);
    ** then the file's read lock ends */
    int rc = open_uri("", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &mem);
    if (rc == SQLITE_OK && !(b = sqlite3_backup_init(mem, "main", db, "main")))
        rc = sqlite3_errcode(mem);
    if (b) {
        sqlite3_backup_step(b, -1);
        rc = sqlite3_backup_finish(b);
    }
    if (rc != SQLITE_OK) {
        s = rc == SQLITE_NOMEM ? RIP_S_NOMEM : fail(db, rc, path, "copy it to a temporary database", err);
        if (s == RIP_S_NOMEM)
            snprintf(err, RIP_ERR_LEN, "out of memory (a copy of %.200s)", path);
        sqlite3_close_v2(mem);
    } else {
        *out = mem;
    }
    sqlite3_close_v2(db);
    return s;
}

/* Settings of every writing connection; the journal_mode query reports the mode it got. */
static rip_status tune_writer(sqlite3 *db, const char *path, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    sqlite3_busy_timeout(db, RIP_DB_BUSY_MS);
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode=DELETE", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *mode = sqlite3_column_text(st, 0);
        rc = mode && strcmp((const char *)mode, "delete") == 0 ? SQLITE_OK : SQLITE_BUSY;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return fail(db, rc, path, "set its journal mode", err);
    char why[RIP_ERR_LEN];
    if (rip_db_exec(db, "PRAGMA synchronous=FULL; PRAGMA cache_size=-8192;", why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: %.250s", path, why);
        return RIP_S_IO;
    }
    return RIP_OK;
}

rip_status rip_db_open_write(const char *path, sqlite3 **out, char err[RIP_ERR_LEN])
{
    sqlite3 *db = NULL;
    *out = NULL;
    if (access(path, R_OK | W_OK) != 0) {
        snprintf(err, RIP_ERR_LEN, "%s: %s", path, strerror(errno));
        return RIP_S_CANTCREATE;
    }
    int rc = open_writer(path, SQLITE_OPEN_READWRITE, &db);
    rip_status s = rc == SQLITE_OK ? tune_writer(db, path, err) : fail(db, rc, path, "open", err);
    if (s == RIP_OK) {
        *out = db;
        db = NULL;
    }
    sqlite3_close_v2(db);
    return s;
}

rip_status rip_db_create(const char *path, const rip_run_info *run, sqlite3 **out, char err[RIP_ERR_LEN])
{
    sqlite3 *db = NULL;
    struct stat sb;
    bool existed = stat(path, &sb) == 0, began = false;
    char why[RIP_ERR_LEN], sql[64];
    int64_t tables = 0;
    rip_status s = RIP_OK;

    *out = NULL;
    int rc = open_writer(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &db);
    if (rc != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot create (%.200s)", path,
                 db ? sqlite3_errmsg(db) : "out of memory");
        rip_err_one_line(err);   /* SQLite may quote damaged schema text */
        s = rc == SQLITE_NOMEM ? RIP_S_NOMEM : RIP_S_CANTCREATE;
        goto done;
    }
    if ((s = tune_writer(db, path, err)) != RIP_OK)
        goto done;
    /* One transaction: schema, user_version, reference tables, run row. */
    if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK) {
        s = fail(db, rc, path, "create", err);
        goto done;
    }
    began = true;
    /* under the write lock: still no schema?  (BEGIN IMMEDIATE on an empty
    ** file already makes page 1, so count tables, not pages) */
    if ((rc = query_int(db, "SELECT count(*) FROM sqlite_master", &tables)) != SQLITE_OK) {
        s = fail(db, rc, path, "create", err);
        goto done;
    }
    if (tables > 0) {
        snprintf(err, RIP_ERR_LEN, "%s: another process created it meanwhile", path);
        s = RIP_S_BUSY;
        goto done;
    }
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d;", RIP_DB_SCHEMA_VERSION);
    if (rip_db_exec(db, rip_db_schema_sql, why) != 0 || rip_db_exec(db, sql, why) != 0 ||
        rip_db_write_run(db, run, why) != 0 || rip_db_exec(db, "COMMIT", why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.100s: cannot create the database (%.200s)", path, why);
        s = rip_db_status(sqlite3_errcode(db));
        if (s == RIP_S_INTERNAL || s == RIP_S_DATA)
            s = RIP_S_IO;
        goto done;
    }
    began = false;
done:
    if (began)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    if (s == RIP_OK) {
        *out = db;
        return RIP_OK;
    }
    sqlite3_close_v2(db);
    /* a file this call made and could not fill goes again; one that was
    ** there (empty) stays as it was */
    if (!existed && s != RIP_S_BUSY && stat(path, &sb) == 0 && sb.st_size == 0)
        unlink(path);
    return s;
}
