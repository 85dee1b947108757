/*
** plan_csv.c — opening a planner input file (plan_csv.h).
*/
#include "plan_csv.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

rip_status rip_plan_csv_open(const char *path, FILE **f, rip_csv **r, char *name, size_t name_len,
                             char err[RIP_ERR_LEN])
{
    *f = NULL;
    *r = NULL;
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        snprintf(err, RIP_ERR_LEN, "%.400s: %s", path, strerror(errno));
        return RIP_S_NOINPUT;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, RIP_ERR_LEN, "%.400s: is a directory", path);
        fclose(fp);
        return RIP_S_NOINPUT;
    }
    rip_status s = rip_csv_open(fp, path, r, err);
    if (s != RIP_OK) {
        fclose(fp);
        return s;
    }
    *f = fp;
    const char *b = strrchr(path, '/');
    snprintf(name, name_len, "%s", b ? b + 1 : path);
    size_t len = strlen(name);
    if (len > 4 && strcmp(name + len - 4, ".csv") == 0)
        name[len - 4] = '\0';
    return RIP_OK;
}
