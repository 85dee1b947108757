/*
** cmd_schema.c — `ripsim schema [--db DB] [--markdown]`: the column
** dictionary, what every column of every table and view of a sweep
** database means, its unit and what judges it.
**
** Without --db it prints this binary's dictionary (db_columns.c, through
** an in-memory database of the current schema); with --db, the columns
** table of that database (the dictionary of the ripsim that created it).
** --markdown prints the README's section "Column dictionary", which
** tests/test_schema.c compares with the README.
*/
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "db.h"
#include "out.h"

static const char about[] =
    "Print the column dictionary of the sweep database: for every column of\n"
    "every table and view, what it means, its unit, and the column of the same\n"
    "row it is judged against (a closed form's value against its truth).  Every\n"
    "database of schema version 5 holds it as table columns:\n"
    "  sqlite3 results/sweep.db 'select * from columns'\n";

static const char notes[] =
    "Without --db the dictionary is this ripsim's (tables optima and\n"
    "optimum_gaps of sweep --optimum included); with --db, the one the database\n"
    "was created with.  --markdown prints the README's section \"Column\n"
    "dictionary\" (the README is regenerated from it).\n"
    RIP_DB_CHECK_HELP;

static const rip_exit_doc exits[] = {
    {0, "printed"},
    {64, "bad command line"},
    {65, "the database fails its check, or is of an older schema (ripsim migrate converts it)"},
    {66, "the database is missing or unreadable"},
    {70, "internal error (a column without documentation)"},
    {71, "out of memory"},
    {74, "output cannot be written"},
    {75, "the database is locked by another process (try again)"},
};

/* Print s for a markdown table cell: '|' escaped. */
static void md_cell(const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
}

/* One row of the dictionary, as text or markdown; last: the previous row's table. */
static void print_row(sqlite3_stmt *st, bool markdown, char *last, size_t len)
{
    const char *t = (const char *)sqlite3_column_text(st, 0), *c = (const char *)sqlite3_column_text(st, 1);
    const char *m = (const char *)sqlite3_column_text(st, 2), *u = (const char *)sqlite3_column_text(st, 3);
    const char *j = (const char *)sqlite3_column_text(st, 4);
    bool first = strcmp(last, t ? t : "") != 0, had = last[0] != '\0';
    snprintf(last, len, "%s", t ? t : "");
    if (markdown) {
        if (first)
            printf("\n#### `%s`\n\n| column | meaning | unit | judged against |\n|---|---|---|---|\n", t);
        printf("| `%s` | ", c);
        md_cell(m);
        printf(" | %s | %s%s%s |\n", u ? u : "", j ? "`" : "", j ? j : "", j ? "`" : "");
        return;
    }
    if (first)
        printf("%s%s\n", had ? "\n" : "", t);
    printf("  %-26s %-9s %s%s%s\n", c, u ? u : "-", m, j ? "; judged against " : "", j ? j : "");
}

int rip_cmd_schema(int argc, char **argv)
{
    const char *db_path = NULL;
    bool markdown = false;
    const rip_opt opts[] = {
        {.name = "--db", .kind = RIP_OPT_STR, .dest = &db_path, .metavar = "DB",
         .help = "the dictionary stored in this sweep database"},
        {.name = "--markdown", .kind = RIP_OPT_FLAG, .dest = &markdown, .flag_value = true,
         .help = "print it as the README's markdown section"},
    };
    const rip_cmd cmd = {
        .name = "schema", .synopsis = "[--db DB] [--markdown]", .about = about, .opts = opts,
        .n_opts = sizeof opts / sizeof opts[0], .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0], .example = "ripsim schema --db results/sweep.db",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    char err[RIP_ERR_LEN], last[128] = "";
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    rc = rip_exit_status(db_path ? rip_db_open_read(db_path, &db, err) : rip_db_open_reference(&db, err));
    if (rc != 0) {
        fprintf(stderr, "ripsim schema: %s\n", err);
        return rc;
    }
    if (sqlite3_prepare_v2(db, "SELECT table_name, column_name, meaning, unit, judged_against FROM columns"
                               " ORDER BY rowid", -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "ripsim schema: cannot read the column dictionary (%s)\n", sqlite3_errmsg(db));
        rc = RIP_EX_SOFTWARE;
    }
    int step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        print_row(st, markdown, last, sizeof last);
    if (rc == 0 && step != SQLITE_DONE) {
        fprintf(stderr, "ripsim schema: cannot read the column dictionary (%s)\n", sqlite3_errmsg(db));
        rc = rip_exit_status(rip_db_status(step));
    }
    sqlite3_finalize(st);
    rip_db_close(db);
    return rc != 0 ? rc : rip_out_check_stdout("schema");
}
