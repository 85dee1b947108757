/*
** sweep_util.h — helpers shared by the files of the sweep suite
** (tests/test_sweep.c, sweep_files.c): dumping a database and checking
** that a refused run left it untouched.
*/
#ifndef RIPSIM_TEST_SWEEP_UTIL_H
#define RIPSIM_TEST_SWEEP_UTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "db.h"
#include "db_dump.h"

/* tmp() returns one of 8 rotating buffers: copy a path that must live longer. */

/* All rows of the deterministic tables, in key order, as one string. */
static inline char *dump(const char *path)
{
    static const char *const q[] = {
        "SELECT run_id, seed, n_layers, generator_set, ripsim_version FROM runs",
        "SELECT * FROM layers ORDER BY run_id, layer_idx",
        "SELECT * FROM truths ORDER BY run_id, layer_idx, exec_config",
        "SELECT * FROM verdicts ORDER BY run_id, layer_idx, formula",
        "SELECT * FROM formulas ORDER BY formula",
        "SELECT * FROM generators ORDER BY generator",
        "SELECT * FROM executions ORDER BY run_id, layer_idx, exec_config",
        "SELECT * FROM verdict_summary", /* from verdict_counts: resumes, shards and merges keep it too */
    };
    return db_dump(path, q, sizeof q / sizeof q[0]);
}

/* The whole file's bytes, to prove a database was left untouched. */
static inline void expect_untouched(const char *path, const char *before, size_t n_before, const char *what)
{
    size_t n;
    char *after = slurp_file(path, &n);
    cr_expect(n == n_before && memcmp(before, after, n) == 0, "%s: database was modified", what);
    free(after);
}

#endif
