/*
** reproduce.h — the paper's artefacts as `ripsim reproduce` makes them
** (cmd_reproduce.c runs the command line, reproduce_make.c makes each
** artefact's bytes in memory).
**
** An artefact is one row of results/README.md: one or more files of
** results/ and the library entry point that writes them in their committed
** form (the one `ripsim tables NAME`, `claims` or `report` calls).  Its
** maker fills the files' buffers and writes nothing to disk but the
** temporary sweep databases it needs (in the run's temporary folder) and
** fig1's SVG for rsvg-convert; the command compares the buffers with the
** files in results/ and, without --check, replaces the ones that differ.
*/
#ifndef RIPSIM_CLI_REPRODUCE_H
#define RIPSIM_CLI_REPRODUCE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "layer.h"
#include "status.h"

/* Files of one artefact, at most (claims: claims.md and three figures, room for more). */
#define REPRO_MAX_FILES 6

/* One file's bytes as made, or why they were not. */
typedef struct repro_file {
    const char *name;      /* its name in results/ ("table2.md") */
    char *data;            /* malloc'd (open_memstream), len bytes; NULL: not made */
    size_t len;
    char skip[RIP_ERR_LEN]; /* non-empty: not made, and why (fig1.png without rsvg-convert) */
} repro_file;

/* What every maker reads; the sweep databases are made once, on first use. */
typedef struct repro_ctx {
    const char *results;        /* the folder compared with (results/ or --results) */
    const char *layers, *models; /* sweeps/layers, firmware/models of the tree */
    const char *firmware;       /* firmware/ of the tree (its tools) */
    const char *tmpdir;         /* the run's temporary folder (sweep databases, fig1's SVG) */
    bool claims_on_executed;    /* sweep-report is chosen too: claims reads its executed sweep */
    int jobs;                   /* the sweeps' worker threads */
    atomic_int *stop;           /* set by SIGINT/SIGTERM: the sweeps stop */
    const char *label;          /* the artefact being made, for the progress line */
    bool have_default, have_executed, have_shard; /* those sweeps are complete in tmpdir */
} repro_ctx;

/*
** An artefact's maker: fill files[0..n-1] (named by the artefact) with
** their bytes.  RIP_OK (a file may still be skipped, its reason in its
** skip); RIP_S_UNAVAILABLE: the whole artefact skipped, why in err (an
** input or a tool missing); any other status: failed, err says why.  The
** buffers made are the caller's to free, whatever the status.
*/
typedef rip_status (*repro_make_fn)(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN]);

typedef struct repro_artefact {
    const char *name;          /* --only NAME */
    const char *paper;         /* what of the paper it is ("Tab. 2") */
    const char *files[REPRO_MAX_FILES + 1]; /* its files in results/, NULL-terminated */
    repro_make_fn make;
} repro_artefact;

/* A file's buffer opened for writing into *f.  RIP_OK, or RIP_S_NOMEM with err. */
rip_status repro_mem_open(repro_file *file, FILE **f, char err[RIP_ERR_LEN]);

/* Close f (from repro_mem_open) after a writer that returned s; a write
** error the writer left to its caller (ferror) is memory running out.  The
** status, err set when it is not RIP_OK. */
rip_status repro_mem_close(FILE *f, rip_status s, char err[RIP_ERR_LEN]);

/* The deployment artefact (reproduce_firmware.c): RIP_S_UNAVAILABLE
** without the firmware tools or a pico-sdk. */
rip_status repro_make_deployment(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN]);

/* Every artefact in the order they are made; *n receives how many. */
const repro_artefact *repro_artefacts(size_t *n);

#endif
