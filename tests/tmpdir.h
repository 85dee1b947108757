/*
** tmpdir.h — a private temporary folder per Criterion suite.
**
** TEST_SUITE_WITH_TMPDIR(name, timeout) declares the suite `name`, creates
** /tmp/ripsim-name-XXXXXX before its tests and removes it after them, and
** defines tmp("file"), the path of a file in that folder (one of 8
** rotating buffers: copy a path that must outlive the next 7 calls).
*/
#ifndef RIPSIM_TEST_TMPDIR_H
#define RIPSIM_TEST_TMPDIR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static char tmpdir[256];

#define TEST_SUITE_WITH_TMPDIR(name, seconds)                                  \
    static void make_tmpdir(void)                                              \
    {                                                                          \
        snprintf(tmpdir, sizeof tmpdir, "/tmp/ripsim-" #name "-XXXXXX");       \
        cr_assert_not_null(mkdtemp(tmpdir));                                   \
    }                                                                          \
    static void remove_tmpdir(void)                                            \
    {                                                                          \
        char cmd[300];                                                         \
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);                      \
        cr_expect_eq(system(cmd), 0);                                          \
    }                                                                          \
    TestSuite(name, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = seconds)

static inline const char *tmp(const char *name)
{
    static char buf[8][320];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

#endif
