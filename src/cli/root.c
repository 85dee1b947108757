/*
** root.c — resolve the commands' default paths against the ripsim tree
** (see root.h).
*/
#include "root.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#ifndef RIPSIM_SOURCE_ROOT
#define RIPSIM_SOURCE_ROOT ""
#endif

/* A folder is a ripsim tree when it holds the generator registry. */
static bool is_tree(const char *dir)
{
    char probe[4096];
    struct stat st;
    int k = snprintf(probe, sizeof probe, "%s/sweeps/generators/list.def", dir);
    return k > 0 && (size_t)k < sizeof probe && stat(probe, &st) == 0 && S_ISREG(st.st_mode);
}

const char *rip_root_path(const char *cmd, const char *what, const char *rel, char *buf, size_t n)
{
    const char *env = getenv("RIPSIM_ROOT");
    const char *root = NULL;
    if (env && *env) {
        if (!is_tree(env)) {
            fprintf(stderr, "ripsim %s: RIPSIM_ROOT=%s is not a ripsim source tree (no sweeps/generators/list.def); "
                            "fix it or pass %s\n", cmd, env, what);
            return NULL;
        }
        root = env;
    } else if (RIPSIM_SOURCE_ROOT[0] && is_tree(RIPSIM_SOURCE_ROOT)) {
        root = RIPSIM_SOURCE_ROOT;
    } else if (is_tree(".")) {
        root = ".";
    } else {
        fprintf(stderr, "ripsim %s: the default of %s (%s) lies in the ripsim source tree, which is not where this "
                        "binary was built; set RIPSIM_ROOT to the tree or pass %s\n", cmd, what, rel, what);
        return NULL;
    }
    int k = snprintf(buf, n, "%s/%s", root, rel);
    if (k < 0 || (size_t)k >= n) {
        fprintf(stderr, "ripsim %s: the path of %s is too long\n", cmd, rel);
        return NULL;
    }
    return buf;
}
