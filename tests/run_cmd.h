/*
** run_cmd.h — run the ripsim binary ($RIPSIM_BIN) from a Criterion test and
** capture its status, stdout and stderr.  Header-only: each suite that
** drives the command line includes it once.
*/
#ifndef RIPSIM_TEST_RUN_CMD_H
#define RIPSIM_TEST_RUN_CMD_H

#include <criterion/criterion.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    int status;             /* exit status, or 128 + signal */
    char out[1 << 16];
    char err[1 << 14];
} run_result;

/* Read both pipes until both close (poll, so neither can fill and block). */
static inline void run_drain(int fo, int fe, run_result *r)
{
    size_t no = 0, ne = 0;
    struct pollfd p[2] = {{fo, POLLIN, 0}, {fe, POLLIN, 0}};
    int open_fds = 2;
    char sink[4096];
    while (open_fds > 0 && poll(p, 2, -1) > 0) {
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char *buf = i == 0 ? r->out + no : r->err + ne;
            size_t room = i == 0 ? sizeof r->out - 1 - no : sizeof r->err - 1 - ne;
            ssize_t k = read(p[i].fd, room ? buf : sink, room ? room : sizeof sink);
            if (k <= 0) {
                p[i].fd = -1;
                open_fds--;
            } else if (room) {
                if (i == 0)
                    no += (size_t)k;
                else
                    ne += (size_t)k;
            }
        }
    }
    r->out[no] = '\0';
    r->err[ne] = '\0';
}

/* Run $RIPSIM_BIN args... with extra environment entries env ("K=V",
** NULL-terminated or NULL) and, when as_limit > 0, its address space
** limited to as_limit bytes (RLIMIT_AS, set in the child before exec: the
** same limit as `ulimit -v`, from the first instruction on). */
static inline run_result *run_env_limited(const char *const *env, const char *const *args, rlim_t as_limit)
{
    static run_result r;
    const char *bin = getenv("RIPSIM_BIN");
    cr_assert_not_null(bin, "RIPSIM_BIN must name the ripsim binary");
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)bin;
    for (; args[n - 1] && n < 39; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;

    int po[2], pe[2];
    cr_assert_eq(pipe(po), 0);
    cr_assert_eq(pipe(pe), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        for (int i = 0; env && env[i]; i++) {
            char kv[8192]; /* PATH=... can be long */
            snprintf(kv, sizeof kv, "%s", env[i]);
            char *eq = strchr(kv, '=');
            if (eq) {
                *eq = '\0';
                setenv(kv, eq + 1, 1);
            }
        }
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]); close(pe[0]); close(po[1]); close(pe[1]);
        struct rlimit lim = {as_limit, as_limit};
        if (as_limit > 0 && setrlimit(RLIMIT_AS, &lim) != 0)
            _exit(126);
        execv(bin, argv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    run_drain(po[0], pe[0], &r);
    close(po[0]);
    close(pe[0]);
    int st;
    waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return &r;
}

/* run_env_limited without a limit. */
static inline run_result *run_env(const char *const *env, const char *const *args)
{
    return run_env_limited(env, args, 0);
}

/*
** run_env with the test-only ripsim-testhooks ($RIPSIM_TESTHOOKS_BIN,
** tests/meson.build) in place of $RIPSIM_BIN: the build whose test hooks
** (RIPSIM_TEST_* variables) stop a command at an exact point.
*/
static inline run_result *run_env_hooks(const char *const *env, const char *const *args)
{
    const char *bin = getenv("RIPSIM_TESTHOOKS_BIN"), *keep = getenv("RIPSIM_BIN");
    cr_assert_not_null(bin, "RIPSIM_TESTHOOKS_BIN must name ripsim-testhooks");
    char saved[4096];
    snprintf(saved, sizeof saved, "%s", keep ? keep : "");
    setenv("RIPSIM_BIN", bin, 1);
    run_result *r = run_env(env, args);
    setenv("RIPSIM_BIN", saved, 1);
    return r;
}

static inline int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

#define RUN(...) run_env(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_ENV(envs, ...) run_env((const char *const[]){envs, NULL}, (const char *const[]){__VA_ARGS__, NULL})
/* ripsim-testhooks with one hook variable ("K=V") set. */
#define RUN_HOOK(hook, ...) run_env_hooks((const char *const[]){hook, NULL}, (const char *const[]){__VA_ARGS__, NULL})

#endif
