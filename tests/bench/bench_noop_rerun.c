/*
** bench_noop_rerun.c — what a no-op rerun of a finished sweep costs
** (issue 11: under 1 s for 1,000,000 layers; issue 19 made every open run
** the whole database check).
**
**   bench_noop_rerun RIPSIM DB [N] [RUNS]
**
** 1. `RIPSIM sweep --n N --db DB --quiet` once, to create or finish DB (a
**    DB already finished makes this a rerun too);
** 2. the same command RUNS more times, each a no-op rerun: the CPU seconds
**    (user + system, the child's own accounting) and wall seconds of each
**    whole process, then min, median and max;
** 3. the database check alone in this process (rip_db_inspect, which opens
**    DB read-only and runs rip_db_check), RUNS times: min, median, max
**    CPU seconds.
** A benchmark: it asserts nothing about time.
*/
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "db.h"

extern char **environ;

enum { MAX_RUNS = 100 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double tv_seconds(struct timeval tv)
{
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* CPU seconds (user + system) of this process (RUSAGE_SELF) or of its waited-for children. */
static double cpu_of(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return tv_seconds(ru.ru_utime) + tv_seconds(ru.ru_stime);
}

/* Run argv (output to /dev/null): its exit status, CPU and wall seconds; -1 if it could not start. */
static int run(char *const *argv, double *cpu, double *wall)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double c0 = cpu_of(RUSAGE_CHILDREN), t0 = now();
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    *wall = now() - t0;
    *cpu = cpu_of(RUSAGE_CHILDREN) - c0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_spread(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    printf("%-34s min %.3f  median %.3f  max %.3f  (%d runs)\n", what, v[0], median, v[n - 1], n);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: bench_noop_rerun RIPSIM DB [N] [RUNS]\n");
        return 64;
    }
    const char *n = argc > 3 ? argv[3] : "100000";
    int runs = argc > 4 ? atoi(argv[4]) : 9;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "bench_noop_rerun: RUNS must be 1 to %d\n", MAX_RUNS);
        return 64;
    }
    char *cmd[] = {argv[1], "sweep", "--n", (char *)n, "--db", argv[2], "--quiet", NULL};
    double cpu[MAX_RUNS], wall[MAX_RUNS];
    int st = run(cmd, &cpu[0], &wall[0]);
    if (st != 0) {
        fprintf(stderr, "bench_noop_rerun: %s sweep --n %s --db %s: exit %d\n", argv[1], n, argv[2], st);
        return 70;
    }
    printf("sweep --n %s --db %s: first run %.2f CPU-s, %.2f s wall\n", n, argv[2], cpu[0], wall[0]);
    for (int i = 0; i < runs; i++) {
        if ((st = run(cmd, &cpu[i], &wall[i])) != 0) {
            fprintf(stderr, "bench_noop_rerun: rerun %d: exit %d\n", i + 1, st);
            return 70;
        }
    }
    print_spread("no-op rerun, whole process, CPU-s", cpu, runs);
    print_spread("no-op rerun, whole process, wall s", wall, runs);
    for (int i = 0; i < runs; i++) {
        char err[RIP_ERR_LEN];
        rip_db_found found;
        double t0 = cpu_of(RUSAGE_SELF);
        rip_status s = rip_db_inspect(argv[2], false, &found, err);
        cpu[i] = cpu_of(RUSAGE_SELF) - t0;
        if (s != RIP_OK) {
            fprintf(stderr, "bench_noop_rerun: %s\n", err);
            return 70;
        }
    }
    print_spread("the check alone (rip_db_inspect), CPU-s", cpu, runs);
    return 0;
}
