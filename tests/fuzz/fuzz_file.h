/*
** fuzz_file.h — the scratch file of a libFuzzer harness whose entry point
** takes a path.
**
** Each process makes one private directory on tmpfs (/dev/shm, or $TMPDIR,
** or /tmp when /dev/shm is not writable) and rewrites the same file name in
** it for every input, so a run costs a write, not a new inode per input,
** and whatever SQLite or a loader leaves beside it stays inside that
** directory.  The directory and its files are removed at exit.
*/
#ifndef RIPSIM_FUZZ_FILE_H
#define RIPSIM_FUZZ_FILE_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[256];

/* Remove every file in the scratch directory (SQLite's -wal, -shm and
** -journal files included); with rmdir_too, the directory as well. */
static void fuzz_clean(int rmdir_too)
{
    if (!fuzz_dir[0])
        return;
    DIR *d = opendir(fuzz_dir);
    if (d) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", fuzz_dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    if (rmdir_too)
        rmdir(fuzz_dir);
}

static void fuzz_clean_at_exit(void)
{
    fuzz_clean(1);
}

/* The scratch directory, made on first use; aborts if it cannot be made. */
static const char *fuzz_scratch_dir(void)
{
    if (!fuzz_dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/ripsim-fuzz-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(fuzz_dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_clean_at_exit);
    }
    return fuzz_dir;
}

/*
** Write data[0..size) to DIR/name and return the path (static storage,
** the same for every call with the same name).  Aborts when the scratch
** directory cannot be made or written: a harness that cannot deliver its
** input must not report a clean run.
*/
static const char *fuzz_write_file(const uint8_t *data, size_t size, const char *name)
{
    static char path[512];
    fuzz_scratch_dir();
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror("fuzz: writing the scratch file");
        abort();
    }
    return path;
}

#endif
