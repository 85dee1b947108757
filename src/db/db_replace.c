/*
** db_replace.c — a database rebuilt under a temporary name beside the file
** it replaces, then renamed over it (merge and migrate).  The rename is
** atomic, so a crash at any moment leaves either the old file or the whole
** new one; a failure removes the temporary file and its journal.  A path
** that is a symbolic link is replaced through it (the file it names, in
** that file's folder), and the replacement gets the owner, group and mode
** of the file it replaces, so converting another user's database as root
** leaves it theirs.
*/
#define _XOPEN_SOURCE 700 /* realpath */
#include "db.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *rip_db_resolve(const char *path, char *buf, size_t len)
{
    char *real = realpath(path, NULL);
    const char *r = real && strlen(real) < len ? buf : path;
    if (r == buf)
        snprintf(buf, len, "%s", real);
    free(real);
    return r;
}

/* Give the open file fd like's owner, group and mode; 0, or -1 with errno. */
static int take_attributes(int fd, const struct stat *like)
{
    struct stat now;
    if (fstat(fd, &now) != 0)
        return -1;
    if ((now.st_uid != like->st_uid || now.st_gid != like->st_gid) && fchown(fd, like->st_uid, like->st_gid) != 0)
        return -1;
    return fchmod(fd, like->st_mode & 07777);
}

rip_status rip_db_temp_beside(const char *path, const char *tag, const struct stat *like, char *tmp, size_t len,
                              char err[RIP_ERR_LEN])
{
    char a[4096], b[4096];
    if ((size_t)snprintf(a, sizeof a, "%s", path) >= sizeof a) {
        snprintf(err, RIP_ERR_LEN, "%.200s: path too long", path);
        return RIP_S_CANTCREATE;
    }
    snprintf(b, sizeof b, "%s", path);
    const char *dir = dirname(a), *base = basename(b);
    for (int k = 0; k < 100; k++) {
        if ((size_t)snprintf(tmp, len, "%s/.%s.%s-%ld-%d", dir, base, tag, (long)getpid(), k) >= len) {
            snprintf(err, RIP_ERR_LEN, "%.200s: path too long", path);
            return RIP_S_CANTCREATE;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, like ? 0600 : 0666);
        if (fd >= 0 && like && take_attributes(fd, like) != 0) { /* the replacement is the file's as it was */
            snprintf(err, RIP_ERR_LEN, "%.150s: cannot give its replacement its owner %ld:%ld and mode %o (%.100s); "
                     "run as its owner or as root", path, (long)like->st_uid, (long)like->st_gid,
                     (unsigned)(like->st_mode & 07777), strerror(errno));
            close(fd);
            unlink(tmp);
            return RIP_S_CANTCREATE;
        }
        if (fd >= 0) {
            close(fd);
            return RIP_OK;
        }
        if (errno != EEXIST)
            break;
    }
    snprintf(err, RIP_ERR_LEN, "%.150s: cannot create a temporary file beside it (%.150s)", path, strerror(errno));
    return RIP_S_CANTCREATE;
}

/* Flush path (a file or a folder) to disk; 0 or -1. */
static int sync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int rip_db_replace(const char *tmp, const char *path)
{
    char dir[4096];
    if ((size_t)snprintf(dir, sizeof dir, "%s", path) >= sizeof dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (sync_path(tmp) != 0 || rename(tmp, path) != 0)
        return -1;
    (void)sync_path(dirname(dir)); /* the rename itself survives a crash */
    return 0;
}

void rip_db_remove_temp(const char *tmp)
{
    char j[4200];
    unlink(tmp);
    if ((size_t)snprintf(j, sizeof j, "%s-journal", tmp) < sizeof j)
        unlink(j);
}
