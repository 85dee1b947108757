/*
** db_check_schema.c — is the schema of a database exactly the one ripsim
** created for its version?  Part of the one check (db_check.c).
**
** A foreign object is refused before anything that could run it: a trigger
** planted on run_log fires on the sweep's first log line, a view rewritten
** by hand feeds the report false counts, an index or table is not ours to
** carry through a merge.  So every row of sqlite_master (type, name, table
** and SQL text) must be one that ripsim's schema of that version creates,
** and every object that schema creates must be there.  The expected rows
** come from running the version's schema text (db_schema.c) in a private
** in-memory database, so SQLite's own normalisation of the stored text
** (no IF NOT EXISTS, automatic indexes) is the same on both sides; the
** texts are compared without their comments and with runs of white space
** as one space, since older ripsim wrote the same statements with other
** comments.  Accepted besides: table optima and view optimum_gaps from
** version 4 on (sweep --optimum adds them), and the layer_results of
** version 4 as ripsim wrote it before its columns lost their INTEGER type
** (version 5 databases are all written without it).
**
** It reads only sqlite_master: it runs before any other check, inside the
** caller's read transaction.
*/
#include "db.h"
#include "db_check.h"
#include "status.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_OBJECTS = 40 };

/* One row of sqlite_master; sql normalised (NULL for automatic indexes). */
typedef struct object {
    char *type, *name, *tbl, *sql;
    bool optional, seen;
} object;

typedef struct objects {
    object o[MAX_OBJECTS];
    int n;
} objects;

/*
** sql without comments, each run of white space one space, no space at
** either end; quoted text ('...', "...", `...`, [...]) kept as it is.
** NULL for NULL or when out of memory (*oom set).
*/
static char *normalised(const char *sql, bool *oom)
{
    if (!sql)
        return NULL;
    char *o = malloc(strlen(sql) + 1);
    if (!o) {
        *oom = true;
        return NULL;
    }
    size_t k = 0;
    bool space = false;
    char quote = 0;
    for (const char *p = sql; *p; p++) {
        if (quote) {
            o[k++] = *p;
            quote = *p == quote ? 0 : quote;
            continue;
        }
        if (p[0] == '-' && p[1] == '-') {
            while (p[1] && p[1] != '\n')
                p++;
            space = true;
            continue;
        }
        if (p[0] == '/' && p[1] == '*') {
            for (p += 2; p[0] && !(p[0] == '*' && p[1] == '/'); p++)
                ;
            if (!p[0])
                break;
            p++;
            space = true;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            space = true;
            continue;
        }
        if (space && k > 0)
            o[k++] = ' ';
        space = false;
        if (*p == '\'' || *p == '"' || *p == '`' || *p == '[')
            quote = *p == '[' ? ']' : *p;
        o[k++] = *p;
    }
    o[k] = '\0';
    return o;
}

static char *dup_text(sqlite3_stmt *st, int col, bool *oom)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    if (!t)
        return NULL;
    char *s = strdup((const char *)t);
    *oom |= s == NULL;
    return s;
}

static void objects_free(objects *os)
{
    for (int i = 0; i < os->n; i++) {
        free(os->o[i].type);
        free(os->o[i].name);
        free(os->o[i].tbl);
        free(os->o[i].sql);
    }
    os->n = 0;
}

/* The rows of db's main sqlite_master into os; an SQLite code (SQLITE_FULL: more than MAX_OBJECTS). */
static int load_objects(sqlite3 *db, objects *os, bool *oom)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM main.sqlite_master ORDER BY rowid", -1,
                                &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (os->n == MAX_OBJECTS) {
            rc = SQLITE_FULL;
            break;
        }
        object *o = &os->o[os->n++];
        memset(o, 0, sizeof *o);
        o->type = dup_text(st, 0, oom);
        o->name = dup_text(st, 1, oom);
        o->tbl = dup_text(st, 2, oom);
        char *raw = dup_text(st, 3, oom);
        o->sql = normalised(raw, oom);
        free(raw);
        if (!o->type || !o->name || !o->tbl) {
            *oom = true;
            break;
        }
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
** The objects ripsim's schema of this version creates, from its text run
** in a private in-memory database; table optima and view optimum_gaps
** (version 4 on) optional.  An SQLite code.
*/
static int expected_objects(int64_t version, objects *os, bool *oom)
{
    sqlite3 *mem = NULL;
    int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    const char *text = version >= 5    ? rip_db_schema_sql
                       : version == 4 ? rip_db_schema_v4_sql
                       : version == 3 ? rip_db_schema_v3_sql
                                      : rip_db_schema_v2_sql;
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(mem, text, NULL, NULL, NULL);
    /* version 1 is version 2 without executions */
    if (rc == SQLITE_OK && version == 1)
        rc = sqlite3_exec(mem, "DROP VIEW execution_summary; DROP TABLE executions;", NULL, NULL, NULL);
    if (rc == SQLITE_OK && version >= 4)
        rc = sqlite3_exec(mem, rip_db_optima_sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = load_objects(mem, os, oom);
    for (int i = 0; rc == SQLITE_OK && i < os->n; i++)
        os->o[i].optional = version >= 4 && (strcmp(os->o[i].name, "optima") == 0 ||
                                              strcmp(os->o[i].name, "optimum_gaps") == 0);
    sqlite3_close(mem);
    return rc;
}

/* Is the stored object o the one ripsim creates (e)? */
static bool same_object(const object *o, const object *e, int64_t version, bool *oom)
{
    if (strcmp(o->tbl, e->tbl) != 0)
        return false;
    if (!o->sql || !e->sql)
        return !o->sql && !e->sql;
    if (strcmp(o->sql, e->sql) == 0)
        return true;
    if (version != 4 || strcmp(o->name, "layer_results") != 0)
        return false;
    char *typed = normalised(rip_db_layer_results_typed_sql, oom);
    bool same = typed && strcmp(o->sql, typed) == 0;
    free(typed);
    return same;
}

rip_status rip_db_check_schema(sqlite3 *db, const char *path, int64_t version, char err[RIP_ERR_LEN])
{
    objects *want = calloc(1, sizeof *want), *have = calloc(1, sizeof *have);
    bool oom = !want || !have;
    rip_status s = RIP_OK;
    int rc = oom ? SQLITE_NOMEM : expected_objects(version, want, &oom);
    if (rc == SQLITE_OK && !oom)
        rc = load_objects(db, have, &oom);
    if (oom || rc == SQLITE_NOMEM) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        s = RIP_S_NOMEM;
        goto done;
    }
    if (rc == SQLITE_FULL) {
        snprintf(err, RIP_ERR_LEN, "%.200s: a schema object ripsim does not create, refused (more than %d objects)",
                 path, MAX_OBJECTS);
        s = RIP_S_DATA;
        goto done;
    }
    if (rc != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "%.200s: not an SQLite database, or damaged (read its schema: %.150s)", path,
                 sqlite3_errmsg(db));
        s = rip_db_status(rc) == RIP_S_BUSY ? RIP_S_BUSY : RIP_S_DATA;
        goto done;
    }
    for (int i = 0; i < have->n && s == RIP_OK; i++) {
        const object *o = &have->o[i];
        object *e = NULL;
        for (int j = 0; j < want->n && !e; j++)
            if (strcmp(want->o[j].type, o->type) == 0 && strcmp(want->o[j].name, o->name) == 0)
                e = &want->o[j];
        if (!e) {
            bool own = strcmp(o->name, o->tbl) == 0;   /* a table or view, not an index or trigger on one */
            snprintf(err, RIP_ERR_LEN, "%.200s: a schema object ripsim does not create, refused (%.10s %.60s%s%.60s)",
                     path, o->type, o->name, own ? "" : " on ", own ? "" : o->tbl);
            s = RIP_S_DATA;
        } else if (!same_object(o, e, version, &oom)) {
            snprintf(err, RIP_ERR_LEN, "%.200s: a schema object of ripsim's was changed, refused (%.10s %.60s differs "
                     "from schema version %lld's)", path, o->type, o->name, (long long)version);
            s = oom ? RIP_S_NOMEM : RIP_S_DATA;
        } else {
            e->seen = true;
        }
    }
    for (int j = 0; j < want->n && s == RIP_OK; j++)
        if (!want->o[j].seen && !want->o[j].optional) {
            snprintf(err, RIP_ERR_LEN, "%.200s: a schema object of ripsim's is missing, refused (%.10s %.60s of "
                     "schema version %lld)", path, want->o[j].type, want->o[j].name, (long long)version);
            s = RIP_S_DATA;
        }
done:
    if (want)
        objects_free(want);
    if (have)
        objects_free(have);
    free(want);
    free(have);
    return s;
}
