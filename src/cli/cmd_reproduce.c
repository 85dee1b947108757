/*
** cmd_reproduce.c — `ripsim reproduce [--check] [--only LIST]`: every
** artefact of the paper regenerated in its committed form (reproduce.h,
** reproduce_make.c), compared byte for byte with the file in results/, and
** without --check written there when it differs; a closing table of
** artefact, file, seconds and verdict on standard output.  The command owns
** the process for its sweeps: SIGINT/SIGTERM stop the sweep in hand and
** the run after the artefact in hand; its temporary folder is removed on
** every path.
*/
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <ftw.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "out.h"
#include "out_set.h"
#include "reproduce.h"
#include "root.h"

#define MAX_ARTEFACTS 32

static const char about_head[] =
    "Regenerate every artefact of the paper that results/ holds, each in its\n"
    "committed form (results/README.md names the command that writes it), by\n"
    "the same library code as that command; compare each file byte for byte\n"
    "with the one in results/ and, without --check, replace it when it differs.\n"
    "A closing table on standard output gives per artefact its files, seconds\n"
    "and verdict: identical, differs (written without --check), new (no such\n"
    "file in results/), skipped: WHY, or failed: WHY.\n"
    "\n"
    "Artefacts, in the order they are made (--only takes these names, and\n"
    "table5, sec5.2 and appE.3 name sweep-report):\n";

static const char notes[] =
    "deployment is made as ./build.sh firmware makes it, in the temporary\n"
    "folder: the MCUNet graphs generated under both plans, the QEMU images of\n"
    "both cores built, run and counted, the Pico links (2 to 5 min); it is\n"
    "skipped, saying why, without arm-none-eabi-gcc, qemu-system-arm, cmake\n"
    "or ninja on PATH, or without a pico-sdk (PICO_SDK_PATH).  Without\n"
    "rsvg-convert, fig1.png is skipped and fig1.svg still compared.\n"
    "The sweep artefacts never read results/sweep.db (it may be another run,\n"
    "partial, or of another version): reproduce runs the sweeps they need\n"
    "into a temporary folder, removed at the end.  sweep-report runs the\n"
    "default sweep with --execute (the int8 kernels: 4 to 6 minutes on 2\n"
    "cores), and claims then reads that database (the same layers, truths and\n"
    "verdicts); claims alone runs the default sweep without it (about a\n"
    "second); sweep-report-shard runs shard 0 of 10 with --execute.  An\n"
    "artefact's seconds include the sweep it runs.  An artefact whose input\n"
    "is missing is reported as skipped, with why, never left out; a skip does\n"
    "not change the exit status.\n"
    "With --results DIR, DIR plays results/: the files are compared with (and\n"
    "written to) DIR, and the committed inputs (deployment.json for table3,\n"
    "real-models.json, tflm-peer.tsv, tflm.tsv, tflm-link.tsv) read from it.\n"
    "Without --check, an artefact's differing files are replaced together once\n"
    "all are made; identical files are left untouched.  Ctrl-C stops after\n"
    "the artefact in hand (a sweep within its batch).  When stderr is a\n"
    "terminal, a progress line per artefact is shown.\n";

static const rip_exit_doc exits[] = {
    {0, "every artefact made is identical (with --check), or written"},
    {1, "--check: a file differs from results/ or is missing there"},
    {64, "bad command line (also: --only names an unknown artefact; the valid ones are listed)"},
    {65, "an input (a committed file, a layer table, a graph) is malformed"},
    {66, "an input is missing"},
    {70, "internal error (a strategy, the simulator or a sweep failed)"},
    {71, "out of memory, or milp's CBC solver process failed"},
    {73, "a file or the temporary folder cannot be created"},
    {74, "a file cannot be read or written"},
    {130, "interrupted"},
};

/* One artefact's outcome. */
typedef struct repro_row {
    const repro_artefact *a;
    repro_file files[REPRO_MAX_FILES];
    const char *verdict[REPRO_MAX_FILES]; /* "identical", "differs", "new", or NULL (skipped: files[k].skip) */
    rip_status st;                        /* the maker's */
    int rc;                               /* the row's exit status: 0, or a failure's */
    char err[RIP_ERR_LEN];
    double seconds;
} repro_row;

/* Set by SIGINT/SIGTERM, read by the sweeps' threads and between artefacts. */
static atomic_int stop_requested;

/* The handler of SIGINT and SIGTERM while the command runs. */
static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_requested, 1);
}

/* Monotonic seconds. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The command line, the chosen artefacts and the tree's default paths. */
typedef struct repro_args {
    bool check;
    const char *only, *results;
    bool chosen[MAX_ARTEFACTS];
    char resbuf[4096], layersbuf[4096], modelsbuf[4096], fwbuf[4096];
} repro_args;

/* Names --only takes for an artefact of another name. */
static const struct { const char *alias, *name; } aliases[] = {
    {"table5", "sweep-report"}, {"sec5.2", "sweep-report"}, {"appE.3", "sweep-report"},
};

/* The index of the artefact word names (an alias too), or -1. */
static int artefact_index(const char *word, size_t len, const repro_artefact *arts, size_t n)
{
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (strlen(aliases[a].alias) == len && strncmp(word, aliases[a].alias, len) == 0)
            word = aliases[a].name, len = strlen(word);
    for (size_t k = 0; k < n; k++)
        if (strlen(arts[k].name) == len && strncmp(word, arts[k].name, len) == 0)
            return (int)k;
    return -1;
}

/* --only LIST into a->chosen (every artefact without it).  0, or 64 after
** one line naming the word (and the closest name) and listing the valid names. */
static int choose(repro_args *a, const repro_artefact *arts, size_t n)
{
    for (size_t k = 0; k < n; k++)
        a->chosen[k] = a->only == NULL;
    for (const char *w = a->only; w && *w;) {
        size_t len = strcspn(w, ",");
        int k = artefact_index(w, len, arts, n);
        if (k < 0) {
            const char *names[64];
            size_t nn = 0;
            for (size_t j = 0; j < n && nn < 64; j++)
                names[nn++] = arts[j].name;
            const char *near = rip_args_closest(w, len, names, nn);
            fprintf(stderr, "ripsim reproduce: --only: unknown artefact '%.*s'", (int)len, w);
            if (near)
                fprintf(stderr, " (did you mean '%s'?)", near);
            fprintf(stderr, "; valid:");
            for (size_t j = 0; j < n; j++)
                fprintf(stderr, "%s %s", j ? "," : "", arts[j].name);
            fprintf(stderr, " (table5, sec5.2 and appE.3 name sweep-report)\n");
            return RIP_EX_USAGE;
        }
        a->chosen[k] = true;
        w += len + (w[len] == ',');
    }
    return 0;
}

/* The --help description: about_head, then one line per artefact (its name,
** what of the paper, its files), built from the artefact table into buf. */
static const char *about(const repro_artefact *arts, size_t n, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "%s", about_head);
    for (size_t k = 0; k < n && len < size; k++) {
        len += (size_t)snprintf(buf + len, size - len, "  %-19s %s:\n%22s", arts[k].name, arts[k].paper, "");
        for (int f = 0; arts[k].files[f] && len < size; f++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", f ? ", " : "", arts[k].files[f]);
        if (len < size)
            len += (size_t)snprintf(buf + len, size - len, "\n");
    }
    return buf;
}

/* Parse argv into *a; rip_args_parse's result, or 2 / 64 after the message. */
static int parse_args(int argc, char **argv, repro_args *a, const repro_artefact *arts, size_t n)
{
    const rip_opt opts[] = {
        {.name = "--check", .kind = RIP_OPT_FLAG, .dest = &a->check, .flag_value = true,
         .help = "write nothing: compare only, exit 1 on any difference"},
        {.name = "--only", .kind = RIP_OPT_STR, .dest = &a->only, .metavar = "LIST",
         .help = "the artefacts named, comma-separated (default: all)"},
        {.name = "--results", .kind = RIP_OPT_STR, .dest = &a->results, .metavar = "DIR",
         .help = "the folder compared with and written to (default results/\nin the ripsim tree)"},
    };
    char about_buf[8192];
    const rip_cmd cmd = {
        .name = "reproduce", .synopsis = "[--check] [--only LIST] [--results DIR]",
        .about = about(arts, n, about_buf, sizeof about_buf), .opts = opts,
        .n_opts = sizeof opts / sizeof opts[0], .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0], .example = "ripsim reproduce --check --only table2,fig3",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if (n > MAX_ARTEFACTS)
        return RIP_EX_SOFTWARE;
    if (a->only && (!a->only[0] || a->only[strlen(a->only) - 1] == ',' || strstr(a->only, ",,")))
        return rip_args_usage(&cmd, "--only: an empty name in '%s'", a->only);
    if ((rc = choose(a, arts, n)) != 0)
        return rc;
    return RIP_ARGS_CONTINUE;
}

/* The tree's folders (results/ unless --results) into c.  0, or 64 after the message. */
static int tree_paths(repro_args *a, repro_ctx *c)
{
    if ((!a->results && !(a->results = rip_root_path("reproduce", "--results", "results", a->resbuf,
                                                     sizeof a->resbuf))) ||
        !(c->layers = rip_root_path("reproduce", "the layer tables", "sweeps/layers", a->layersbuf,
                                    sizeof a->layersbuf)) ||
        !(c->models = rip_root_path("reproduce", "the model graphs", "firmware/models", a->modelsbuf,
                                    sizeof a->modelsbuf)) ||
        !(c->firmware = rip_root_path("reproduce", "the firmware tools", "firmware", a->fwbuf, sizeof a->fwbuf)))
        return RIP_EX_USAGE;
    c->results = a->results;
    return 0;
}

/* Is the file at path exactly len bytes of data?  "identical", "differs",
** "new" (no such file), or NULL when it cannot be read (why in err). */
static const char *compare(const char *path, const char *data, size_t len, char err[RIP_ERR_LEN])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (access(path, F_OK) != 0)
            return "new";
        snprintf(err, RIP_ERR_LEN, "cannot read %.400s", path);
        return NULL;
    }
    char buf[65536];
    size_t at = 0, k;
    bool same = true;
    while (same && (k = fread(buf, 1, sizeof buf, f)) > 0) {
        same = at + k <= len && memcmp(buf, data + at, k) == 0;
        at += k;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        snprintf(err, RIP_ERR_LEN, "cannot read %.400s", path);
        return NULL;
    }
    return same && at == len ? "identical" : "differs";
}

/* Replace the differing and new files of r in c->results, together.  0,
** or the exit status after rip_out_set's message. */
static int write_row(const repro_ctx *c, repro_row *r)
{
    rip_out_set set;
    rip_out_set_init(&set, "reproduce");
    int rc = 0, staged = 0;
    for (int k = 0; k < REPRO_MAX_FILES && r->files[k].name && rc == 0; k++) {
        if (!r->verdict[k] || strcmp(r->verdict[k], "identical") == 0)
            continue;
        char path[4096];
        rip_out_item *it;
        snprintf(path, sizeof path, "%s/%s", c->results, r->files[k].name);
        if ((rc = rip_out_set_file(&set, path, &it)) == 0) {
            staged++;
            if (fwrite(r->files[k].data, 1, r->files[k].len, it->f) != r->files[k].len) {
                rip_out_set_abort(&set);
                fprintf(stderr, "ripsim reproduce: cannot write %s\n", path);
                return RIP_EX_IOERR;
            }
        }
    }
    if (rc != 0) /* the set was abandoned by rip_out_set_file */
        return rc;
    return staged ? rip_out_set_commit(&set) : 0;
}

/* Make artefact r->a, compare its files and, unless check, write those that
** differ.  r->rc: 0, or the failure's exit status. */
static void run_one(repro_ctx *c, repro_row *r, bool check)
{
    for (int k = 0; k < REPRO_MAX_FILES; k++)
        r->files[k].name = r->a->files[k];
    double t0 = now();
    r->st = r->a->make(c, r->files, r->err);
    r->seconds = now() - t0;
    if (r->st == RIP_S_UNAVAILABLE)
        return;
    if (r->st != RIP_OK) {
        r->rc = rip_exit_status(r->st);
        return;
    }
    for (int k = 0; k < REPRO_MAX_FILES && r->files[k].name; k++) {
        if (r->files[k].skip[0])
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", c->results, r->files[k].name);
        if (!(r->verdict[k] = compare(path, r->files[k].data, r->files[k].len, r->err))) {
            r->st = RIP_S_IO;
            r->rc = RIP_EX_IOERR;
            return;
        }
    }
    if (!check)
        r->rc = write_row(c, r);
}

/* The verdict of file k of r as the closing table prints it. */
static void print_verdict(const repro_row *r, int k, bool check)
{
    if (r->st == RIP_S_UNAVAILABLE)
        printf("skipped: %s\n", r->err);
    else if (r->st != RIP_OK)
        printf("failed: %s\n", r->err);
    else if (r->files[k].skip[0])
        printf("skipped: %s\n", r->files[k].skip);
    else if (!check && strcmp(r->verdict[k], "identical") != 0)
        printf("%s%s\n", r->verdict[k], r->rc ? " (not written)" : " (written)");
    else
        printf("%s\n", r->verdict[k]);
}

/* The closing table of the n rows to stdout, the files named under shown
** (results, or the --results DIR given); check: nothing was written. */
static void print_table(const repro_row *rows, size_t n, const char *shown, bool check)
{
    int width = 4;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < REPRO_MAX_FILES && rows[i].files[k].name; k++) {
            int w = (int)(strlen(shown) + 1 + strlen(rows[i].files[k].name));
            width = w > width ? w : width;
        }
    printf("%-19s %-*s %8s  %s\n", "artefact", width, "file", "seconds", "result");
    for (size_t i = 0; i < n; i++) {
        const repro_row *r = &rows[i];
        for (int k = 0; k < REPRO_MAX_FILES && r->files[k].name; k++) {
            char file[4096], secs[32] = "";
            snprintf(file, sizeof file, "%s/%s", shown, r->files[k].name);
            if (k == 0)
                snprintf(secs, sizeof secs, "%.1f", r->seconds);
            printf("%-19s %-*s %8s  ", k == 0 ? r->a->name : "", width, file, secs);
            print_verdict(r, k, check);
        }
    }
    /* the count of each outcome, so a skip is never mistaken for a pass */
    int same = 0, other = 0, skipped = 0, failed = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < REPRO_MAX_FILES && rows[i].files[k].name; k++) {
            if (rows[i].st == RIP_S_UNAVAILABLE || (rows[i].st == RIP_OK && rows[i].files[k].skip[0]))
                skipped++;
            else if (rows[i].st != RIP_OK)
                failed++;
            else if (strcmp(rows[i].verdict[k], "identical") == 0)
                same++;
            else
                other++;
        }
    printf("\n%d identical, %d differ or new, %d skipped (not compared), %d failed\n", same, other, skipped,
           failed);
}

/* nftw's visit of remove_tmpdir: remove the file or the (emptied) folder. */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* Remove the temporary folder dir and everything in it (the sweeps, the
** firmware builds), not following symbolic links. */
static void remove_tmpdir(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The exit status of the rows: the first failure's, else 1 when check and
** a file differs or is new, else 0. */
static int exit_status(const repro_row *rows, size_t n, bool check)
{
    int differs = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].rc != 0)
            return rows[i].rc;
        for (int k = 0; k < REPRO_MAX_FILES && rows[i].st == RIP_OK && rows[i].files[k].name; k++)
            differs |= rows[i].verdict[k] && strcmp(rows[i].verdict[k], "identical") != 0;
    }
    return check && differs ? RIP_EX_FAIL : 0;
}

/* Make the chosen artefacts into rows (*n_rows of them); stops early on a
** signal (the status 130). */
static int run_all(repro_ctx *c, const repro_args *a, const repro_artefact *arts, size_t n, repro_row *rows,
                   size_t *n_rows)
{
    size_t total = 0, done = 0;
    for (size_t k = 0; k < n; k++)
        total += a->chosen[k];
    for (size_t k = 0; k < n; k++) {
        if (!a->chosen[k])
            continue;
        if (atomic_load(&stop_requested))
            return RIP_EX_INTERRUPTED;
        char label[96];
        snprintf(label, sizeof label, "reproduce [%zu/%zu] %s", ++done, total, arts[k].name);
        c->label = label;
        rows[*n_rows].a = &arts[k];
        run_one(c, &rows[(*n_rows)++], a->check);
    }
    return 0;
}

int rip_cmd_reproduce(int argc, char **argv)
{
    size_t n;
    const repro_artefact *arts = repro_artefacts(&n);
    repro_args a = {0};
    int rc = parse_args(argc, argv, &a, arts, n);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    repro_ctx c = {.stop = &stop_requested};
    if ((rc = tree_paths(&a, &c)) != 0)
        return rc;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    c.jobs = cpus > 0 ? (int)(cpus < 64 ? cpus : 64) : 1;
    c.claims_on_executed = a.chosen[artefact_index("sweep-report", strlen("sweep-report"), arts, n)];
    const char *tmp = getenv("TMPDIR");
    char tmpdir[4096];
    snprintf(tmpdir, sizeof tmpdir, "%s/ripsim-reproduce.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "ripsim reproduce: cannot create a temporary folder in %s\n", tmp && *tmp ? tmp : "/tmp");
        return RIP_EX_CANTCREAT;
    }
    c.tmpdir = tmpdir;
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    repro_row *rows = calloc(n, sizeof *rows);
    size_t n_rows = 0;
    if (!rows) {
        fprintf(stderr, "ripsim reproduce: out of memory\n");
        rc = RIP_EX_OSERR;
    } else {
        int stopped = run_all(&c, &a, arts, n, rows, &n_rows);
        print_table(rows, n_rows, a.results == a.resbuf ? "results" : a.results, a.check);
        rc = stopped ? stopped : exit_status(rows, n_rows, a.check);
    }
    /* the one cleanup: the handlers, the buffers, the temporary folder */
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    for (size_t i = 0; rows && i < n_rows; i++)
        for (int k = 0; k < REPRO_MAX_FILES; k++)
            free(rows[i].files[k].data);
    free(rows);
    remove_tmpdir(tmpdir);
    return rc;
}
