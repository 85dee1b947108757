/*
** cmd_tables.c — `ripsim tables NAME`: the paper's tables and figures,
** regenerated from data by the tool itself.
*/
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "table6.h"

static const char usage_text[] =
    "usage: ripsim tables NAME [--out FILE] [--layers-dir DIR]\n"
    "\n"
    "Regenerate one of the paper's tables from data:\n"
    "  table6   Tab. 6: RiP against generalized herringbone on real layers, with\n"
    "           column-major RiP (writes results/table6.md by default)\n"
    "\n"
    "options:\n"
    "  --out FILE        where to write ('-' for stdout)\n"
    "  --layers-dir DIR  the layer tables (default sweeps/layers)\n"
    "  -h, --help        this help\n"
    "Exit status: 0 written, 64 usage, 65 malformed input table, 66 missing table,\n"
    "73 cannot create the output.\n";

int rip_cmd_tables(int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *dir = "sweeps/layers";
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
    if (strcmp(name, "table6") != 0) {
        fprintf(stderr, "ripsim tables: unknown table '%s' (known: table6)\n", name);
        return RIP_EX_USAGE;
    }
    if (!out)
        out = "results/table6.md";

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
    char err[RIP_ERR_LEN];
    int status = rip_table6_write(f, dir, err);
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
