/*
** out.c — checked output to standard output and result files (out.h).
*/
#define _XOPEN_SOURCE 700
#include "out.h"

#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
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

/*
** A temporary result file must not outlive an interrupted run (Ctrl-C in
** the middle of `tables table7` would leave .table7.md.XXXXXX in results/):
** while one is open, SIGINT, SIGTERM and SIGHUP remove it and then end the
** process as the signal would have.  One result file is open at a time.
*/
static const char *volatile pending_tmp;
static struct sigaction saved[3];
static const int caught[3] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    const char *t = pending_tmp;
    if (t)
        unlink(t);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void guard(const char *tmp)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    pending_tmp = tmp;
    for (int i = 0; i < 3; i++)
        sigaction(caught[i], &sa, &saved[i]);
}

static void unguard(void)
{
    if (pending_tmp == NULL)
        return;
    for (int i = 0; i < 3; i++)
        sigaction(caught[i], &saved[i], NULL);
    pending_tmp = NULL;
}

static void release(rip_out *o)
{
    if (o->tmp)
        unguard();
    free(o->final);
    free(o->tmp);
    o->final = o->tmp = NULL;
    o->f = NULL;
}

/* The mode a new file gets from open(..., 0666): 0666 less the umask. */
static mode_t default_mode(void)
{
    mode_t m = umask(022);
    umask(m);
    return 0666 & ~m;
}

int rip_out_open(rip_out *o, const char *cmd, const char *path)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    if (path == NULL || strcmp(path, "-") == 0) {
        o->f = stdout;
        o->label = "standard output";
        return 0;
    }
    o->label = path;
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "ripsim %s: cannot create %s: it is a folder\n", cmd, path);
        return RIP_EX_CANTCREAT;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device or FIFO: write into it, never rename over it */
        o->f = fopen(path, "w");
        if (o->f == NULL) {
            fprintf(stderr, "ripsim %s: cannot open %s: %s\n", cmd, path, strerror(errno));
            return RIP_EX_CANTCREAT;
        }
        return 0;
    }
    struct stat lst;
    bool link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    o->final = link && exists ? realpath(path, NULL) : strdup(path);
    if (o->final == NULL) {
        fprintf(stderr, "ripsim %s: cannot create %s: %s\n", cmd, path, strerror(errno));
        release(o);
        return RIP_EX_CANTCREAT;
    }
    const char *slash = strrchr(o->final, '/');
    size_t dir_len = slash ? (size_t)(slash - o->final) + 1 : 0;
    const char *base = o->final + dir_len;
    size_t n = dir_len + strlen(base) + 16;
    o->tmp = malloc(n);
    if (o->tmp == NULL) {
        fprintf(stderr, "ripsim %s: out of memory\n", cmd);
        release(o);
        return RIP_EX_OSERR;
    }
    snprintf(o->tmp, n, "%.*s.%s.XXXXXX", (int)dir_len, o->final, base);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        fprintf(stderr, "ripsim %s: cannot create %s: %s\n", cmd, path, strerror(errno));
        release(o);
        return RIP_EX_CANTCREAT;
    }
    /* mkstemp makes 0600; give the result the mode the target has or a new file would get */
    if (fchmod(fd, exists ? (st.st_mode & 07777) : default_mode()) != 0 || (o->f = fdopen(fd, "w")) == NULL) {
        fprintf(stderr, "ripsim %s: cannot create %s: %s\n", cmd, path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        release(o);
        return RIP_EX_CANTCREAT;
    }
    guard(o->tmp);
    return 0;
}

void rip_out_abort(rip_out *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    release(o);
}

int rip_out_commit(rip_out *o)
{
    if (o->f == stdout) {
        release(o);
        return rip_out_check_stdout(o->cmd);
    }
    int e = 0;
    if (fflush(o->f) != 0)
        e = errno;
    else if (ferror(o->f))
        e = EIO;
    else if (o->tmp && fsync(fileno(o->f)) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (fclose(o->f) != 0 && e == 0)
        e = errno;
    o->f = NULL;
    if (e == 0 && o->tmp && rename(o->tmp, o->final) != 0)
        e = errno;
    if (e != 0) {
        fprintf(stderr, "ripsim %s: cannot write %s: %s\n", o->cmd, o->label, strerror(e));
        if (o->tmp)
            unlink(o->tmp);
        release(o);
        return RIP_EX_IOERR;
    }
    release(o);
    return 0;
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
