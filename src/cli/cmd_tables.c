/*
** cmd_tables.c — `ripsim tables NAME`: the paper's tables and figures,
** regenerated from data by the tool itself.
*/
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "paper_tables.h"
#include "table6.h"

static const char usage_text[] =
    "usage: ripsim tables NAME [--out FILE] [--layers-dir DIR] [--models-dir DIR]\n"
    "                          [--time-limit S] [--no-times]\n"
    "\n"
    "Regenerate one of the paper's tables or figures from data:\n"
    "  table3   Tab. 3: eleven MCUNet models, TinyEngine baseline against RiP,\n"
    "           fits Pico 1 (results/table3.md)\n"
    "  table6   Tab. 6: RiP against generalized herringbone on real layers, with\n"
    "           column-major RiP (results/table6.md)\n"
    "  table7   Tab. 7: 33 keras.applications graphs, dual-buffer MILP against RiP\n"
    "           MILP, program sizes and solve times (results/table7.md)\n"
    "  fig1     Fig. 1: MCUNet-in3's arena across its operators under naive dual\n"
    "           buffering, TinyEngine and RiP (results/fig1.svg and fig1.png)\n"
    "\n"
    "options:\n"
    "  --out FILE        where to write ('-' for stdout; fig1: the SVG path)\n"
    "  --layers-dir DIR  the layer tables of table6 (default sweeps/layers)\n"
    "  --models-dir DIR  the model graphs (default firmware/models)\n"
    "  --time-limit S    MILP time limit per program, seconds (table7; default 150)\n"
    "  --no-times        table7 without the wall-clock column (reproducible)\n"
    "  -h, --help        this help\n"
    "Exit status: 0 written, 64 usage, 65 malformed input table, 66 missing table,\n"
    "73 cannot create the output.\n";

int rip_cmd_tables(int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *dir = "sweeps/layers", *models = "firmware/models";
    double time_limit = 150;
    bool times = true;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_text, stdout);
            return RIP_EX_OK;
        } else if (rip_arg_value(argc, argv, &i, "--out", &v)) {
            if (!v || !*v) {
                fprintf(stderr, "ripsim tables: --out needs a file name\n");
                return RIP_EX_USAGE;
            }
            out = v;
        } else if (rip_arg_value(argc, argv, &i, "--layers-dir", &v)) {
            if (!v || !*v) {
                fprintf(stderr, "ripsim tables: --layers-dir needs a directory\n");
                return RIP_EX_USAGE;
            }
            dir = v;
        } else if (rip_arg_value(argc, argv, &i, "--models-dir", &v)) {
            if (!v || !*v) {
                fprintf(stderr, "ripsim tables: --models-dir needs a directory\n");
                return RIP_EX_USAGE;
            }
            models = v;
        } else if (rip_arg_value(argc, argv, &i, "--time-limit", &v)) {
            int64_t x;
            if (!rip_arg_int(v, 1, 86400, &x)) {
                fprintf(stderr, "ripsim tables: --time-limit takes whole seconds from 1 to 86400\n");
                return RIP_EX_USAGE;
            }
            time_limit = (double)x;
        } else if (strcmp(argv[i], "--no-times") == 0) {
            times = false;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "ripsim tables: unknown option '%s'\n", argv[i]);
            return RIP_EX_USAGE;
        } else if (!name) {
            name = argv[i];
        } else {
            fprintf(stderr, "ripsim tables: one table at a time, unexpected '%s'\n", argv[i]);
            return RIP_EX_USAGE;
        }
    }
    if (!name) {
        fprintf(stderr, "ripsim tables: which table? (see --help)\n");
        return RIP_EX_USAGE;
    }
    static const char *const known[] = {"table3", "table6", "table7", "fig1"};
    int which = -1;
    for (int k = 0; k < 4; k++)
        if (strcmp(name, known[k]) == 0)
            which = k;
    if (which < 0) {
        fprintf(stderr, "ripsim tables: unknown table '%s' (known: table3 table6 table7 fig1)\n", name);
        return RIP_EX_USAGE;
    }
    char err[RIP_ERR_LEN];
    if (which == 3) {
        const char *svg = out ? out : "results/fig1.svg";
        char png[1100];
        snprintf(png, sizeof png, "%.*s.png", (int)(strlen(svg) > 4 && !strcmp(svg + strlen(svg) - 4, ".svg")
                                                     ? strlen(svg) - 4 : strlen(svg)), svg);
        int st = rip_fig1_write(svg, png, models, err);
        if (st != 0)
            fprintf(stderr, "ripsim tables: %s\n", err);
        else
            fprintf(stderr, "ripsim tables: wrote %s and %s\n", svg, png);
        return st;
    }
    if (!out)
        out = which == 0 ? "results/table3.md" : which == 1 ? "results/table6.md" : "results/table7.md";

    /* write to a temporary file and rename, so a failure leaves no half table */
    char tmp[1100];
    FILE *f = stdout;
    if (strcmp(out, "-") != 0) {
        snprintf(tmp, sizeof tmp, "%s.tmp", out);
        f = fopen(tmp, "w");
        if (!f) {
            fprintf(stderr, "ripsim tables: cannot create %s\n", out);
            return RIP_EX_CANTCREAT;
        }
    }
    int status = which == 0 ? rip_table3_write(f, models, err)
               : which == 1 ? rip_table6_write(f, dir, err)
                            : rip_table7_write(f, models, time_limit, times, err);
    if (f != stdout) {
        if (fclose(f) != 0 && status == 0) {
            snprintf(err, sizeof err, "write error on %.400s", tmp);
            status = RIP_EX_IOERR;
        }
        if (status == 0 && rename(tmp, out) != 0) {
            snprintf(err, sizeof err, "cannot rename %.200s to %.200s", tmp, out);
            status = RIP_EX_CANTCREAT;
        }
        if (status != 0)
            remove(tmp);
    }
    if (status != 0)
        fprintf(stderr, "ripsim tables: %s\n", err);
    else if (f != stdout)
        fprintf(stderr, "ripsim tables: wrote %s\n", out);
    return status;
}
