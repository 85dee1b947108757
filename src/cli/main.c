/*
** main.c — the ripsim command: dispatch to subcommands.
*/
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "args.h"
#include "cli.h"
#include "db.h"
#include "out.h"

#ifndef RIPSIM_VERSION
#define RIPSIM_VERSION "unknown"
#endif

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"layer", rip_cmd_layer, "one layer: closed forms beside simulated truths (paper Tab. 2)"},
    {"optimal", rip_cmd_optimal, "one small layer: the smallest herringbone gap over every visiting order"},
    {"layers", rip_cmd_layers, "a CSV table of layers: every closed form, every truth, the workspace ratios"},
    {"execute", rip_cmd_execute, "one layer run by the int8 kernels in place and in dual buffers, compared"},
    {"sweep", rip_cmd_sweep, "the seeded 10,000-layer sweep: verdicts of every closed form into SQLite"},
    {"merge", rip_cmd_merge, "combine sweep shards into one database"},
    {"migrate", rip_cmd_migrate, NULL}, /* its line names the versions: usage() */
    {"schema", rip_cmd_schema, "the column dictionary: what every column of a sweep database means"},
    {"report", rip_cmd_report, "paper Sec. 5.2 and Tab. 5 from a sweep database, beside the paper"},
    {"tables", rip_cmd_tables, "regenerate the paper's tables and figures from data (table2, table3, fig3, optimum, ...)"},
    {"reproduce", rip_cmd_reproduce, "every paper artefact regenerated into results/ and compared (--check: compare only)"},
    {"claims", rip_cmd_claims, "every checkable claim of the paper, verdict and evidence (results/claims.md, figures)"},
    {"plan", rip_cmd_plan, "place a model graph's (or a .tflite's) tensors in one arena (paper Sec. 4.3 strategies)"},
    {"codegen", rip_cmd_codegen, "C code for one graph or .tflite under the base or rip plan (arena, kernels, weights)"},
    {"model", rip_cmd_model, "read a TFLite model (.tflite), check ripsim supports it, print its tensors and operators"},
    {"check", rip_cmd_check, "verify the TFLite Micro offline memory plan a .tflite carries for a kernel library"},
    {"run", rip_cmd_run, "run a TFLite model on the host with the int8 kernels in one planned arena (base or rip)"},
};

static void usage(FILE *to)
{
    fprintf(to,
            "usage: ripsim [--help] [--version] COMMAND [ARGS]\n"
            "\n"
            "ripsim checks the closed forms of in-place convolution memory bounds (the RiP\n"
            "paper) against an allocation-tracking simulator.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].summary)
            fprintf(to, "  %-10s %s\n", commands[i].name, commands[i].summary);
        else
            fprintf(to, "  %-10s convert a sweep database of an older schema (version 1 to %d) in place\n",
                    commands[i].name, RIP_DB_SCHEMA_VERSION - 1);
    fprintf(to, "\n'ripsim COMMAND --help' (or 'ripsim help COMMAND') describes one command and lists\n"
                "its exit statuses.\n"
                "Exit status: 0 success, 64 bad command line; each command lists its others.\n");
}

/*
** The simulator allocates and frees tables of kilobytes to megabytes for
** every layer.  glibc's defaults hand such blocks back to the kernel at
** every free (mmap above 128 KiB, heap trimming), and faulting the pages
** in again was a sixth of a sweep's CPU time.  Keep them: blocks up to
** 64 MiB come from the heap, which is trimmed only above 64 MiB free.
** Peak memory is unchanged (what is kept was in use a moment before).
*/
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int main(int argc, char **argv)
{
    keep_freed_memory();
    /* GSL's default error handler aborts the process (a figure's histogram
    ** that cannot be allocated, say).  The process is the command line's:
    ** with the handler off a failing GSL call returns its error instead,
    ** and the library checks the calls that can fail (src/report/
    ** confidence.c calls none that reach the handler). */
    gsl_set_error_handler_off();
    if (argc < 2) {
        usage(stderr);
        return RIP_EX_USAGE;
    }
    const char *cmd = argv[1];
    /* help CMD: CMD's own --help */
    char help_flag[] = "--help";
    char *help_argv[4] = {argv[0], NULL, help_flag, NULL};
    if (strcmp(cmd, "help") == 0 && argc == 3) {
        help_argv[1] = argv[2];
        argv = help_argv;
        argc = 3;
        cmd = argv[1];
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return rip_out_check_stdout("--help");
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("ripsim %s\n", RIPSIM_VERSION);
        return rip_out_check_stdout("--version");
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0) {
            int rc = commands[i].run(argc - 1, argv + 1);
            /* the last line of defence: whatever a command printed must
            ** have reached standard output, or the run failed */
            if (rc == RIP_EX_OK)
                return rip_out_check_stdout(commands[i].name);
            fflush(stdout);
            return rc;
        }
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    const char *near = rip_args_closest(cmd, strlen(cmd), names, sizeof names / sizeof names[0]);
    if (near)
        fprintf(stderr, "ripsim: unknown command '%s' (did you mean '%s'?)\nTry 'ripsim --help'.\n", cmd, near);
    else
        fprintf(stderr, "ripsim: unknown command '%s'\nTry 'ripsim --help'.\n", cmd);
    return RIP_EX_USAGE;
}
