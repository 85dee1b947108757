/*
** layer_csv.h — reading a table of layers from CSV (sweeps/layers/README.md).
**
** Header row with named columns in any order; required c_in, c_out, h_in,
** w_in, k_h, k_w; optional layer_name, s_h, s_w, d_h, d_w, p_top, p_left,
** p_bottom, p_right, groups.  The dialect is csv.h's.  Every row is checked
** (strict integers, ranges, rip_layer_derive, groups) and a bad one is
** reported as FILE:ROW: FIELD: problem, ROW being the line of the file on
** which the row starts (the header is usually line 1).
**
** Two ways in: a streaming reader (one row at a time, memory independent
** of the number of rows) and rip_layer_csv_read(), which collects every
** row into a table for callers that need them all (the paper's tables).
*/
#ifndef RIPSIM_LAYER_CSV_H
#define RIPSIM_LAYER_CSV_H

#include <stdbool.h>
#include <stdio.h>

#include "layer.h"
#include "status.h"

#define RIP_LAYER_NAME_LEN 96

typedef struct rip_csv_layer {
    char name[RIP_LAYER_NAME_LEN]; /* layer_name (longer names cut at 95 bytes), or "row N" */
    int64_t row;           /* the line the row starts on */
    int64_t groups;        /* 1 for a channel-mixing convolution */
    rip_layer L;           /* derived */
} rip_csv_layer;

/* ---- streaming ---- */

typedef struct rip_layer_reader rip_layer_reader;

/*
** Start reading f (named fname in messages; f stays the caller's): reads
** and checks the header.  RIP_OK with *out; RIP_S_DATA (bad or missing
** header), RIP_S_IO (read error) or RIP_S_NOMEM with err.
*/
rip_status rip_layer_reader_open(FILE *f, const char *fname, rip_layer_reader **out, char err[RIP_ERR_LEN]);

/*
** The next row into *row.  RIP_OK with *got = true, or RIP_OK with
** *got = false at the end.  RIP_S_DATA: this row is bad (err names it);
** the reader has moved past it, so a caller may report it and go on.
** RIP_S_IO / RIP_S_NOMEM: stop.
*/
rip_status rip_layer_reader_next(rip_layer_reader *lr, rip_csv_layer *row, bool *got, char err[RIP_ERR_LEN]);

void rip_layer_reader_close(rip_layer_reader *lr);

/* ---- whole tables ---- */

typedef struct rip_layer_table {
    rip_csv_layer *rows;   /* the good rows, in file order */
    size_t n;
    size_t n_bad;          /* rows rejected (only with skip_bad) */
} rip_layer_table;

/*
** Read f (named fname in messages) into *t.  Without skip_bad the first bad
** row stops the read: RIP_S_DATA with the message in err and *t empty.
** With skip_bad every bad row's message goes to `bad` (one line each, may
** be NULL) and is counted in t->n_bad; the rest are read.  A bad header,
** a read error (RIP_S_IO) or no memory (RIP_S_NOMEM) always fail.  RIP_OK
** on success; free with rip_layer_table_free.
*/
rip_status rip_layer_csv_read(FILE *f, const char *fname, bool skip_bad, FILE *bad, rip_layer_table *t,
                              char err[RIP_ERR_LEN]);

void rip_layer_table_free(rip_layer_table *t);

#endif
