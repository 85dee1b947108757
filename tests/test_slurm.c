/*
** test_slurm.c — a sharded sweep on a real Slurm cluster (issue 11, item 6):
** sweeps/slurm/submit.sh runs a 4-task array of `ripsim sweep --shard I/4
** --jobs 1` and the merge job (--dependency=afterok), and the merged
** database must equal a single-machine sweep, table for table.
**
** Each test brings up its own single-node cluster in a temporary folder:
** munged -F, slurmctld -D, slurmd -D -N localhost (no systemd, no root
** needed, nothing outside the folder), on two free ports (a port something
** already listens on is never used).  Known pitfalls of Slurm 22.05 are
** avoided in the configuration: CgroupPlugin=cgroup/v1 (autodetection
** kills slurmd on other cgroup layouts), proctrack/linuxproc, task/none,
** MinJobAge and sched_min_interval low (else `sbatch --wait` polls
** slowly).  Daemons are checked through /proc/PID/stat (a zombie answers
** kill -0) and stopped in every path: the fixture's fini (also after a
** failed assertion), and PR_SET_PDEATHSIG if the test process itself dies;
** the test process is a child subreaper, so job steps that slurmd
** daemonized are its children too and are killed and reaped at the end.
**
** The suite installs nothing: without munged, slurmctld, slurmd or sbatch
** it exits 77 (meson: SKIP) saying what is missing.  ./build.sh test
** installs slurm-wlm and munge.  Takes about 15 s (most of it sbatch
** --wait's polling).
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db_dump.h"

extern char **environ;

/* The tools the cluster needs, found in PATH or the sbin folders. */
static const char *const tools[] = {"munged", "slurmctld", "slurmd", "sbatch", "sinfo", "scancel"};
#define N_TOOLS (sizeof tools / sizeof tools[0])
static char tool_path[N_TOOLS][512];

#define SHARDS 4
#define SWEEP_N "2000"

/* Fill tool_path; the name of the first tool not found, or NULL. */
static const char *find_tools(void)
{
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/usr/sbin:/sbin:/usr/bin", path ? path : "");
    for (size_t t = 0; t < N_TOOLS; t++) {
        tool_path[t][0] = '\0';
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", dirs);
        for (char *save, *d = strtok_r(copy, ":", &save); d && !tool_path[t][0]; d = strtok_r(NULL, ":", &save)) {
            char p[512];
            snprintf(p, sizeof p, "%s/%s", d, tools[t]);
            if (access(p, X_OK) == 0)
                snprintf(tool_path[t], sizeof tool_path[t], "%s", p);
        }
        if (!tool_path[t][0])
            return tools[t];
    }
    return NULL;
}

/* Before Criterion starts: without Slurm and MUNGE the suite is skipped. */
__attribute__((constructor)) static void skip_without_slurm(void)
{
    const char *missing = find_tools();
    if (missing) {
        printf("slurm: skipped: %s not found (apt-get install slurm-wlm munge; ./build.sh test installs them)\n",
               missing);
        fflush(stdout);
        _exit(77);
    }
}

static const char *tool(const char *name)
{
    for (size_t t = 0; t < N_TOOLS; t++)
        if (strcmp(tools[t], name) == 0)
            return tool_path[t];
    cr_assert_fail("unknown tool %s", name);
    return NULL;
}

/* ---- the cluster ---- */

static char dir[64];                      /* the temporary folder */
static char conf[128];                    /* its slurm.conf */
static pid_t pid_munged, pid_ctld, pid_slurmd;

static const char *in_dir(const char *name)
{
    static char buf[8][256];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Is pid alive and not a zombie?  (/proc/PID/stat state; kill -0 succeeds
** on zombies.) */
static bool alive(pid_t pid)
{
    char p[64], line[512];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(p, "r");
    if (!f)
        return false;
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    const char *rp = ok ? strrchr(line, ')') : NULL;   /* the name may hold spaces */
    return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/* Start argv[0] with stdout and stderr appended to log; it gets SIGTERM
** when this process dies.  Returns its pid. */
static pid_t spawn(const char *const *argv, const char *log)
{
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        int nul = open("/dev/null", O_RDONLY);
        if (fd < 0 || nul < 0)
            _exit(127);
        dup2(nul, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        close(nul);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Run argv to completion (stdout and stderr to log); its exit status, or
** 128 + signal. */
static int run_wait(const char *const *argv, const char *log)
{
    pid_t pid = spawn(argv, log);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        cr_assert_eq(errno, EINTR);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last bytes of a log, for a failure message (one of 4 rotating
** buffers, so that two can appear in one message). */
static const char *tail_of(const char *path)
{
    static char bufs[4][1200];
    static int k;
    char *buf = bufs[k = (k + 1) % 4];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return "(no log)";
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size > 1000 ? size - 1000 : 0, SEEK_SET);
    size_t n = fread(buf, 1, sizeof bufs[0] - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Can a listener bind port on the loopback address?  (Slurm would fail
** later and less clearly.) */
static bool port_free(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0)
        return false;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_ANY)};
    bool ok = bind(s, (struct sockaddr *)&a, sizeof a) == 0;
    close(s);
    return ok;
}

/* Two free ports, neither one already in use. */
static void pick_ports(int *ctld, int *slurmd)
{
    int base = 20000 + (int)((unsigned)getpid() * 7919u % 30000u), found = 0;
    int got[2] = {0, 0};
    for (int p = base; p < base + 2000 && found < 2; p++)
        if (port_free(p))
            got[found++] = p;
    cr_assert_eq(found, 2, "no two free ports in %d..%d", base, base + 1999);
    *ctld = got[0];
    *slurmd = got[1];
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
    size_t n = strlen(text);
    cr_assert_eq(write(fd, text, n), (ssize_t)n);
    cr_assert_eq(close(fd), 0);
}

static void write_configs(void)
{
    int ctld_port, slurmd_port;
    pick_ports(&ctld_port, &slurmd_port);
    struct passwd *pw = getpwuid(getuid());
    cr_assert_not_null(pw);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    char text[4096];
    snprintf(text, sizeof text,
             "ClusterName=ripsimtest\n"
             "SlurmctldHost=localhost\n"
             "SlurmUser=%s\nSlurmdUser=%s\n"
             "SlurmctldPort=%d\nSlurmdPort=%d\n"
             "AuthType=auth/munge\nCredType=cred/munge\n"
             "AuthInfo=socket=%s\n"
             "StateSaveLocation=%s\nSlurmdSpoolDir=%s\n"
             "SlurmctldPidFile=%s\nSlurmdPidFile=%s\n"
             "SlurmctldLogFile=%s\nSlurmdLogFile=%s\n"
             "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
             "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
             "SwitchType=switch/none\nMpiDefault=none\n"
             "SchedulerType=sched/builtin\nSelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
             "SchedulerParameters=sched_min_interval=0\nMinJobAge=4\nReturnToService=2\n"
             "NodeName=localhost NodeAddr=127.0.0.1 CPUs=%ld State=UNKNOWN\n"
             "PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n",
             pw->pw_name, pw->pw_name, ctld_port, slurmd_port, in_dir("sock/munge.socket"), in_dir("state"),
             in_dir("spool"), in_dir("slurmctld.pid"), in_dir("slurmd.pid"), in_dir("slurmctld.log"),
             in_dir("slurmd.log"), cpus > 0 ? cpus : 1);
    write_file(conf, text, 0644);
    write_file(in_dir("cgroup.conf"), "CgroupPlugin=cgroup/v1\n", 0644);
}

/* A 1024-byte MUNGE key from /dev/urandom, mode 0600 in a 0700 folder. */
static void write_munge_key(void)
{
    cr_assert_eq(mkdir(in_dir("munge"), 0700), 0);
    unsigned char key[1024];
    int fd = open("/dev/urandom", O_RDONLY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(read(fd, key, sizeof key), (ssize_t)sizeof key);
    close(fd);
    fd = open(in_dir("munge/munge.key"), O_WRONLY | O_CREAT | O_EXCL, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, key, sizeof key), (ssize_t)sizeof key);
    cr_assert_eq(close(fd), 0);
}

/* sinfo's state of the node ("idle", ...), or "" when it does not answer. */
static const char *node_state(void)
{
    static char out[64];
    const char *argv[] = {tool("sinfo"), "-h", "-o", "%t", NULL};
    out[0] = '\0';
    if (run_wait(argv, in_dir("sinfo.out")) == 0) {
        FILE *f = fopen(in_dir("sinfo.out"), "r");
        if (f && fgets(out, sizeof out, f))
            out[strcspn(out, "\n")] = '\0';
        if (f)
            fclose(f);
    }
    unlink(in_dir("sinfo.out"));
    return out;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sleep ms milliseconds. */
static void nap(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void cluster_stop(void);

/* A daemon that is not alive: stop everything, then fail with its log. */
static void expect_alive(pid_t pid, const char *name, const char *log)
{
    if (!alive(pid)) {
        char msg[1400];
        snprintf(msg, sizeof msg, "%s died: %s", name, tail_of(log));
        cluster_stop();
        cr_assert_fail("%s", msg);
    }
}

static void cluster_start(void)
{
    /* the job steps slurmd daemonizes become this process's children */
    cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    snprintf(dir, sizeof dir, "/tmp/ripsim-slurm-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chmod(dir, 0755), 0);   /* munged wants its socket's path searchable by all */
    snprintf(conf, sizeof conf, "%s/slurm.conf", dir);
    cr_assert_eq(mkdir(in_dir("state"), 0700), 0);
    cr_assert_eq(mkdir(in_dir("spool"), 0700), 0);
    cr_assert_eq(mkdir(in_dir("sock"), 0755), 0);   /* munged insists on 0755 */
    write_munge_key();
    write_configs();
    /* the clients (sinfo, sbatch in submit.sh) and the jobs: this cluster
    ** only, whatever Slurm this test itself may run under */
    for (char **e = environ; *e;) {
        if (strncmp(*e, "SLURM_", 6) == 0) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
            unsetenv(name);
        } else {
            e++;
        }
    }
    setenv("SLURM_CONF", conf, 1);
    char path[4096];
    snprintf(path, sizeof path, "/usr/sbin:/sbin:%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", path, 1);

    double t0 = now();
    const char *munged[] = {tool("munged"), "-F", "--socket", in_dir("sock/munge.socket"), "--key-file",
                            in_dir("munge/munge.key"), "--pid-file", in_dir("munged.pid"), "--seed-file",
                            in_dir("munged.seed"), "--log-file", in_dir("munged.log"), NULL};
    pid_munged = spawn(munged, in_dir("munged.out"));
    while (access(in_dir("sock/munge.socket"), F_OK) != 0 && now() - t0 < 5 && alive(pid_munged))
        nap(10);
    expect_alive(pid_munged, "munged", in_dir("munged.out"));
    const char *ctld[] = {tool("slurmctld"), "-D", "-f", conf, NULL};
    pid_ctld = spawn(ctld, in_dir("slurmctld.out"));
    const char *slurmd[] = {tool("slurmd"), "-D", "-N", "localhost", "-f", conf, NULL};
    pid_slurmd = spawn(slurmd, in_dir("slurmd.out"));
    while (strcmp(node_state(), "idle") != 0 && now() - t0 < 20) {
        expect_alive(pid_ctld, "slurmctld", in_dir("slurmctld.log"));
        expect_alive(pid_slurmd, "slurmd", in_dir("slurmd.log"));
        nap(100);
    }
    if (strcmp(node_state(), "idle") != 0) {
        char msg[1400];
        snprintf(msg, sizeof msg, "the node is not idle after 20 s: %s", tail_of(in_dir("slurmd.log")));
        cluster_stop();
        cr_assert_fail("%s", msg);
    }
    fprintf(stderr, "slurm: cluster up in %.2f s\n", now() - t0);
}

/* SIGTERM pid, SIGKILL after 3 s; reaped.  0 (nothing to do) is fine. */
static void stop_pid(pid_t *pid)
{
    if (*pid <= 0)
        return;
    kill(*pid, SIGTERM);
    double t0 = now();
    int st;
    while (waitpid(*pid, &st, WNOHANG) == 0 && now() - t0 < 3)
        nap(20);
    if (waitpid(*pid, &st, WNOHANG) == 0) {
        kill(*pid, SIGKILL);
        waitpid(*pid, &st, 0);
    }
    *pid = 0;
}

/* Cancel every job, stop the daemons (slurmd, slurmctld, munged), kill and
** reap any child left (job steps), remove the folder.  Safe to call twice. */
static void cluster_stop(void)
{
    if (pid_ctld > 0 && alive(pid_ctld)) {
        struct passwd *pw = getpwuid(getuid());
        const char *argv[] = {tool("scancel"), "--user", pw ? pw->pw_name : "root", NULL};
        run_wait(argv, in_dir("scancel.out"));
    }
    stop_pid(&pid_slurmd);
    stop_pid(&pid_ctld);
    stop_pid(&pid_munged);
    /* whatever else is left of this test: its own children */
    pid_t self = getpid();
    for (int pass = 0; pass < 2; pass++) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "/proc/%d/task/%d/children", (int)self, (int)self);
        FILE *f = fopen(cmd, "r");
        int child;
        while (f && fscanf(f, "%d", &child) == 1)
            kill(child, SIGKILL);
        if (f)
            fclose(f);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        nap(50);
    }
    if (dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        cr_expect_eq(system(cmd), 0);
        dir[0] = '\0';
    }
}

TestSuite(slurm, .init = cluster_start, .fini = cluster_stop, .timeout = 120);

/* ---- the sweep ---- */

/* sweeps/slurm/submit.sh with args, under `timeout`; its exit status. */
static int submit(const char *const *args, const char *log)
{
    const char *results = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(results);
    char script[512];
    snprintf(script, sizeof script, "%s/../sweeps/slurm/submit.sh", results);
    const char *argv[32] = {"/usr/bin/timeout", "90", script};
    size_t n = 3;
    for (; args[n - 3] && n < 31; n++)
        argv[n] = args[n - 3];
    argv[n] = NULL;
    return run_wait(argv, log);
}

/* Every row of every table but run_log (wall-clock times), each table in
** the order of all its columns: two databases with the same rows give the
** same string, whatever their schema. */
static char *full_dump(const char *path)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "SELECT name, (SELECT count(*) FROM pragma_table_info(m.name)) FROM sqlite_master m "
                                    "WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'run_log' "
                                    "ORDER BY name",
                                    -1, &st, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    char *q[32];
    size_t nq = 0;
    while (sqlite3_step(st) == SQLITE_ROW && nq < 32) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        int ncol = sqlite3_column_int(st, 1);
        char order[512] = "";
        for (int c = 1; c <= ncol && strlen(order) < sizeof order - 8; c++)
            snprintf(order + strlen(order), sizeof order - strlen(order), "%s%d", c > 1 ? ", " : "", c);
        q[nq] = malloc(1024);
        cr_assert_not_null(q[nq]);
        snprintf(q[nq++], 1024, "SELECT '%s', * FROM \"%s\" ORDER BY %s", name, name, order);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    cr_assert_geq(nq, 4, "%s: only %zu tables", path, nq);
    char *s = db_dump(path, (const char *const *)q, nq);
    for (size_t i = 0; i < nq; i++)
        free(q[i]);
    return s;
}

static int64_t count_layers(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM layers", -1, &st, NULL), SQLITE_OK, "%s",
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

Test(slurm, sharded_array_and_merge_equal_a_single_machine_sweep)
{
    const char *bin = getenv("RIPSIM_BIN");
    cr_assert_not_null(bin);
    /* the reference: the same sweep on this machine, one process */
    char single[256];
    snprintf(single, sizeof single, "%s", in_dir("single.db"));
    const char *one[] = {bin, "sweep", "--n", SWEEP_N, "--db", single, "--quiet", NULL};
    cr_assert_eq(run_wait(one, in_dir("single.out")), 0, "%s", tail_of(in_dir("single.out")));

    double t0 = now();
    char shards[8];
    snprintf(shards, sizeof shards, "%d", SHARDS);
    const char *args[] = {"--n", SWEEP_N, "--shards", shards, "--dir", in_dir("shards"), "--out",
                          in_dir("merged.db"), "--ripsim", bin, "--wait", "60", NULL};
    int rc = submit(args, in_dir("submit.log"));
    fprintf(stderr, "slurm: array of %d shards and merge in %.2f s\n", SHARDS, now() - t0);
    cr_assert_eq(rc, 0, "submit.sh exit %d: %s\nslurmctld: %s", rc, tail_of(in_dir("submit.log")),
                 tail_of(in_dir("slurmctld.log")));

    /* every shard ran as its own task and holds layer_idx % 4 == I: 500 each */
    for (int i = 0; i < SHARDS; i++) {
        char name[64];
        snprintf(name, sizeof name, "shards/shard-%d.db", i);
        cr_expect_eq(count_layers(in_dir(name)), 2000 / SHARDS, "%s", name);
    }
    cr_expect_eq(count_layers(in_dir("merged.db")), 2000);
    char *want = full_dump(single), *got = full_dump(in_dir("merged.db"));
    cr_expect_str_eq(got, want, "the merged database differs from a single-machine sweep");
    free(want);
    free(got);
}

Test(slurm, a_failed_shard_fails_the_sweep_without_hanging)
{
    /* a shard that exits 1: the merge (afterok, --kill-on-invalid-dep) is
    ** cancelled, submit.sh reports failure well before its 60 s wait, and
    ** no merged database appears */
    double t0 = now();
    const char *args[] = {"--n", "100", "--shards", "2", "--dir", in_dir("bad"), "--out", in_dir("bad.db"),
                          "--ripsim", "/bin/false", "--wait", "60", NULL};
    int rc = submit(args, in_dir("bad.log"));
    cr_expect_neq(rc, 0, "%s", tail_of(in_dir("bad.log")));
    cr_expect_neq(rc, 124, "timed out: %s", tail_of(in_dir("bad.log")));
    cr_expect_lt(now() - t0, 30.0);
    cr_expect(access(in_dir("bad.db"), F_OK) != 0, "a merged database appeared");
    cr_expect(strstr(tail_of(in_dir("bad.log")), "the sweep failed"), "%s", tail_of(in_dir("bad.log")));
}
