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
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A suite in several files shares one folder: its file with
** TEST_SUITE_WITH_TMPDIR defines TMPDIR_SHARED before including this
** header (tmpdir is defined there), its other files TMPDIR_EXTERN. */
#if defined(TMPDIR_EXTERN)
extern char tmpdir[256];
#elif defined(TMPDIR_SHARED)
char tmpdir[256];
#else
static char tmpdir[256];
#endif

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

/* Does path exist (any kind of file)? */
static inline bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Entries of dir other than . and ..; returns how many, the first one's name in first. */
static inline int entries(const char *dir, char *first, size_t len)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    struct dirent *e;
    first[0] = '\0';
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && n++ == 0)
            snprintf(first, len, "%s", e->d_name);
    closedir(d);
    return n;
}

#endif
