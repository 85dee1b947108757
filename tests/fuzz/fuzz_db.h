/*
** fuzz_db.h — setup shared by the sweep database harnesses.
**
** SQLite must not write outside the harness's scratch directory: the
** database and its -wal/-shm/-journal files live there (fuzz_file.h), and
** SQLite's own temporary files are sent there too (SQLITE_TMPDIR, read by
** SQLite when it first needs a temporary directory, so it is set before
** any SQLite call).
*/
#ifndef RIPSIM_FUZZ_DB_H
#define RIPSIM_FUZZ_DB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("SQLITE_TMPDIR", fuzz_scratch_dir(), 1);
    return 0;
}

/* Is the file at path byte-identical to data[0..size)? */
static int fuzz_file_equals(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int same = 1;
    size_t at = 0;
    unsigned char buf[4096];
    size_t got;
    while (same && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        same = at + got <= size && memcmp(buf, data + at, got) == 0;
        at += got;
    }
    fclose(f);
    return same && at == size;
}

#endif
