/*
** layer_csv.c — CSV tables of layers (layer_csv.h) on the one CSV reader
** (csv.h).  Strict because a silently misread column would be a silently
** wrong number in every table built from it.
*/
#include "layer_csv.h"

#include <stdlib.h>
#include <string.h>

#include "csv.h"

enum { C_NAME, C_CIN, C_COUT, C_HIN, C_WIN, C_KH, C_KW, C_SH, C_SW, C_DH, C_DW,
       C_PT, C_PL, C_PB, C_PR, C_GROUPS, C_COUNT };

static const rip_csv_column columns[C_COUNT] = {
    [C_NAME] = {"layer_name", false}, [C_CIN] = {"c_in", true},   [C_COUT] = {"c_out", true},
    [C_HIN] = {"h_in", true},         [C_WIN] = {"w_in", true},   [C_KH] = {"k_h", true},
    [C_KW] = {"k_w", true},           [C_SH] = {"s_h", false},    [C_SW] = {"s_w", false},
    [C_DH] = {"d_h", false},          [C_DW] = {"d_w", false},    [C_PT] = {"p_top", false},
    [C_PL] = {"p_left", false},       [C_PB] = {"p_bottom", false}, [C_PR] = {"p_right", false},
    [C_GROUPS] = {"groups", false},
};

/* The value of an absent optional column. */
static const int64_t dflt[C_COUNT] = {
    [C_SH] = 1, [C_SW] = 1, [C_DH] = 1, [C_DW] = 1, [C_GROUPS] = 1,
};

struct rip_layer_reader {
    rip_csv *csv;
    int col[C_COUNT];
};

rip_status rip_layer_reader_open(FILE *f, const char *fname, rip_layer_reader **out, char err[RIP_ERR_LEN])
{
    *out = NULL;
    rip_layer_reader *lr = calloc(1, sizeof *lr);
    if (lr == NULL) {
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", fname);
        return RIP_S_NOMEM;
    }
    rip_status s = rip_csv_open(f, fname, &lr->csv, err);
    if (s == RIP_OK)
        s = rip_csv_read_header(lr->csv, columns, C_COUNT, false, lr->col, err);
    if (s != RIP_OK) {
        rip_layer_reader_close(lr);
        return s;
    }
    *out = lr;
    return RIP_OK;
}

void rip_layer_reader_close(rip_layer_reader *lr)
{
    if (lr == NULL)
        return;
    rip_csv_close(lr->csv);
    free(lr);
}

/* Check one record and fill *out.  RIP_OK or RIP_S_DATA with err. */
static rip_status parse_row(rip_layer_reader *lr, const rip_csv_record *rec, rip_csv_layer *out,
                            char err[RIP_ERR_LEN])
{
    rip_status s = rip_csv_check_width(lr->csv, rec, err);
    if (s != RIP_OK)
        return s;
    int64_t v[C_COUNT];
    for (int c = C_CIN; c < C_COUNT; c++) {
        v[c] = dflt[c];
        /* ranges are rip_layer_derive's to check, with its own messages */
        if (lr->col[c] >= 0 &&
            (s = rip_csv_int(lr->csv, rec, (size_t)lr->col[c], INT64_MIN, INT64_MAX, &v[c], err)) != RIP_OK)
            return s;
    }
    memset(out, 0, sizeof *out);
    if (lr->col[C_NAME] >= 0)
        snprintf(out->name, sizeof out->name, "%s", rec->field[lr->col[C_NAME]]);
    else
        snprintf(out->name, sizeof out->name, "row %lld", (long long)rec->line);
    rip_layer L = {0};
    L.cin = v[C_CIN]; L.cout = v[C_COUT]; L.h_in = v[C_HIN]; L.w_in = v[C_WIN];
    L.k_h = v[C_KH]; L.k_w = v[C_KW]; L.s_h = v[C_SH]; L.s_w = v[C_SW];
    L.d_h = v[C_DH]; L.d_w = v[C_DW];
    L.p_top = v[C_PT]; L.p_left = v[C_PL]; L.p_bottom = v[C_PB]; L.p_right = v[C_PR];
    char why[RIP_ERR_LEN];
    if (rip_layer_derive(&L, why) != 0) {
        /* derive names fields as cin/cout...; the CSV calls them c_in/c_out */
        const char *w = why;
        if (strncmp(w, "cin:", 4) == 0)
            rip_csv_errorf(lr->csv, rec->line, "c_in", err, "%.200s", w + 5);
        else if (strncmp(w, "cout:", 5) == 0)
            rip_csv_errorf(lr->csv, rec->line, "c_out", err, "%.200s", w + 6);
        else
            snprintf(err, RIP_ERR_LEN, "%.200s:%lld: %.250s", rip_csv_fname(lr->csv), (long long)rec->line, w);
        return RIP_S_DATA;
    }
    if (v[C_GROUPS] < 1 || L.cin % v[C_GROUPS] != 0 || L.cout % v[C_GROUPS] != 0) {
        rip_csv_errorf(lr->csv, rec->line, "groups", err, "%lld must be >= 1 and divide c_in %lld and c_out %lld",
                       (long long)v[C_GROUPS], (long long)L.cin, (long long)L.cout);
        return RIP_S_DATA;
    }
    out->L = L;
    out->groups = v[C_GROUPS];
    out->row = rec->line;
    return RIP_OK;
}

rip_status rip_layer_reader_next(rip_layer_reader *lr, rip_csv_layer *row, bool *got, char err[RIP_ERR_LEN])
{
    *got = false;
    const rip_csv_record *rec;
    rip_status s = rip_csv_next(lr->csv, &rec, err);
    if (s != RIP_OK || rec == NULL)
        return s;
    s = parse_row(lr, rec, row, err);
    *got = s == RIP_OK;
    return s;
}

rip_status rip_layer_csv_read(FILE *f, const char *fname, bool skip_bad, FILE *bad, rip_layer_table *t,
                              char err[RIP_ERR_LEN])
{
    rip_layer_reader *lr = NULL;
    size_t cap = 0;
    memset(t, 0, sizeof *t);
    rip_status s = rip_layer_reader_open(f, fname, &lr, err);
    while (s == RIP_OK) {
        if (t->n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            rip_csv_layer *r = ncap < SIZE_MAX / sizeof *r ? realloc(t->rows, ncap * sizeof *r) : NULL;
            if (r == NULL) {
                snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", fname);
                s = RIP_S_NOMEM;
                break;
            }
            t->rows = r;
            cap = ncap;
        }
        bool got;
        s = rip_layer_reader_next(lr, &t->rows[t->n], &got, err);
        if (s == RIP_OK && !got)
            break;
        if (s == RIP_OK) {
            t->n++;
        } else if (s == RIP_S_DATA && skip_bad) {
            t->n_bad++;
            if (bad)
                fprintf(bad, "%s (skipped)\n", err);
            s = RIP_OK;
        }
    }
    rip_layer_reader_close(lr);
    if (s != RIP_OK)
        rip_layer_table_free(t);
    return s;
}

void rip_layer_table_free(rip_layer_table *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}
