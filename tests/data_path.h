/*
** data_path.h — a file of the source tree, found from the results folder
** every suite is given (RIPSIM_RESULTS_DIR/../rel).
*/
#ifndef RIPSIM_TEST_DATA_PATH_H
#define RIPSIM_TEST_DATA_PATH_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* RIPSIM_RESULTS_DIR/../rel, in one of 8 rotating buffers (copy a path that
** must outlive the next 7 calls).  Fails the test when the variable is unset. */
static inline const char *data_path(const char *rel)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res, "RIPSIM_RESULTS_DIR must be set");
    snprintf(p, 512, "%s/../%s", res, rel);
    return p;
}

#endif
