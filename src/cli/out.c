/*
** out.c — checked output to standard output and result files (out.h).
*/
#define _XOPEN_SOURCE 700
#include "out.h"

#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int rip_out_check_stdout(const char *cmd)
{
    int e = fflush(stdout) != 0 ? errno : 0;
    if (e == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "ripsim %s: cannot write standard output: %s\n", cmd, e ? strerror(e) : "write error");
    return RIP_EX_IOERR;
}

int rip_out_open(rip_out *o, const char *cmd, const char *path)
{
    rip_out_item *it = NULL;
    rip_out_set_init(&o->set, cmd);
    int rc = rip_out_set_file(&o->set, path, &it);
    o->f = rc == 0 ? it->f : NULL;
    o->label = path == NULL || strcmp(path, "-") == 0 ? "standard output" : path;
    return rc;
}

void rip_out_abort(rip_out *o)
{
    rip_out_set_abort(&o->set);
    o->f = NULL;
}

int rip_out_commit(rip_out *o)
{
    o->f = NULL;
    return rip_out_set_commit(&o->set);
}

bool rip_same_file(const char *a, const char *b)
{
    struct stat x, y;
    return a && b && stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int rip_out_refuse_input(const char *cmd, const char *out, const char *in, const char *what)
{
    struct stat a, b;
    if (out == NULL || in == NULL || strcmp(out, "-") == 0 || strcmp(in, "-") == 0)
        return 0;
    if (stat(out, &a) != 0 || stat(in, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
        return 0;
    /* the same device node (/dev/null as both) destroys nothing */
    if (!S_ISREG(a.st_mode))
        return 0;
    fprintf(stderr, "ripsim %s: --out %s is %s (%s); choose another file\n", cmd, out, what, in);
    return RIP_EX_USAGE;
}

/* Look for the file target (dev, ino) among the regular files under dir,
** depth levels down at most; its path into found.  Symbolic links to
** folders are not followed, so a loop cannot recur. */
static bool find_under(const char *dir, const struct stat *target, int depth, char *found, size_t n)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return false;
    bool hit = false;
    for (struct dirent *e; !hit && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            hit = depth > 0 && find_under(path, target, depth - 1, found, n);
            continue;
        }
        if (S_ISLNK(st.st_mode) && stat(path, &st) != 0)
            continue;
        if (S_ISREG(st.st_mode) && st.st_dev == target->st_dev && st.st_ino == target->st_ino) {
            snprintf(found, n, "%s", path);
            hit = true;
        }
    }
    closedir(d);
    return hit;
}

int rip_out_refuse_in_dir(const char *cmd, const char *out, const char *dir, const char *what)
{
    struct stat target;
    char found[PATH_MAX];
    if (out == NULL || dir == NULL || strcmp(out, "-") == 0)
        return 0;
    if (stat(out, &target) != 0 || !S_ISREG(target.st_mode) || !find_under(dir, &target, 3, found, sizeof found))
        return 0;
    fprintf(stderr, "ripsim %s: --out %s is %s (%s); choose another file\n", cmd, out, what, found);
    return RIP_EX_USAGE;
}
