/*
** korder_pipe.h — the kernel runner of korder_verify.h for kernels that run
** in another process (a harness reading jobs on its stdin and answering on
** its stdout, korder_job.h's protocol): TFLM's reference kernels
** (tests/tflm/ref_orders.cc) and CMSIS-NN on a Cortex-M33 in QEMU
** (tests/cmsis_m33/orders_m33.c).  The suite starts the harness in its
** test's init (kp_start), stops it in its fini (kp_stop) and sets kv_run to
** kp_run.  Include after korder_verify.h.
*/
#ifndef RIPSIM_KORDER_PIPE_H
#define RIPSIM_KORDER_PIPE_H

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static FILE *to_harness, *from_harness;
static pid_t harness_pid = -1;
static char kp_harness[4300];       /* the harness the suite builds (a program or a QEMU image) */

/* kp_harness := the folder the environment variable dir_env names, then "/" file; false when the
** environment does not name it. */
static bool kp_harness_path(const char *dir_env, const char *file)
{
    const char *dir = getenv(dir_env);
    if (dir == NULL)
        return false;
    snprintf(kp_harness, sizeof kp_harness, "%s/%s", dir, file);
    return true;
}

/* Build the harness with the shell command cmd (from a PRE_ALL hook: once, before any test; the
** tests run in other processes and find it by its path); removed when cmd fails. */
static void kp_build(const char *cmd)
{
    if (system(cmd) != 0)
        unlink(kp_harness);
}

/* Wait for the harness after closing its pipes (it ends at the end of its input). */
static void kp_stop(void)
{
    if (to_harness)
        fclose(to_harness);
    if (from_harness)
        fclose(from_harness);
    to_harness = from_harness = NULL;
    if (harness_pid > 0) {
        int st;
        while (waitpid(harness_pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    harness_pid = -1;
}

/* Start argv (argv[0] found on PATH when it has no slash), which runs the built kp_harness, with a
** pipe to its stdin and one from its stdout; its stderr stays the test's.  Fails the test when the
** harness did not build. */
static void kp_start(char *const argv[])
{
    cr_assert(access(kp_harness, R_OK) == 0, "%s: the harness %s did not build (see the log)", kv_suite,
              kp_harness);
    int down[2], up[2];
    cr_assert_eq(pipe(down), 0);
    cr_assert_eq(pipe(up), 0);
    harness_pid = fork();
    cr_assert_geq(harness_pid, 0);
    if (harness_pid == 0) {
        dup2(down[0], 0);
        dup2(up[1], 1);
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    to_harness = fdopen(down[1], "wb");
    from_harness = fdopen(up[0], "rb");
    cr_assert(to_harness && from_harness);
    signal(SIGPIPE, SIG_IGN);
}

static void kp_put(const void *p, size_t n)
{
    cr_assert_eq(fwrite(p, 1, n, to_harness), n, "%s: the harness stopped reading", kv_suite);
}

/* The runner of korder_verify.h: one job to the harness, its output back. */
static void kp_run(const struct layer *l, const int8_t *in, int64_t n_in, int64_t d, int8_t *out, int64_t n_out)
{
    int64_t h[KJ_FIELDS];
    kv_job_header(l, d, h);
    kp_put(h, sizeof h);
    kp_put(l->filter, (size_t)l->n_filter);
    kp_put(l->bias, 4 * (size_t)l->n_ch);
    kp_put(l->mult, 4 * (size_t)l->n_ch);
    kp_put(l->shift, 4 * (size_t)l->n_ch);
    kp_put(in, (size_t)n_in);
    if (l->kind == KV_ADD)
        kp_put(l->other, (size_t)l->ctx.g.n_elem);
    cr_assert_eq(fflush(to_harness), 0);
    cr_assert_eq(fread(out, 1, (size_t)n_out, from_harness), (size_t)n_out,
                 "%s: the harness gave no answer (%s)", kv_suite, rip_korder_name(l->ctx.order));
}

#endif
