/*
** test_cli_io.c — what every command does with its output (issue 8,
** items 7, 3, 12 and 14):
**   - a write error on standard output or on a result file exits 74 with
**     one line, never 0 (stdout to /dev/full; a result file past
**     RLIMIT_FSIZE), and a failed result file leaves the old file intact
**     and no temporary file behind;
**   - --out naming one of the command's inputs (another spelling, a hard
**     link) is refused, the input byte-identical;
**   - every --help lists the exit statuses the command's code can return;
**   - `tables fig1 --out -` writes the SVG to standard output, no file "-";
**   - the progress line appears on a terminal (a pseudo-terminal through
**     script(1)) and never on a pipe;
** and (issue 19, item 11) a command's outputs are replaced together:
**   - `tables fig1`: the SVG and the PNG both old or both new when
**     rsvg-convert fails or the run is killed while it converts, no
**     temporary left, their modes kept;
**   - `claims`: claims.md and its figures both old (SIGTERM before the
**     renames) or both new (SIGTERM during them), --fig-dir missing is 73
**     with claims.md untouched, and every figure link of claims.md
**     resolves, wherever --fig-dir is.
*/
#include "run_cmd.h"
#include "skip.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ripsim-cli-io-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void cleanup(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (tmpdir[0] && system(cmd) != 0)
        cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(cli_io, .init = make_tmpdir, .fini = cleanup, .timeout = 300);

static const char *tmp(const char *name)
{
    static char buf[8][400];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", tmpdir, name);
    return b;
}

/* A file of the repository, found from RIPSIM_RESULTS_DIR (results/). */
static const char *repo(const char *rel)
{
    static char buf[8][600];
    static int k;
    const char *dir = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(dir);
    char *b = buf[k++ % 8];
    snprintf(b, sizeof buf[0], "%s/../%s", dir, rel);
    return b;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return s;
}

static void copy(const char *from, const char *to)
{
    size_t n;
    char *s = slurp(from, &n);
    FILE *f = fopen(to, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(s, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
    free(s);
}

/*
** Run ripsim with standard output going to the file out_path (opened for
** writing) and, when fsize > 0, RLIMIT_FSIZE = fsize bytes (SIGXFSZ
** ignored, so a write past it fails with EFBIG); cwd when not NULL.
** stderr is captured into r->err.
*/
static run_result *run_to(const char *out_path, long fsize, const char *cwd, const char *const *args)
{
    static run_result r;
    const char *bin = getenv("RIPSIM_BIN");
    cr_assert_not_null(bin);
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)bin;
    for (; args[n - 1] && n < 39; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    int pe[2];
    cr_assert_eq(pipe(pe), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            _exit(126);
        dup2(fd, 1);
        dup2(pe[1], 2);
        close(pe[0]);
        close(pe[1]);
        if (fsize > 0) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            signal(SIGXFSZ, SIG_IGN);
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        if (cwd && chdir(cwd) != 0)
            _exit(126);
        execv(bin, argv);
        _exit(127);
    }
    close(pe[1]);
    size_t ne = 0;
    ssize_t k;
    while ((k = read(pe[0], r.err + ne, sizeof r.err - 1 - ne)) > 0)
        ne += (size_t)k;
    r.err[ne] = '\0';
    r.out[0] = '\0';
    close(pe[0]);
    int st;
    waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return &r;
}

#define RUN_TO(path, fsize, cwd, ...) run_to(path, fsize, cwd, (const char *const[]){__VA_ARGS__, NULL})

/* exit 74 and one line on stderr */
static void expect_write_error(run_result *r, const char *what)
{
    cr_expect_eq(r->status, 74, "%s: status %d, stderr %s", what, r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s: one line, got '%s'", what, r->err);
    cr_expect(strstr(r->err, "cannot write") != NULL, "%s: %s", what, r->err);
}

/* A small sweep database in tmpdir, made once. */
static const char *small_db(void)
{
    const char *db = tmp("s.db");
    struct stat st;
    if (stat(db, &st) != 0) {
        run_result *r = RUN("sweep", "--n", "40", "--seed", "7", "--db", db, "--jobs", "1", "--quiet");
        cr_assert_eq(r->status, 0, "%s", r->err);
    }
    return db;
}

Test(cli_io, stdout_write_errors_are_74)
{
    struct stat st;
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode))
        rip_skip("no /dev/full");
    const char *csv = repo("sweeps/layers/resnet50.csv"), *graph = repo("firmware/models/mcunet/mcunet-in3.csv");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "layers", csv, "--no-sim"), "layers");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "layers", csv, "--no-sim", "--format", "csv"), "layers csv");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "layer", "cin=1,cout=5,h=14,k=3"), "layer");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "layer", "--json", "cin=1,cout=5,h=14,k=3"), "layer --json");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "plan", "--json", graph), "plan --json");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "plan", graph, "--draw", "ascii"), "plan --draw ascii");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "report", "--db", small_db()), "report");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "report", "--db", small_db(), "--out", "-"), "report --out -");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "tables", "table6", "--layers-dir", repo("sweeps/layers"),
                              "--out", "-"), "tables --out -");
    expect_write_error(RUN_TO("/dev/full", 0, NULL, "--help"), "--help");
    static const char *const cmds[] = {"layer", "layers", "sweep", "merge", "report", "tables", "plan"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        expect_write_error(RUN_TO("/dev/full", 0, NULL, cmds[i], "--help"), cmds[i]);
}

/* --out through a symbolic link to /dev/full: the write fails (74) and the
** link is still a link; a device is never renamed over. */
Test(cli_io, out_to_a_full_device_is_74_and_the_device_survives)
{
    struct stat st;
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode))
        rip_skip("no /dev/full");
    const char *link = tmp("full");
    cr_assert_eq(symlink("/dev/full", link), 0);
    run_result *r = RUN("tables", "table6", "--layers-dir", repo("sweeps/layers"), "--out", link);
    expect_write_error(r, "tables --out");
    r = RUN("report", "--db", small_db(), "--out", link);
    expect_write_error(r, "report --out");
    r = RUN("plan", repo("firmware/models/mcunet/mcunet-in3.csv"), "--draw", "svg", "--out", link);
    expect_write_error(r, "plan --draw svg --out");
    cr_expect_eq(lstat(link, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link was replaced");
    cr_expect_eq(stat("/dev/full", &st), 0);
    cr_expect(S_ISCHR(st.st_mode), "/dev/full is no longer a device");
}

/* A result file whose write fails part-way (past RLIMIT_FSIZE): exit 74,
** the previous file byte-identical, no temporary file left. */
static void expect_kept(const char *what, run_result *r, const char *path, const char *before)
{
    expect_write_error(r, what);
    char *after = slurp(path, NULL);
    cr_expect_str_eq(after, before, "%s: the old result was changed", what);
    free(after);
}

static int files_in(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    cr_assert_not_null(p);
    cr_assert_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

Test(cli_io, failed_result_files_are_not_truncated)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/res", tmpdir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    const char *old = "previous result\n";
    char path[450];
    snprintf(path, sizeof path, "%s/table6.md", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(old, f);
    fclose(f);
    /* the table is ~30 kB: 4 kB is too small for it */
    run_result *r = RUN_TO(tmp("stdout"), 4096, NULL, "tables", "table6", "--layers-dir", repo("sweeps/layers"),
                           "--out", path);
    expect_kept("tables table6", r, path, old);
    /* (report --out writes through the same code; under this limit SQLite
    ** cannot map the database's -shm file, so it is not tried here) */
    snprintf(path, sizeof path, "%s/plan.svg", dir);
    f = fopen(path, "w");
    fputs(old, f);
    fclose(f);
    r = RUN_TO(tmp("stdout"), 4096, NULL, "plan", repo("firmware/models/keras/graphs/ResNet50.csv"), "--draw",
               "svg", "--out", path);
    expect_kept("plan --draw svg", r, path, old);
    cr_expect_eq(files_in(dir), 2, "a temporary file was left in %s", dir);
}

/* A completed result keeps the mode the file had. */
Test(cli_io, replaced_results_keep_their_mode)
{
    const char *out = tmp("r.md");
    FILE *f = fopen(out, "w");
    fputs("old\n", f);
    fclose(f);
    cr_assert_eq(chmod(out, 0640), 0);
    run_result *r = RUN("report", "--db", small_db(), "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    struct stat st;
    cr_assert_eq(stat(out, &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0640);
    char *got = slurp(out, NULL);
    cr_expect(strncmp(got, "# ", 2) == 0, "the report: %.40s", got);
    free(got);
}

/* Item 3: --out naming an input is refused by device and inode. */
Test(cli_io, out_on_an_input_is_refused)
{
    size_t n_before, n_after;
    const char *db = small_db();
    char *before = slurp(db, &n_before);
    char alias[450];
    snprintf(alias, sizeof alias, "%s/./s.db", tmpdir);
    const char *hard = tmp("hard.db");
    cr_assert_eq(link(db, hard), 0);
    const char *const outs[] = {db, alias, hard};
    for (size_t i = 0; i < 3; i++) {
        run_result *r = RUN("report", "--db", db, "--out", outs[i]);
        cr_expect(r->status == 64 || r->status == 73, "report --out %s: status %d", outs[i], r->status);
        cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
        cr_expect(strstr(r->err, "--out") != NULL, "%s", r->err);
    }
    char *after = slurp(db, &n_after);
    cr_expect(n_before == n_after && memcmp(before, after, n_before) == 0, "the database was changed");
    free(before);
    free(after);

    const char *g = tmp("g.csv"), *g2 = tmp("g2.csv");
    copy(repo("firmware/models/mcunet/mcunet-in3.csv"), g);
    cr_assert_eq(link(g, g2), 0);
    before = slurp(g, &n_before);
    run_result *r = RUN("plan", g, "--draw", "svg", "--out", g2);
    cr_expect(r->status == 64 || r->status == 73, "plan: status %d", r->status);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    r = RUN("plan", g, "--draw", "svg", "--out", g);
    cr_expect(r->status == 64 || r->status == 73, "plan: status %d", r->status);
    const char *iv = tmp("iv.csv");
    copy(repo("tests/data/planner/tvm_usmp_five.csv"), iv);
    char *iv_before = slurp(iv, NULL);
    r = RUN("plan", "--intervals", iv, "--draw", "svg", "--out", iv);
    cr_expect(r->status == 64 || r->status == 73, "plan --intervals: status %d", r->status);
    after = slurp(g, &n_after);
    cr_expect(n_before == n_after && memcmp(before, after, n_before) == 0, "the graph was changed");
    char *iv_after = slurp(iv, NULL);
    cr_expect_str_eq(iv_after, iv_before, "the interval list was changed");
    free(before);
    free(after);
    free(iv_before);
    free(iv_after);

    /* tables: --out on one of the layer tables it reads */
    char layers[450];
    snprintf(layers, sizeof layers, "%s/layers", tmpdir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", repo("sweeps/layers"), layers);
    cr_assert_eq(system(cmd), 0);
    char victim[500];
    snprintf(victim, sizeof victim, "%s/resnet50.csv", layers);
    before = slurp(victim, NULL);
    r = RUN("tables", "table6", "--layers-dir", layers, "--out", victim);
    cr_expect(r->status == 64 || r->status == 73, "tables: status %d", r->status);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    after = slurp(victim, NULL);
    cr_expect_str_eq(after, before, "the layer table was changed");
    free(before);
    free(after);

    /* merge: OUT.db is one of the shards under another name */
    r = RUN("merge", alias, db);
    cr_expect_eq(r->status, 64, "merge: %d %s", r->status, r->err);
}

/* Item 12: every exit status a command's code can return is in its --help. */
Test(cli_io, help_lists_every_exit_status)
{
    static const struct { const char *cmd; int codes[12]; } want[] = {
        {"layer", {0, 64, 65, 71, 74, -1}},
        {"layers", {0, 64, 65, 66, 71, 74, -1}},
        {"sweep", {0, 64, 65, 66, 70, 71, 73, 74, 130, -1}},
        {"merge", {0, 64, 65, 66, 73, 74, -1}},
        {"report", {0, 64, 65, 66, 71, 73, 74, -1}},
        {"tables", {0, 64, 65, 66, 69, 70, 71, 73, 74, -1}},
        {"plan", {0, 1, 64, 65, 66, 70, 71, 73, 74, -1}},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        run_result *r = RUN(want[i].cmd, "--help");
        cr_assert_eq(r->status, 0, "%s --help", want[i].cmd);
        const char *sec = strstr(r->out, "\nexit status:\n");
        cr_assert_not_null(sec, "%s --help has no exit status section", want[i].cmd);
        for (int k = 0; want[i].codes[k] >= 0; k++) {
            char line[16];
            snprintf(line, sizeof line, "\n  %-4d ", want[i].codes[k]);
            cr_expect(strstr(sec, line) != NULL, "%s --help does not list exit status %d", want[i].cmd,
                      want[i].codes[k]);
        }
        cr_expect(strstr(r->out, "%%") == NULL, "%s --help prints a literal %%%%", want[i].cmd);
    }
}

/* Item 12: `tables fig1 --out -` is the SVG on standard output, no file "-". */
Test(cli_io, fig1_to_stdout)
{
    const char *out = tmp("fig1.out");
    run_result *r = RUN_TO(out, 0, tmpdir, "tables", "fig1", "--models-dir", repo("firmware/models"), "--out", "-");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_empty(r->err, "nothing to say on success to stdout: %s", r->err);
    char *svg = slurp(out, NULL);
    cr_expect(strncmp(svg, "<svg ", 5) == 0, "%.60s", svg);
    cr_expect(strstr(svg, "</svg>\n") != NULL);
    free(svg);
    struct stat st;
    cr_expect_neq(stat(tmp("-"), &st), 0, "a file named '-' was written");
}

/* Item 14: a progress line on a terminal (script(1) gives a pseudo-terminal),
** nothing on a pipe, and the same standard output either way.  The line
** waits half a second before it shows; ripsim-testhooks with
** RIPSIM_TEST_PROGRESS_AT_ONCE=1 draws every update at once, so the test
** does not depend on how long the layer takes on this machine (issue 22
** item 6). */
Test(cli_io, progress_only_on_a_terminal)
{
    if (system("command -v script >/dev/null 2>&1") != 0)
        rip_skip("script(1) not installed (bsdutils)");
    const char *bin = getenv("RIPSIM_TESTHOOKS_BIN");
    cr_assert_not_null(bin, "RIPSIM_TESTHOOKS_BIN must name ripsim-testhooks");
    const char *spec = "cin=8,cout=8,h=12,k=3";
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "RIPSIM_TEST_PROGRESS_AT_ONCE=1 script -qec \"'%s' layer --engine plain --full-bisection %s > '%s'\" "
             "/dev/null > '%s'", bin, spec, tmp("tty.out"), tmp("tty.err"));
    cr_assert_eq(system(cmd), 0);
    char *err = slurp(tmp("tty.err"), NULL), *tty_out = slurp(tmp("tty.out"), NULL);
    cr_expect(strstr(err, "\rlayer: ") != NULL, "no progress line on the terminal: '%s'", err);
    cr_expect(strstr(err, "/7 configs") != NULL, "the line counts the seven configurations: '%s'", err);
    cr_expect(strstr(err, "herringbone_taps") != NULL, "names the configuration simulated: '%s'", err);
    snprintf(cmd, sizeof cmd, "RIPSIM_TEST_PROGRESS_AT_ONCE=1 '%s' layer --engine plain --full-bisection %s "
             ">'%s' 2>'%s'", bin, spec, tmp("pipe.out"), tmp("pipe.err"));
    cr_assert_eq(system(cmd), 0);
    char *pipe_err = slurp(tmp("pipe.err"), NULL), *pipe_out = slurp(tmp("pipe.out"), NULL);
    cr_expect_str_empty(pipe_err, "progress on a pipe: '%s'", pipe_err);
    cr_expect_str_eq(pipe_out, tty_out, "stdout differs with a terminal on stderr");
    /* the released ripsim writes the same standard output */
    run_result *r = RUN("layer", "--engine", "plain", "--full-bisection", spec);
    cr_assert_eq(r->status, 0);
    cr_expect_str_eq(r->out, tty_out, "ripsim-testhooks and ripsim differ");
    free(err);
    free(tty_out);
    free(pipe_err);
    free(pipe_out);
}

/* An interrupted run leaves no temporary result file behind (SIGTERM while
** `tables table7` writes its table; the old file stays as it was). */
Test(cli_io, interrupted_run_leaves_no_temporary_file)
{
    char dir[400], out[450], models[600];
    snprintf(dir, sizeof dir, "%s/int", tmpdir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(out, sizeof out, "%s/t7.md", dir);
    snprintf(models, sizeof models, "%s", repo("firmware/models"));
    FILE *f = fopen(out, "w");
    fputs("old\n", f);
    fclose(f);
    const char *bin = getenv("RIPSIM_BIN");
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(bin, bin, "tables", "table7", "--models-dir", models, "--out", out, (char *)NULL);
        _exit(127);
    }
    /* the synchronisation point: the temporary file exists (table7 then
    ** plans for minutes, so the signal lands while it writes); waited for
    ** as long as the run lasts, not for a time that a slow machine could
    ** exceed (issue 22 item 6) */
    int st;
    pid_t done = 0;
    while (files_in(dir) < 2 && (done = waitpid(pid, &st, WNOHANG)) == 0)
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    cr_assert_eq(done, 0, "table7 ended before its temporary file appeared");
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
    cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "ended by the signal");
    cr_expect_eq(files_in(dir), 1, "a temporary file was left in %s", dir);
    char *got = slurp(out, NULL);
    cr_expect_str_eq(got, "old\n");
    free(got);
}

/* ---- issue 19, item 11: outputs replaced together ---------------------- */

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* tmpdir/name made as a folder; its path (a copy). */
static void folder(const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", tmpdir, name);
    cr_assert_eq(mkdir(out, 0755), 0, "%s", out);
}

/* The file dir/name holds exactly text. */
static void expect_text(const char *what, const char *dir, const char *name, const char *text)
{
    char path[900];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *got = slurp(path, NULL);
    cr_expect_str_eq(got, text, "%s: %s was replaced", what, path);
    free(got);
}

/* The file dir/name begins with prefix (a new output). */
static void expect_begins(const char *what, const char *dir, const char *name, const char *prefix)
{
    char path[900];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *got = slurp(path, NULL);
    cr_expect(strncmp(got, prefix, strlen(prefix)) == 0, "%s: %s is not new: %.40s", what, path, got);
    free(got);
}

/* A stand-in rsvg-convert: dir/rsvg-convert running body (sh). */
static void fake_rsvg(const char *dir, const char *body)
{
    char path[900];
    snprintf(path, sizeof path, "%s/rsvg-convert", dir);
    put(path, body);
    cr_assert_eq(chmod(path, 0755), 0);
}

/* "PATH=dir:$PATH" (or "PATH=dir" alone), static. */
static const char *path_env(const char *dir, bool alone)
{
    static char env[8192];
    const char *path = getenv("PATH");
    snprintf(env, sizeof env, "PATH=%s%s%s", dir, alone ? "" : ":", alone ? "" : path ? path : "");
    return env;
}

/*
** fig1's two files are one output: when rsvg-convert fails (exit 1) or the
** run is killed while it converts (the stand-in sends SIGTERM to ripsim),
** the SVG and the PNG are both as they were and no temporary is left (the
** SVG used to be replaced first, and fig1.png.XXXXXX left behind).
*/
Test(cli_io, fig1_svg_and_png_are_replaced_together)
{
    char bin[600], res[600], svg[700];
    folder("fake-bin", bin, sizeof bin);
    static const struct {
        const char *script, *what;
        int status;
    } cases[] = {
        {"#!/bin/sh\nexit 1\n", "rsvg-convert fails", 74},
        {"#!/bin/sh\nkill -TERM \"$PPID\"\n", "SIGTERM while rsvg-convert runs", 128 + SIGTERM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "fig1-%zu", i);
        folder(name, res, sizeof res);
        snprintf(svg, sizeof svg, "%s/fig1.svg", res);
        put(svg, "old svg\n");
        char png[700];
        snprintf(png, sizeof png, "%s/fig1.png", res);
        put(png, "old png\n");
        fake_rsvg(bin, cases[i].script);
        run_result *r = RUN_ENV(path_env(bin, false), "tables", "fig1", "--models-dir", repo("firmware/models"),
                                "--out", svg);
        cr_expect_eq(r->status, cases[i].status, "%s: status %d: %s", cases[i].what, r->status, r->err);
        if (cases[i].status == 74)
            cr_expect_eq(count_lines(r->err), 1, "%s: %s", cases[i].what, r->err);
        expect_text(cases[i].what, res, "fig1.svg", "old svg\n");
        expect_text(cases[i].what, res, "fig1.png", "old png\n");
        cr_expect_eq(files_in(res), 2, "%s: a temporary file was left in %s", cases[i].what, res);
    }
}

/* Without rsvg-convert: 69, the SVG written (as documented) and a PNG of
** an earlier SVG removed with it, so no PNG contradicts the SVG. */
Test(cli_io, fig1_without_rsvg_convert_drops_the_stale_png)
{
    char empty[600], res[600], svg[700], png[700];
    folder("no-bin", empty, sizeof empty);
    folder("fig1-norsvg", res, sizeof res);
    snprintf(svg, sizeof svg, "%s/fig1.svg", res);
    snprintf(png, sizeof png, "%s/fig1.png", res);
    put(svg, "old svg\n");
    put(png, "old png\n");
    run_result *r = RUN_ENV(path_env(empty, true), "tables", "fig1", "--models-dir", repo("firmware/models"),
                            "--out", svg);
    cr_expect_eq(r->status, 69, "status %d: %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "rsvg-convert"), "%s", r->err);
    expect_begins("no rsvg-convert", res, "fig1.svg", "<svg ");
    struct stat st;
    cr_expect_neq(stat(png, &st), 0, "the PNG of the earlier SVG is still there");
    cr_expect_eq(files_in(res), 1, "a temporary file was left in %s", res);
}

/* Item 11: every rewrite of fig1.png used to make it 0600.  A new SVG and
** PNG get 0666 less the umask; rewritten, each keeps the mode it had. */
Test(cli_io, fig1_png_keeps_its_mode)
{
    if (system("command -v rsvg-convert >/dev/null 2>&1") != 0)
        rip_skip("rsvg-convert not installed (librsvg2-bin): the PNG is not made");
    char res[600], svg[700], png[700];
    folder("fig1-mode", res, sizeof res);
    snprintf(svg, sizeof svg, "%s/fig1.svg", res);
    snprintf(png, sizeof png, "%s/fig1.png", res);
    mode_t mask = umask(022);
    umask(mask);
    for (int run = 0; run < 2; run++) {
        run_result *r = RUN("tables", "fig1", "--models-dir", repo("firmware/models"), "--out", svg);
        cr_assert_eq(r->status, 0, "%s", r->err);
        mode_t want = run == 0 ? 0666 & ~mask : 0640;
        struct stat a, b;
        cr_assert_eq(stat(svg, &a), 0);
        cr_assert_eq(stat(png, &b), 0);
        cr_expect_eq(a.st_mode & 07777, want, "run %d: fig1.svg mode %o, expected %o", run,
                     (unsigned)(a.st_mode & 07777), (unsigned)want);
        cr_expect_eq(b.st_mode & 07777, want, "run %d: fig1.png mode %o, expected %o", run,
                     (unsigned)(b.st_mode & 07777), (unsigned)want);
        expect_begins("fig1", res, "fig1.png", "\x89PNG");
        cr_assert_eq(chmod(svg, 0640), 0);
        cr_assert_eq(chmod(png, 0640), 0);
    }
    cr_expect_eq(files_in(res), 2, "a temporary file was left in %s", res);
}

static const char *const claim_figs[] = {"fig_verdicts.svg", "fig_margins.svg", "fig_rip_hb.svg"};

/* claims.md ("old\n") in text and the three figures ("old\n") in figs. */
static void old_claims(const char *text, const char *figs)
{
    char path[900];
    snprintf(path, sizeof path, "%s/claims.md", text);
    put(path, "old\n");
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", figs, claim_figs[k]);
        put(path, "old\n");
    }
}

/* Item 11: --fig-dir missing failed with 73 after claims.md was replaced;
** now before anything is written, claims.md untouched. */
Test(cli_io, claims_with_a_missing_fig_dir_is_73_and_replaces_nothing)
{
    char text[600], out[700], missing[700];
    folder("claims-nofig", text, sizeof text);
    snprintf(out, sizeof out, "%s/claims.md", text);
    snprintf(missing, sizeof missing, "%s/no-such-folder", text);
    put(out, "old\n");
    run_result *r = RUN("claims", "--db", small_db(), "--out", out, "--fig-dir", missing);
    cr_expect_eq(r->status, 73, "status %d: %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "no-such-folder"), "%s", r->err);
    expect_text("--fig-dir missing", text, "claims.md", "old\n");
    cr_expect_eq(files_in(text), 1, "a temporary file was left in %s", text);
}

/*
** Item 11: claims.md was renamed before its figures, so a SIGTERM left new
** text beside old figures.  ripsim-testhooks sends SIGTERM once every
** output is written and none renamed (all old), and after the first
** rename (all new: the renames finish before the signal is taken); the
** figures in another folder than claims.md, no temporary left in either.
*/
Test(cli_io, claims_text_and_figures_are_replaced_together)
{
    static const struct {
        const char *hook, *what;
        bool new_wins;
    } points[] = {
        {"RIPSIM_TEST_OUT_SIGTERM=staged", "SIGTERM before the renames", false},
        {"RIPSIM_TEST_OUT_SIGTERM=renamed:1", "SIGTERM after the first rename", true},
    };
    for (size_t i = 0; i < 2; i++) {
        char text[600], figs[600], out[700], name[32];
        snprintf(name, sizeof name, "claims-text-%zu", i);
        folder(name, text, sizeof text);
        snprintf(name, sizeof name, "claims-figs-%zu", i);
        folder(name, figs, sizeof figs);
        old_claims(text, figs);
        snprintf(out, sizeof out, "%s/claims.md", text);
        run_result *r = RUN_HOOK(points[i].hook, "claims", "--db", small_db(), "--out", out, "--fig-dir", figs);
        cr_expect_eq(r->status, 128 + SIGTERM, "%s: status %d: %s", points[i].what, r->status, r->err);
        if (points[i].new_wins)
            expect_begins(points[i].what, text, "claims.md", "# Claims");
        else
            expect_text(points[i].what, text, "claims.md", "old\n");
        for (int k = 0; k < 3; k++)
            if (points[i].new_wins)
                expect_begins(points[i].what, figs, claim_figs[k], "<svg");
            else
                expect_text(points[i].what, figs, claim_figs[k], "old\n");
        cr_expect_eq(files_in(text), 1, "%s: a temporary file was left in %s", points[i].what, text);
        cr_expect_eq(files_in(figs), 3, "%s: a temporary file was left in %s", points[i].what, figs);
    }
}

/* %XX decoded in place. */
static void url_decode(char *s)
{
    char *w = s;
    for (const char *r = s; *r; w++) {
        unsigned v;
        if (r[0] == '%' && sscanf(r + 1, "%2x", &v) == 1 && r[1] && r[2]) {
            *w = (char)v;
            r += 3;
        } else {
            *w = *r++;
        }
    }
    *w = '\0';
}

/* Every figure link of claims.md in text/ names, relative to text/, the
** file figs/NAME itself (same device and inode), NAME the link's label. */
static void expect_links_resolve(const char *what, const char *text, const char *figs)
{
    char md_path[900];
    snprintf(md_path, sizeof md_path, "%s/claims.md", text);
    char *md = slurp(md_path, NULL);
    const char *line = strstr(md, "\nFigures (regenerated with this file):");
    cr_assert_not_null(line, "%s: claims.md links no figure", what);
    const char *end = strchr(line + 1, '\n'), *p = line;
    int n = 0;
    while ((p = strstr(p, "](")) != NULL && p < end) {
        const char *label = p;
        while (label > line && label[-1] != '[')
            label--;
        const char *close = strchr(p + 2, ')');
        cr_assert(close && close < end, "%s: an unclosed link", what);
        char link[600], name[100], path[1400], want[1000];
        snprintf(link, sizeof link, "%.*s", (int)(close - p - 2), p + 2);
        snprintf(name, sizeof name, "%.*s", (int)(p - label), label);
        cr_expect(strchr(link, ' ') == NULL, "%s: a space in the link (%s) ends it in Markdown", what, link);
        url_decode(link);
        snprintf(path, sizeof path, "%s/%s", text, link);
        snprintf(want, sizeof want, "%s/%s", figs, name);
        struct stat a, b;
        cr_expect(stat(path, &a) == 0 && stat(want, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino,
                  "%s: the link %s (%s) does not resolve to %s", what, link, path, want);
        n++;
        p = close;
    }
    cr_expect_eq(n, 3, "%s: %d figure links", what, n);
    free(md);
}

/* Item 11: with --fig-dir not the folder of --out the links were bare file
** names, broken.  Now relative paths that resolve: a sibling folder, a
** subfolder with a space in its name, a symbolic link to a folder, and the
** default (the folder of --out: bare names, as committed). */
Test(cli_io, claims_figure_links_resolve)
{
    char root[600], text[700], figs[900], out[800];
    folder("links", root, sizeof root);
    snprintf(text, sizeof text, "%s/text", root);
    cr_assert_eq(mkdir(text, 0755), 0);
    snprintf(out, sizeof out, "%s/claims.md", text);
    char sib[800], sub[800], lnk[800];
    snprintf(sib, sizeof sib, "%s/figs", root);
    snprintf(sub, sizeof sub, "%s/f i g", text);
    snprintf(lnk, sizeof lnk, "%s/to-figs", root);
    cr_assert_eq(mkdir(sib, 0755), 0);
    cr_assert_eq(mkdir(sub, 0755), 0);
    cr_assert_eq(symlink("figs", lnk), 0);
    const char *const dirs[] = {sib, sub, lnk, NULL};
    for (int i = 0; i < 4; i++) {
        run_result *r = dirs[i] ? RUN("claims", "--db", small_db(), "--out", out, "--fig-dir", dirs[i])
                                : RUN("claims", "--db", small_db(), "--out", out);
        cr_assert_eq(r->status, 0, "%s", r->err);
        snprintf(figs, sizeof figs, "%s", dirs[i] ? dirs[i] : text);
        expect_links_resolve(figs, text, figs);
    }
    char *md = slurp(out, NULL);
    cr_expect_not_null(strstr(md, "[fig_verdicts.svg](fig_verdicts.svg)"), "the default links are bare names");
    free(md);
}
