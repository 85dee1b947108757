/*
** file_text.h — whole files in and out for the test suites: a file's bytes
** (NUL-terminated, so text reads as a string) and a string written as a
** file, each asserting on failure.
*/
#ifndef RIPSIM_TEST_FILE_TEXT_H
#define RIPSIM_TEST_FILE_TEXT_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* The bytes of path, malloc'd and NUL-terminated (free them); their count in *len unless len is NULL. */
static inline char *ft_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    const long n = ftell(f);
    cr_assert_geq(n, 0);
    cr_assert_eq(fseek(f, 0, SEEK_SET), 0);
    char *b = malloc((size_t)n + 1);
    cr_assert_not_null(b);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n, "%s: short read", path);
    fclose(f);
    b[n] = '\0';
    if (len)
        *len = (size_t)n;
    return b;
}

/* text as the whole content of path. */
static inline void ft_put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot create %s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0, "%s: write failed", path);
}

#endif
