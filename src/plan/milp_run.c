/*
** milp_run.c — one CBC solve in a child process, told apart from a
** timeout when it fails (milp_run.h says why a child).
**
** The child loads the program into a new CBC model, solves it and writes
** its answer (a fixed header, then the solution) to a pipe; its stderr goes
** to a second pipe, non-blocking so it can never stall the child, whose
** last words (libstdc++'s "terminate called after throwing an instance of
** 'std::bad_alloc'") go into the error line.  The parent reads the answer
** until the deadline, then waits for the child and judges by how it ended:
**
**   answer complete, exit 0                 CBC's result
**   deadline passed, child stopped by us    a timeout (no result, RIP_OK)
**   killed by a signal we did not send      RIP_S_NOMEM (71): SIGABRT is
**                                           what std::bad_alloc ends in,
**                                           SIGKILL the kernel's OOM killer
**   exit non-zero                           RIP_S_NOMEM
**   exit 0, answer truncated or malformed   RIP_S_INTERNAL (a bug)
**   no pipe, no fork, a read that fails     RIP_S_NOMEM
**
** Test hooks (compiled with RIPSIM_TEST_HOOKS only, in the test module
** ripsim-milp-testhooks.so of tests/meson.build, never in the released
** module): RIPSIM_TEST_MILP=abort, exit, truncate, hang or oom makes the
** child abort, exit with status 5, send 4 bytes and exit 0, never answer,
** or run with its address space limited to what it has mapped (so CBC's
** operator new throws); nofork makes the fork fail with EAGAIN.
*/
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef RIPSIM_TEST_HOOKS
#include <sys/resource.h>
#endif

#include "milp_run.h"

#define MR_MAGIC 0x43504952u   /* "RIPC" */

/* The child's exit statuses besides 0 (anything else is CBC's or the C
** library's own exit). */
enum { MR_EXIT_NOMEM = 2, MR_EXIT_PIPE = 3 };

/* The answer's fixed part, followed by ncol doubles when has_sol. */
typedef struct mr_head {
    uint32_t magic;
    int32_t ncol, proven, status, secondary, has_sol;
    double obj, bound;
} mr_head;

typedef enum mr_read { MR_READ_OK, MR_READ_EOF, MR_READ_TIME, MR_READ_ERR } mr_read;

static double mr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Write all of buf to fd.  false on a failed write. */
static bool mr_write_all(int fd, const void *buf, size_t n)
{
    const char *b = buf;
    while (n > 0) {
        ssize_t k = write(fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        b += k;
        n -= (size_t)k;
    }
    return true;
}

/* Read exactly n bytes from fd into buf, waiting until deadline (0: for
** ever); *got counts the bytes read.  MR_READ_ERR leaves errno set. */
static mr_read mr_read_until(int fd, void *buf, size_t n, double deadline, size_t *got)
{
    char *b = buf;
    *got = 0;
    while (*got < n) {
        int ms = -1;
        if (deadline > 0) {
            double left = deadline - mr_now();
            if (left <= 0)
                return MR_READ_TIME;
            ms = left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
        }
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, ms);
        if (pr == 0 || (pr < 0 && errno == EINTR))
            continue;   /* the loop's head sees whether time is up */
        if (pr < 0)
            return MR_READ_ERR;
        ssize_t k = read(fd, b + *got, n - *got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return MR_READ_ERR;
        if (k == 0)
            return MR_READ_EOF;
        *got += (size_t)k;
    }
    return MR_READ_OK;
}

#ifdef RIPSIM_TEST_HOOKS
static const char *mr_hook(void)
{
    const char *h = getenv("RIPSIM_TEST_MILP");
    return h ? h : "";
}

/* The child's failure under test (the file's comment), before CBC runs. */
static void mr_child_hook(int fd)
{
    const char *h = mr_hook();
    if (strcmp(h, "abort") == 0)
        abort();
    if (strcmp(h, "exit") == 0)
        _exit(5);
    if (strcmp(h, "truncate") == 0) {
        uint32_t m = MR_MAGIC;
        _exit(write(fd, &m, sizeof m) == (ssize_t)sizeof m ? 0 : MR_EXIT_PIPE);
    }
    if (strcmp(h, "hang") == 0)
        for (;;)
            pause();
    if (strcmp(h, "oom") == 0) {
        long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (!f || fscanf(f, "%ld", &pages) != 1)
            _exit(MR_EXIT_NOMEM);
        fclose(f);
        rlim_t size = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
        struct rlimit lim = {size, size};
        if (setrlimit(RLIMIT_AS, &lim) != 0)
            _exit(MR_EXIT_NOMEM);
    }
}
#endif

/* fork(), or under the nofork hook a fork that fails with EAGAIN. */
static pid_t mr_fork(void)
{
#ifdef RIPSIM_TEST_HOOKS
    if (strcmp(mr_hook(), "nofork") == 0) {
        errno = EAGAIN;
        return -1;
    }
#endif
    return fork();
}

/* CBC's parameters: its log (verbose), its own time limit (seconds, wall
** clock; 0: none), its node limit (max_nodes; 0: none) and the
** optimality gaps. */
static void mr_cbc_params(Cbc_Model *cbc, bool verbose, double seconds, int max_nodes)
{
    Cbc_setLogLevel(cbc, verbose ? 1 : 0);
    /* CBC 2.10.8 crashes (SIGSEGV in CglPreProcess::postProcess) on some of
    ** these programs when a run with a MIP start stops on its time limit;
    ** its preprocessing buys nothing here (the bound comes from the cut,
    ** solutions from the start and the neighbourhood search), so it is off */
    Cbc_setParameter(cbc, "preprocess", "off");
    if (seconds > 0) {
        Cbc_setParameter(cbc, "timeMode", "elapsed");   /* wall clock, as opts.time_limit */
        Cbc_setMaximumSeconds(cbc, seconds);
    }
    if (max_nodes > 0)
        Cbc_setMaximumNodes(cbc, max_nodes);
    Cbc_setAllowableGap(cbc, 1e-7);
    Cbc_setAllowableFractionGap(cbc, 0.0);
}

/* The child: stderr into efd, load pg into CBC, solve, write the answer to
** fd, leave without cleanup.  Never returns. */
static _Noreturn void mr_child(const rip_milp_program *pg, int fd, int efd)
{
    int fl = fcntl(efd, F_GETFL);
    if (fl >= 0)
        fcntl(efd, F_SETFL, fl | O_NONBLOCK);
    dup2(efd, STDERR_FILENO);
    close(efd);
#ifdef RIPSIM_TEST_HOOKS
    mr_child_hook(fd);
#endif
    Cbc_Model *cbc = Cbc_newModel();
    if (!cbc)
        _exit(MR_EXIT_NOMEM);
    Cbc_loadProblem(cbc, pg->ncol, pg->nrow, pg->start, pg->index, pg->value, pg->clb, pg->cub, pg->cobj, pg->rlo,
                    pg->rhi);
    for (int j = 0; j < pg->ncol; j++)
        if (pg->cint[j])
            Cbc_setInteger(cbc, j);
    Cbc_setObjSense(cbc, 1);
    Cbc_setProblemName(cbc, pg->name);
    Cbc_setMIPStartI(cbc, pg->nstart, pg->start_idx, pg->start_val);
    mr_cbc_params(cbc, pg->verbose, pg->seconds, pg->max_nodes);
    Cbc_solve(cbc);
    const double *sol = Cbc_bestSolution(cbc);
    mr_head h;
    memset(&h, 0, sizeof h);
    h.magic = MR_MAGIC;
    h.ncol = pg->ncol;
    h.proven = Cbc_isProvenOptimal(cbc) != 0;
    h.status = Cbc_status(cbc);
    h.secondary = Cbc_secondaryStatus(cbc);
    h.has_sol = sol != NULL;
    h.obj = Cbc_getObjValue(cbc);
    h.bound = Cbc_getBestPossibleObjValue(cbc);
    bool ok = mr_write_all(fd, &h, sizeof h) && (!sol || mr_write_all(fd, sol, (size_t)pg->ncol * sizeof *sol));
    fflush(NULL);   /* CBC's log, under verbose */
    _exit(ok ? 0 : MR_EXIT_PIPE);
}

/* The last words of the child on its stderr (read to EOF: it has exited),
** one line: the last up to 200 bytes, line breaks as " / ", runs of
** blanks as one. */
static void mr_last_words(int efd, char *out, size_t len)
{
    char tail[200], chunk[512];
    size_t n = 0;
    ssize_t k;
    while ((k = read(efd, chunk, sizeof chunk)) > 0 || (k < 0 && errno == EINTR)) {
        size_t add = k > 0 ? (size_t)k : 0, keep = n;
        if (add >= sizeof tail) {   /* the chunk's end alone */
            memcpy(tail, chunk + add - sizeof tail, sizeof tail);
            n = sizeof tail;
            continue;
        }
        if (keep + add > sizeof tail)
            keep = sizeof tail - add;
        memmove(tail, tail + n - keep, keep);
        memcpy(tail + keep, chunk, add);
        n = keep + add;
    }
    size_t o = 0;
    bool blank = true;   /* drop leading blanks */
    for (size_t i = 0; i < n && o + 4 < len; i++) {
        char c = tail[i];
        if (c == '\n' || c == '\r') {
            if (o > 0 && !blank) {
                memcpy(out + o, " / ", 3);
                o += 3;
            }
            blank = true;
        } else if (c == ' ' || c == '\t') {
            if (!blank)
                out[o++] = ' ';
            blank = true;
        } else {
            out[o++] = c;
            blank = false;
        }
    }
    while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '/'))
        o--;
    out[o] = '\0';
}

/* The name of a signal a process may die of, or NULL for another. */
static const char *mr_signal_name(int sig)
{
    switch (sig) {
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    default: return NULL;
    }
}

/* err: how a child that ended with wait status st (not stopped by us)
** failed, with its last words. */
static void mr_describe(int st, const char *said, char err[RIP_ERR_LEN])
{
    char how[128];
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        const char *name = mr_signal_name(sig);
        bool mem = sig == SIGABRT || sig == SIGKILL || sig == SIGSEGV || sig == SIGBUS;
        snprintf(how, sizeof how, "was killed by signal %d%s%s%s%s", sig, name ? " (" : "", name ? name : "",
                 mem ? "; out of memory?" : "", name ? ")" : "");
    } else if (WEXITSTATUS(st) == MR_EXIT_NOMEM) {
        snprintf(how, sizeof how, "ran out of memory");
    } else if (WEXITSTATUS(st) == MR_EXIT_PIPE) {
        snprintf(how, sizeof how, "could not send its answer");
    } else {
        snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(st));
    }
    snprintf(err, RIP_ERR_LEN, "the CBC solver process %s%s%.300s", how, *said ? ": " : "", said);
}

rip_status rip_milp_run(const rip_milp_program *pg, double deadline, rip_milp_answer *r, char err[RIP_ERR_LEN])
{
    memset(r, 0, sizeof *r);
    int fd[2] = {-1, -1}, efd[2] = {-1, -1};
    pid_t pid = -1;
    const char *what = "pipe";
    if (pipe(fd) == 0 && pipe(efd) == 0) {
        what = "fork";
        fflush(NULL);   /* nothing buffered is written twice */
        pid = mr_fork();
    }
    if (pid < 0) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (fd[i] >= 0)
                close(fd[i]);
            if (efd[i] >= 0)
                close(efd[i]);
        }
        snprintf(err, RIP_ERR_LEN, "cannot start the CBC solver process (%s: %s)", what, strerror(e));
        return RIP_S_NOMEM;
    }
    if (pid == 0) {
        close(fd[0]);
        close(efd[0]);
        mr_child(pg, fd[1], efd[1]);
    }
    close(fd[1]);
    close(efd[1]);

    rip_status rc = RIP_OK;
    mr_head h;
    size_t sol_bytes = (size_t)pg->ncol * sizeof *r->sol, got = 0, want = sizeof h;
    mr_read rd = mr_read_until(fd[0], &h, sizeof h, deadline, &got);
    int read_errno = errno;
    bool valid = rd == MR_READ_OK && h.magic == MR_MAGIC && h.ncol == pg->ncol && (h.has_sol == 0 || h.has_sol == 1) &&
                 (h.proven == 0 || h.proven == 1);
    if (valid && h.has_sol) {
        want += sol_bytes;
        r->sol = malloc(sol_bytes + sizeof *r->sol);
        if (!r->sol) {
            rc = RIP_S_NOMEM;
            snprintf(err, RIP_ERR_LEN, "out of memory");
        } else {
            size_t g = 0;
            rd = mr_read_until(fd[0], r->sol, sol_bytes, deadline, &g);
            read_errno = errno;
            got += g;
        }
    }
    bool answer = rc == RIP_OK && valid && rd == MR_READ_OK;
    /* stop a child that is of no use: past the deadline, unreadable, or
    ** sending what cannot be its answer (it might block on a full pipe);
    ** SIGKILL before the pipe closes, so it never dies of SIGPIPE instead */
    bool stopped = !answer && rd != MR_READ_EOF;
    if (stopped)
        kill(pid, SIGKILL);
    close(fd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    char said[256];
    mr_last_words(efd[0], said, sizeof said);
    close(efd[0]);
    bool ours = stopped && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
    bool clean = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (rc != RIP_OK) {
        /* err is set: out of memory here */
    } else if (rd == MR_READ_TIME && (ours || clean)) {
        r->finished = false;   /* a timeout */
    } else if (rd == MR_READ_ERR) {
        rc = RIP_S_NOMEM;
        snprintf(err, RIP_ERR_LEN, "cannot read the CBC solver's answer: %s", strerror(read_errno));
    } else if (!ours && !clean) {
        rc = RIP_S_NOMEM;
        mr_describe(st, said, err);
    } else if (!answer) {
        rc = RIP_S_INTERNAL;
        if (rd == MR_READ_EOF)
            snprintf(err, RIP_ERR_LEN, "the CBC solver process sent a truncated answer (%zu of %zu bytes)",
                     got, want);
        else
            snprintf(err, RIP_ERR_LEN, "the CBC solver process sent a malformed answer");
    } else {
        r->finished = true;
        r->proven = h.proven != 0;
        r->status = h.status;
        r->secondary = h.secondary;
        r->obj = h.obj;
        r->bound = h.bound;
    }
    if (rc != RIP_OK) {
        free(r->sol);
        r->sol = NULL;
        rip_err_one_line(err);
    }
    return rc;
}
