/*
** db_pages.h — the rows of a rowid table read straight from the b-tree
** pages of the database file (db_pages.c): the fast way of the values pass
** of the one check (db_check_values.c), which otherwise steps every row
** through SQLite.
*/
#ifndef RIPSIM_DB_PAGES_H
#define RIPSIM_DB_PAGES_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum rip_pages_result {
    RIP_PAGES_DONE,     /* every row of the table was given to the callback */
    RIP_PAGES_STOPPED,  /* the callback returned false */
    RIP_PAGES_UNSURE,   /* not read this way (see rip_db_pages_rows): ask SQLite */
} rip_pages_result;

/*
** One row: its rowid and its n_cols stored values, in column order.
** type[c] is SQLITE_INTEGER (value[c] holds it), SQLITE_NULL, SQLITE_FLOAT,
** SQLITE_TEXT or SQLITE_BLOB (value[c] 0: not decoded).  An INTEGER
** PRIMARY KEY column is stored as NULL: its value is the rowid.  false
** stops the reading.
*/
typedef bool (*rip_pages_row_fn)(void *ctx, int64_t rowid, const int64_t *value, const unsigned char *type,
                                 int n_cols);

/*
** Every row of rowid table `table` of db's main database, read from the
** pages of the file itself through SQLite's own handle of it, in the order
** of the pages in the file (not of the rowids).  db must be inside a read
** transaction that has already read the file (it holds the shared lock, so
** no writer can change the file meanwhile), and has checked the file
** (PRAGMA quick_check) in it.
**
** RIP_PAGES_UNSURE (the rows given so far then count for nothing) whenever
** this reading could differ from SQLite's: a database in WAL
** mode, in memory or inside a write transaction; a record that spills
** onto overflow pages or that has not exactly n_cols fields; any page,
** cell or record whose bytes break the file format; a read error or no
** memory.  The caller then reads the table through SQLite, which says
** what is wrong, if anything is.  n_cols: 1 to RIP_PAGES_MAX_COLS.
*/
#define RIP_PAGES_MAX_COLS 64
rip_pages_result rip_db_pages_rows(sqlite3 *db, const char *table, int n_cols, rip_pages_row_fn row, void *ctx);

#endif
