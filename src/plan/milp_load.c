/*
** milp_load.c — the `milp` strategy as ripsim sees it: opens the MILP
** module (ripsim-milp.so, milp*.c linked with CBC) on first use and calls it.
**
** Why a module: CBC pulls in 22 shared libraries (Clp, Cgl, Osi, LAPACK,
** BLAS, gfortran, libstdc++, ...) whose loading and relocation cost every
** ripsim process about 4 ms of CPU, while only plans with strategy milp
** (ripsim plan --strategy milp, tables table3/table7, codegen --plan rip)
** use them.  Loaded with dlopen, they cost only those commands.
**
** Where it is looked for, first match wins:
**   1. $RIPSIM_MILP_MODULE, if set (then nothing else is tried);
**   2. next to the running executable (the build tree: build/ripsim);
**   3. RIPSIM_MILP_MODULE_INSTALLED, <exe>/../<libdir>/ripsim/ relative to
**      the executable, then the absolute install path fixed at build time;
**   4. RIPSIM_MILP_MODULE_BUILD, the build tree's module (test programs
**      under build/tests/ are not next to it).
** A module is accepted only if its rip_milp_module_info matches this build
** (milp_module.h); a mismatched one is skipped like a missing one.  A
** module that is there but cannot be mapped -- under a memory limit the
** loader fails with "failed to map segment from shared object" or ENOMEM
** on it or one of its 22 libraries -- is not missing: the search stops
** there with RIP_S_NOMEM (exit 71), not RIP_S_UNAVAILABLE (69).  The
** module stays loaded for the life of the process (never dlclose'd: CBC's
** static destructors and the sanitizers' leak reports want it mapped).
*/
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "milp_module.h"
#include "plan.h"
#include "status.h"
#include "strategies.h"

#ifndef RIPSIM_MILP_MODULE_BUILD
#define RIPSIM_MILP_MODULE_BUILD ""
#endif
#ifndef RIPSIM_MILP_MODULE_INSTALLED
#define RIPSIM_MILP_MODULE_INSTALLED ""
#endif
#ifndef RIPSIM_MILP_MODULE_RELATIVE
#define RIPSIM_MILP_MODULE_RELATIVE ""
#endif

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static const rip_milp_module_info *loaded;

/* Did dlopen fail for want of memory (errno_after: errno right after it)?
** The loader reports a mapping refused by the address-space limit as
** "failed to map segment" or "cannot map ..." without an errno in the
** text, and allocations as "Cannot allocate memory". */
static bool dlopen_out_of_memory(const char *msg, int errno_after)
{
    static const char *const signs[] = {"failed to map segment", "cannot map", "Cannot allocate memory",
                                        "cannot allocate"};
    if (errno_after == ENOMEM)
        return true;
    for (size_t i = 0; i < sizeof signs / sizeof signs[0]; i++)
        if (strstr(msg, signs[i]))
            return true;
    return false;
}

/* Try the module at path.  Returns the checked entry, or NULL with why
** (one line) in why[why_len] and *no_memory set when it is there but could
** not be mapped. */
static const rip_milp_module_info *try_path(const char *path, char *why, size_t why_len, bool *no_memory)
{
    *no_memory = false;
    errno = 0;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        int e_no = errno;
        const char *e = dlerror();
        snprintf(why, why_len, "%s", e ? e : "dlopen failed");
        *no_memory = dlopen_out_of_memory(why, e_no);
        return NULL;
    }
    const rip_milp_module_info *m = dlsym(h, RIP_MILP_MODULE_SYMBOL);
    if (!m) {
        snprintf(why, why_len, "%s: no %s symbol", path, RIP_MILP_MODULE_SYMBOL);
    } else if (m->abi != RIP_MILP_MODULE_ABI || !m->version || strcmp(m->version, RIPSIM_VERSION) != 0 ||
               m->problem_size != sizeof(rip_problem) || m->plan_size != sizeof(rip_plan) ||
               m->opts_size != sizeof(rip_plan_opts) || !m->solve) {
        snprintf(why, why_len, "%s: built for another ripsim (version %s, ABI %d)", path,
                 m->version ? m->version : "?", m->abi);
        m = NULL;
    }
    if (!m)
        dlclose(h);
    return m;
}

/* err for a module at path that could not be mapped (try_path's why). */
static void no_memory_error(const char *path, const char *why, char err[RIP_ERR_LEN])
{
    snprintf(err, RIP_ERR_LEN, "cannot load the CBC module %.200s: %.250s (out of memory?)", path, why);
}

/* Find and open the module (the search order above).  Returns the entry,
** or NULL with a one-line reason in err (naming the first place tried, or
** the one that could not be mapped) and *status RIP_S_UNAVAILABLE or
** RIP_S_NOMEM. */
static const rip_milp_module_info *find_module(char err[RIP_ERR_LEN], rip_status *status)
{
    char first[RIP_ERR_LEN] = "", why[RIP_ERR_LEN];
    bool no_memory = false;
    *status = RIP_S_UNAVAILABLE;
    const char *env = getenv("RIPSIM_MILP_MODULE");
    if (env && *env) {
        const rip_milp_module_info *m = try_path(env, why, sizeof why, &no_memory);
        if (!m && no_memory) {
            *status = RIP_S_NOMEM;
            no_memory_error(env, why, err);
        } else if (!m) {
            snprintf(err, RIP_ERR_LEN, "cannot load the CBC module from $RIPSIM_MILP_MODULE: %.400s",
                     why);
        }
        return m;
    }
    char exe[PATH_MAX], cand[3][PATH_MAX + 64];
    size_t nc = 0;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(cand[nc++], sizeof cand[0], "%s/%s", exe, RIP_MILP_MODULE_FILE);
            if (*RIPSIM_MILP_MODULE_RELATIVE)
                snprintf(cand[nc++], sizeof cand[0], "%s/%s", exe, RIPSIM_MILP_MODULE_RELATIVE);
        }
    }
    const char *fixed[] = {RIPSIM_MILP_MODULE_INSTALLED, RIPSIM_MILP_MODULE_BUILD};
    size_t tried = 0;
    for (size_t i = 0; i < nc + 2; i++) {
        const char *path = i < nc ? cand[i] : fixed[i - nc];
        if (!*path)
            continue;
        tried++;
        const rip_milp_module_info *m = try_path(path, why, sizeof why, &no_memory);
        if (m)
            return m;
        if (no_memory) {
            *status = RIP_S_NOMEM;
            no_memory_error(path, why, err);
            return NULL;
        }
        if (!*first)
            snprintf(first, sizeof first, "%s", why);
    }
    snprintf(err, RIP_ERR_LEN,
             "the CBC module %s was not found (%zu places tried, first: %.300s); "
             "build it (ninja -C build) or set RIPSIM_MILP_MODULE to its path",
             RIP_MILP_MODULE_FILE, tried, first);
    return NULL;
}

/* The milp strategy (strategies.h): the module's solve on p, o, out, err;
** with one line in err, RIP_S_UNAVAILABLE when no usable module is found,
** RIP_S_NOMEM when one is there but cannot be mapped (tried again on the
** next call). */
rip_status rip_strategy_milp(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    rip_status status = RIP_OK;
    pthread_mutex_lock(&load_lock);
    const rip_milp_module_info *m = loaded;
    if (!m)
        m = loaded = find_module(err, &status);
    pthread_mutex_unlock(&load_lock);
    if (!m) {
        rip_err_one_line(err);
        return status;
    }
    return m->solve(p, o, out, err);
}
