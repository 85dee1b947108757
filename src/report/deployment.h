/*
** deployment.h — results/deployment.json: one record per (model, plan,
** target) of the firmware deployment (`./build.sh firmware`), read strictly
** and written in one canonical form so a rerun is byte-identical.
**
** Keys of a record: model (Tab. 3 name), plan ("base" | "rip"), target
** ("qemu-m0" | "qemu-m33" | "pico" | "pico2"), arena_bytes, scratch_bytes,
** ram_bytes (whole image from the link; null when not linked), fits (the
** link against the target's real RAM succeeded; null: no link), ran
** (executed to completion; null where no emulator runs the target),
** checksum (8 lowercase hex digits, CRC-32 of the logits; null if not run),
** instructions (per inference; null if not counted), op_instructions (per
** operator, an array, or null).
**
** A file also names the tools that built and ran its images, one object
** {"tool": NAME, "version": TEXT} each (firmware/tools/versions.sh and
** firmware/pico/link-boards.sh print them: arm-none-eabi-gcc, picolibc,
** qemu-system-arm, pico-sdk and, with an SDK, newlib): the instruction counts
** and links are those of these versions.  The canonical file lists them
** first, sorted by name.
**
** The JSON accepted is a strict subset: objects of keys with string
** (printable ASCII, no escapes), integer, true/false/null or integer-array
** values.  Errors are one line, `PATH:LINE: KEY: problem`.
*/
#ifndef RIPSIM_DEPLOYMENT_H
#define RIPSIM_DEPLOYMENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "layer.h"
#include "status.h"

typedef struct rip_deploy_rec {
    char model[48], plan[8], target[12];
    int64_t arena_bytes, scratch_bytes;
    int64_t ram_bytes;     /* -1: null */
    int fits, ran;         /* 1 true, 0 false, -1 null */
    int64_t checksum;      /* -1: null, else the CRC-32 */
    int64_t instructions;  /* -1: null */
    int64_t *ops;          /* op_instructions, n_ops of them; NULL: null */
    size_t n_ops;
} rip_deploy_rec;

typedef struct rip_deploy_tool {
    char name[32];         /* e.g. "qemu-system-arm" */
    char version[120];     /* what the tool says of itself, e.g. "QEMU emulator version 7.2.22 (...)" */
} rip_deploy_tool;

typedef struct rip_deployment {
    rip_deploy_rec *rec;   /* sorted by model, plan, target (strcmp) */
    size_t n;
    rip_deploy_tool *tools; /* sorted by name, each once */
    size_t n_tools;
} rip_deployment;

/*
** Read PATH (a regular file).  lines false: results/deployment.json, one
** JSON array of records with exactly the keys above (op_instructions may be
** absent).  lines true: the raw output of the firmware tools, a sequence of
** JSON objects: objects without "target" are model.json files of the
** generator (model, plan, scratch_bytes, other keys ignored) that give the
** scratch_bytes of the records of their model and plan; objects with
** "target" are records whose unknown keys (e.g. a tool's timing) are
** dropped; objects with "tool" are tool objects (a tool may repeat in the
** lines, every build prints its own, but only with the same version).
** Either way a (model, plan, target) appears once.  On success *d
** is the caller's (rip_deploy_free), sorted.  RIP_OK; RIP_S_NOINPUT when
** PATH cannot be read; RIP_S_DATA on bad content; RIP_S_NOMEM; err says
** what.
*/
rip_status rip_deploy_read(const char *path, bool lines, rip_deployment *d, char err[RIP_ERR_LEN]);

/* The canonical deployment.json of d to out: "[", one record a line, "]".
** Write errors are the caller's to find (ferror). */
void rip_deploy_write(FILE *out, const rip_deployment *d);

/* The record of (model, plan, target), or NULL. */
const rip_deploy_rec *rip_deploy_find(const rip_deployment *d, const char *model, const char *plan,
                                      const char *target);

void rip_deploy_free(rip_deployment *d);

#endif
