/*
** layer_csv.h — reading a table of layers from CSV (sweeps/layers/README.md).
**
** Header row with named columns in any order; required c_in, c_out, h_in,
** w_in, k_h, k_w; optional layer_name, s_h, s_w, d_h, d_w, p_top, p_left,
** p_bottom, p_right, groups.  Every row is checked (numbers, ranges,
** rip_layer_derive) and a bad one is reported as FILE:ROW: FIELD: problem,
** where ROW is the 1-based line number in the file (the header is row 1).
*/
#ifndef RIPSIM_LAYER_CSV_H
#define RIPSIM_LAYER_CSV_H

#include <stdbool.h>
#include <stdio.h>

#include "layer.h"

#define RIP_LAYER_NAME_LEN 96

typedef struct rip_csv_layer {
    char name[RIP_LAYER_NAME_LEN];
    int64_t row;           /* line number in the file */
    int64_t groups;        /* 1 for a channel-mixing convolution */
    rip_layer L;           /* derived */
} rip_csv_layer;

typedef struct rip_layer_table {
    rip_csv_layer *rows;   /* the good rows, in file order */
    size_t n;
    size_t n_bad;          /* rows rejected (only with skip_bad) */
} rip_layer_table;

/*
** Read f (named fname in messages) into *t.  Without skip_bad the first bad
** row stops the read: returns -1 with the message in err and *t empty.
** With skip_bad every bad row's message goes to `bad` (one line each, may
** be NULL) and is counted in t->n_bad; the rest are read.  A bad header,
** an unreadable file or no memory always fail.  Returns 0 on success;
** free with rip_layer_table_free.
*/
int rip_layer_csv_read(FILE *f, const char *fname, bool skip_bad, FILE *bad,
                       rip_layer_table *t, char err[RIP_ERR_LEN]);

void rip_layer_table_free(rip_layer_table *t);

#endif
