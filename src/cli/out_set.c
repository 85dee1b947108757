/*
** out_set.c — a command's outputs staged as temporaries and put in place
** together (out_set.h), and the signal guard that removes the temporaries
** of an interrupted run.
*/
#define _GNU_SOURCE /* renameat2 and RENAME_EXCHANGE (glibc 2.28), getdents64 (2.30) */
#include "out_set.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "out.h"

/* ------------------------------------------------------------ the guard */

/*
** Every temporary of every staged set is listed here from its creation to
** its rename; on SIGINT, SIGTERM or SIGHUP the handler removes them all
** (a folder with what is in it) and ends the process as the signal would
** have.  The list is changed only with the three signals held, so the
** handler never sees a half-made entry.  A signal the process ignores
** (nohup's SIGHUP) stays ignored.
*/
enum { MAX_PENDING = 4 * RIP_OUT_SET_MAX };
static struct {
    const char *volatile path;
    volatile sig_atomic_t dir;
} pending[MAX_PENDING];
static int n_pending;
static const int caught[3] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction saved[3];

/*
** Remove the folder path and the files in it (one level: what a command
** stages there).  Async-signal-safe (open, getdents64, unlinkat, rmdir),
** so the handler can call it.  Passes are repeated until one removes
** nothing, as unlinking while reading a folder may skip entries.  Returns
** rmdir's result (0, or -1 with errno).
*/
static int remove_folder(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        _Alignas(8) char buf[4096];
        for (bool again = true; again;) {
            again = false;
            if (lseek(fd, 0, SEEK_SET) != 0)
                break;
            ssize_t n;
            while ((n = getdents64(fd, buf, sizeof buf)) > 0)
                for (ssize_t off = 0; off < n;) {
                    const struct dirent64 *e = (const struct dirent64 *)(void *)(buf + off);
                    off += e->d_reclen;
                    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && unlinkat(fd, e->d_name, 0) == 0)
                        again = true;
                }
        }
        close(fd);
    }
    return rmdir(path);
}

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_PENDING; i++) {
        const char *p = pending[i].path;
        if (p && pending[i].dir)
            remove_folder(p);
        else if (p)
            unlink(p);
    }
    signal(sig, SIG_DFL);
    raise(sig); /* taken when the handler returns: the signal is blocked in it */
}

/* Hold the three signals; *old receives the mask to restore. */
static void hold(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    for (int i = 0; i < 3; i++)
        sigaddset(&s, caught[i]);
    sigprocmask(SIG_BLOCK, &s, old);
}

static void unhold(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

/* List path (signals held); the handler is installed with the first
** entry.  false when the list is full. */
static bool guard_add(const char *path, bool dir)
{
    for (int i = 0; i < MAX_PENDING; i++) {
        if (pending[i].path)
            continue;
        if (n_pending++ == 0) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask); /* one signal at a time in the handler */
            for (int k = 0; k < 3; k++)
                sigaddset(&sa.sa_mask, caught[k]);
            for (int k = 0; k < 3; k++)
                if (sigaction(caught[k], NULL, &saved[k]) == 0 && saved[k].sa_handler != SIG_IGN)
                    sigaction(caught[k], &sa, NULL);
        }
        pending[i].dir = dir;
        pending[i].path = path;
        return true;
    }
    return false;
}

/* Unlist path (signals held); the old handlers are back with the last. */
static void guard_drop(const char *path)
{
    for (int i = 0; i < MAX_PENDING; i++) {
        if (pending[i].path != path)
            continue;
        pending[i].path = NULL;
        if (--n_pending == 0)
            for (int k = 0; k < 3; k++)
                sigaction(caught[k], &saved[k], NULL);
        return;
    }
}

/* ------------------------------------------------------------ test hooks */

#ifdef RIPSIM_TEST_HOOKS
/*
** Test hooks, compiled only into the test-only executable ripsim-testhooks
** (tests/meson.build), never into the released ripsim:
**   RIPSIM_TEST_OUT_SIGTERM=staged     raise SIGTERM at the commit, once
**                                      every output is written and none is
**                                      in place;
**   RIPSIM_TEST_OUT_SIGTERM=renamed:K  raise SIGTERM after the K-th output
**                                      is in place (held until the last);
**   RIPSIM_TEST_OUT_NO_EXCHANGE=1      swap folders with the two-rename
**                                      fallback, as without renameat2.
*/
static void hook_point(const char *point, size_t k)
{
    const char *v = getenv("RIPSIM_TEST_OUT_SIGTERM");
    size_t n = strlen(point);
    if (v && strncmp(v, point, n) == 0 && (v[n] == '\0' ? k == 0 : v[n] == ':' && strtoul(v + n + 1, NULL, 10) == k))
        raise(SIGTERM);
}

static bool hook_no_exchange(void)
{
    return getenv("RIPSIM_TEST_OUT_NO_EXCHANGE") != NULL;
}
#else
static void hook_point(const char *point, size_t k)
{
    (void)point;
    (void)k;
}

static bool hook_no_exchange(void)
{
    return false;
}
#endif

/* ------------------------------------------------------------ staging */

void rip_out_set_init(rip_out_set *s, const char *cmd)
{
    memset(s, 0, sizeof *s);
    s->cmd = cmd;
}

/* The mode a new file gets from open(..., 0666), or a folder from mkdir(..., 0777): base less the umask. */
static mode_t new_mode(mode_t base)
{
    mode_t m = umask(022);
    umask(m);
    return base & ~m;
}

/* "DIR/.BASE.XXXXXX" for the path final (DIR may be empty); NULL when out of memory. */
static char *temp_name(const char *final)
{
    const char *slash = strrchr(final, '/');
    size_t dir_len = slash ? (size_t)(slash - final) + 1 : 0;
    size_t n = strlen(final) + 16;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%s.XXXXXX", (int)dir_len, final, final + dir_len);
    return t;
}

/* A fresh item of s, or NULL after the message (70). */
static rip_out_item *new_item(rip_out_set *s, const char *label)
{
    if (s->n == RIP_OUT_SET_MAX) {
        fprintf(stderr, "ripsim %s: internal error: more than %d outputs\n", s->cmd, RIP_OUT_SET_MAX);
        return NULL;
    }
    rip_out_item *it = &s->item[s->n++];
    memset(it, 0, sizeof *it);
    it->label = label;
    return it;
}

/* Remove the temporary file or folder of it and unlist it (signals held). */
static void remove_tmp(rip_out_item *it)
{
    if (!it->tmp)
        return;
    if (it->dir)
        remove_folder(it->tmp);
    else
        unlink(it->tmp);
    guard_drop(it->tmp);
    free(it->tmp);
    it->tmp = NULL;
}

/* Close and remove what it has staged (signals held). */
static void discard(rip_out_item *it)
{
    if (it->f && it->f != stdout)
        fclose(it->f);
    it->f = NULL;
    remove_tmp(it);
    free(it->final);
    it->final = NULL;
}

void rip_out_set_abort(rip_out_set *s)
{
    sigset_t old;
    hold(&old);
    for (size_t i = 0; i < s->n; i++)
        discard(&s->item[i]);
    s->n = 0;
    unhold(&old);
}

/* The whole set abandoned after a staging failure; returns rc. */
static int give_up(rip_out_set *s, int rc)
{
    rip_out_set_abort(s);
    return rc;
}

/*
** Make the temporary of it beside it->final, ".NAME.XXXXXX" (a folder when
** it->dir, else a file, opened: *fd), and list it for the guard, with the
** signals held so that none strikes between the two.  0, or an errno value
** (ENOMEM, mkstemp's or mkdtemp's, ENFILE when the guard's list is full).
*/
static int make_tmp(rip_out_item *it, int *fd)
{
    char *tmp = temp_name(it->final);
    if (!tmp)
        return ENOMEM;
    sigset_t old;
    hold(&old);
    *fd = -1;
    bool made = it->dir ? mkdtemp(tmp) != NULL : (*fd = mkstemp(tmp)) >= 0;
    int e = made ? 0 : errno;
    if (made && !guard_add(tmp, it->dir)) {
        if (it->dir)
            rmdir(tmp);
        else {
            unlink(tmp);
            close(*fd);
        }
        e = ENFILE;
    }
    if (e == 0)
        it->tmp = tmp;
    else
        free(tmp);
    unhold(&old);
    return e;
}

/* The set abandoned after "cannot create PATH: errno e": 71 or 73. */
static int cannot_create(rip_out_set *s, const char *path, int e)
{
    fprintf(stderr, "ripsim %s: cannot create %s: %s\n", s->cmd, path, strerror(e));
    return give_up(s, e == ENOMEM ? RIP_EX_OSERR : RIP_EX_CANTCREAT);
}

int rip_out_set_file(rip_out_set *s, const char *path, rip_out_item **out)
{
    const char *cmd = s->cmd;
    bool to_stdout = path == NULL || strcmp(path, "-") == 0;
    rip_out_item *it = new_item(s, to_stdout ? "standard output" : path);
    if (!it)
        return give_up(s, RIP_EX_SOFTWARE);
    *out = it;
    if (to_stdout) {
        it->f = stdout;
        return 0;
    }
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "ripsim %s: cannot create %s: it is a folder\n", cmd, path);
        return give_up(s, RIP_EX_CANTCREAT);
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device or FIFO: write into it, never rename over it */
        if ((it->f = fopen(path, "w")) == NULL) {
            fprintf(stderr, "ripsim %s: cannot open %s: %s\n", cmd, path, strerror(errno));
            return give_up(s, RIP_EX_CANTCREAT);
        }
        return 0;
    }
    struct stat lst;
    bool link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    if ((it->final = link && exists ? realpath(path, NULL) : strdup(path)) == NULL)
        return cannot_create(s, path, errno);
    int fd, e = make_tmp(it, &fd);
    if (e != 0)
        return cannot_create(s, path, e);
    /* mkstemp makes 0600; give the result the mode the target has or a new file would get */
    if (fchmod(fd, exists ? (st.st_mode & 07777) : new_mode(0666)) != 0 || (it->f = fdopen(fd, "w")) == NULL) {
        e = errno;
        close(fd);
        return cannot_create(s, path, e);
    }
    return 0;
}

/* Is name one of owned, or a temporary ".OWNED.XXXXXX" of one? */
static bool is_owned(const char *name, const char *const *owned)
{
    for (size_t i = 0; owned[i]; i++) {
        size_t n = strlen(owned[i]);
        if (strcmp(name, owned[i]) == 0 ||
            (name[0] == '.' && strncmp(name + 1, owned[i], n) == 0 && name[n + 1] == '.' && strlen(name + n + 2) == 6))
            return true;
    }
    return false;
}

/* The first entry of folder dir that is not owned, into name; false when none (or dir unreadable: errno). */
static bool foreign_entry(const char *dir, const char *const *owned, char *name, size_t n)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && !is_owned(e->d_name, owned)) {
            snprintf(name, n, "%s", e->d_name);
            found = true;
        }
    closedir(d);
    return found;
}

int rip_out_set_dir(rip_out_set *s, const char *path, const char *const *owned, rip_out_item **out)
{
    const char *cmd = s->cmd;
    rip_out_item *it = new_item(s, path);
    if (!it)
        return give_up(s, RIP_EX_SOFTWARE);
    *out = it;
    it->dir = true;
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "ripsim %s: %s: cannot make the folder: exists and is not a folder\n", cmd, path);
        return give_up(s, RIP_EX_CANTCREAT);
    }
    /* an existing folder by its real path (a symbolic link's target, "." or "a/.." named) */
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    it->final = exists ? realpath(path, NULL) : strndup(path, len);
    if (!it->final) {
        fprintf(stderr, "ripsim %s: %s: cannot make the folder: %s\n", cmd, path, strerror(errno));
        return give_up(s, RIP_EX_CANTCREAT);
    }
    if (strcmp(it->final, "/") == 0) {
        fprintf(stderr, "ripsim %s: %s: cannot replace the root folder\n", cmd, path);
        return give_up(s, RIP_EX_CANTCREAT);
    }
    char foreign[NAME_MAX + 1];
    if (exists && foreign_entry(it->final, owned, foreign, sizeof foreign)) {
        fprintf(stderr, "ripsim %s: %s holds %s, which %s does not write; the folder is replaced whole: "
                        "move %s away or choose another folder\n", cmd, path, foreign, cmd, foreign);
        return give_up(s, RIP_EX_CANTCREAT);
    }
    int fd, e = make_tmp(it, &fd);
    if (e != 0) {
        fprintf(stderr, "ripsim %s: %s: cannot make the folder: %s\n", cmd, path, strerror(e));
        return give_up(s, e == ENOMEM ? RIP_EX_OSERR : RIP_EX_CANTCREAT);
    }
    /* mkdtemp makes 0700 */
    if (chmod(it->tmp, exists ? (st.st_mode & 07777) : new_mode(0777)) != 0) {
        fprintf(stderr, "ripsim %s: %s: cannot make the folder: %s\n", cmd, path, strerror(errno));
        return give_up(s, RIP_EX_CANTCREAT);
    }
    return 0;
}

void rip_out_set_drop(rip_out_set *s, rip_out_item *it)
{
    (void)s;
    sigset_t old;
    hold(&old);
    if (it->f && it->f != stdout)
        fclose(it->f);
    it->f = NULL;
    /* a staged output's target goes at the commit; one written in place stays */
    it->drop = it->tmp != NULL;
    remove_tmp(it);
    unhold(&old);
}

/* ------------------------------------------------------------ commit */

/* Flush, check, sync and close the file of it.  0 or an errno value. */
static int finish_file(rip_out_item *it)
{
    int e = 0;
    if (fflush(it->f) != 0)
        e = errno;
    else if (ferror(it->f))
        e = EIO;
    else if (it->tmp && fsync(fileno(it->f)) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (fclose(it->f) != 0 && e == 0)
        e = errno;
    it->f = NULL;
    return e;
}

/*
** Put the staged folder it->tmp in path it->final's place (signals held).
** A folder cannot be renamed over a non-empty one, so:
**   - no folder there: one rename;
**   - else renameat2(RENAME_EXCHANGE) swaps the two names atomically (Linux
**     3.15, on ext4, xfs, btrfs, tmpfs, ...): there is never a moment
**     without a whole folder at it->final, and it->tmp then names the old
**     one, removed by the caller;
**   - where the exchange is refused (EINVAL, ENOSYS, ENOTSUP: an older
**     kernel, NFS, some FUSE file systems), two renames: the old folder to
**     a fresh name beside it, the new one into place.  With the signals
**     held only a crash or SIGKILL between the two can strike: it leaves
**     no folder at it->final and the whole old one beside it under
**     ".NAME.XXXXXX".
** On 0, *old_dir is the old folder's new name (an allocated string, NULL
** when there was none); else an errno value, the old folder in place.
*/
static int swap_folder(rip_out_item *it, char **old_dir)
{
    *old_dir = NULL;
    struct stat st;
    if (lstat(it->final, &st) != 0 && errno == ENOENT)
        return rename(it->tmp, it->final) == 0 ? 0 : errno;
#ifdef RENAME_EXCHANGE
    if (!hook_no_exchange()) {
        if (renameat2(AT_FDCWD, it->tmp, AT_FDCWD, it->final, RENAME_EXCHANGE) == 0)
            return (*old_dir = strdup(it->tmp)) ? 0 : ENOMEM;
        if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EOPNOTSUPP)
            return errno;
    }
#endif
    char *aside = temp_name(it->final);
    if (!aside)
        return ENOMEM;
    int e = 0;
    /* an empty folder of a fresh name, which rename(2) may replace */
    if (!mkdtemp(aside) || rename(it->final, aside) != 0)
        e = errno;
    else if (rename(it->tmp, it->final) != 0) {
        e = errno;
        rename(aside, it->final);
    }
    if (e != 0) {
        rmdir(aside);
        free(aside);
        return e;
    }
    *old_dir = aside;
    return 0;
}

int rip_out_set_commit(rip_out_set *s)
{
    const char *cmd = s->cmd;
    int rc = 0;
    /* 1. every file complete, or nothing replaced */
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        rip_out_item *it = &s->item[i];
        if (it->f == stdout) {
            it->f = NULL;
            rc = rip_out_check_stdout(cmd);
        } else if (it->f) {
            int e = finish_file(it);
            if (e != 0) {
                fprintf(stderr, "ripsim %s: cannot write %s: %s\n", cmd, it->label, strerror(e));
                rc = RIP_EX_IOERR;
            }
        }
    }
    if (rc != 0) {
        rip_out_set_abort(s);
        return rc;
    }
    hook_point("staged", 0);

    /* 2. all in place, the signals held */
    sigset_t old;
    hold(&old);
    char *old_dirs[RIP_OUT_SET_MAX] = {NULL};
    bool placed[RIP_OUT_SET_MAX] = {false};
    for (size_t i = 0; i < s->n; i++) {
        rip_out_item *it = &s->item[i];
        int e = 0;
        if (it->drop)
            e = unlink(it->final) == 0 || errno == ENOENT ? 0 : errno;
        else if (it->tmp && it->dir)
            e = swap_folder(it, &old_dirs[i]);
        else if (it->tmp)
            e = rename(it->tmp, it->final) == 0 ? 0 : errno;
        if (e != 0) {
            fprintf(stderr, "ripsim %s: cannot write %s: %s\n", cmd, it->label, strerror(e));
            rc = RIP_EX_IOERR;
            break;
        }
        placed[i] = true;
        if (it->tmp)
            guard_drop(it->tmp); /* in place: no longer a temporary */
        hook_point("renamed", i + 1);
    }
    /* 3. the old folders swapped out, and what was not placed */
    for (size_t i = 0; i < s->n; i++) {
        rip_out_item *it = &s->item[i];
        if (old_dirs[i] && remove_folder(old_dirs[i]) != 0 && rc == 0) {
            fprintf(stderr, "ripsim %s: %s is in place, but the previous folder, now %s, cannot be removed: %s\n",
                    cmd, it->label, old_dirs[i], strerror(errno));
            rc = RIP_EX_IOERR;
        }
        free(old_dirs[i]);
        if (placed[i]) {
            free(it->tmp);
            free(it->final);
            it->tmp = it->final = NULL;
        } else {
            discard(it);
        }
    }
    s->n = 0;
    unhold(&old);
    return rc;
}
