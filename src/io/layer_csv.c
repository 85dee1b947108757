/*
** layer_csv.c — CSV tables of layers (see layer_csv.h).
**
** A small strict tokenizer: fields separated by commas, optionally
** double-quoted (a doubled quote inside quotes is a literal quote), lines
** ended by \n or \r\n.  Strict because a silently misread column would be a
** silently wrong number in every table built from it.
*/
#include "layer_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { C_NAME, C_CIN, C_COUT, C_HIN, C_WIN, C_KH, C_KW, C_SH, C_SW, C_DH, C_DW,
       C_PT, C_PL, C_PB, C_PR, C_GROUPS, C_COUNT };

static const struct { const char *name; bool required; int64_t dflt; } columns[C_COUNT] = {
    [C_NAME] = {"layer_name", false, 0}, [C_CIN] = {"c_in", true, 0},
    [C_COUT] = {"c_out", true, 0},       [C_HIN] = {"h_in", true, 0},
    [C_WIN] = {"w_in", true, 0},         [C_KH] = {"k_h", true, 0},
    [C_KW] = {"k_w", true, 0},           [C_SH] = {"s_h", false, 1},
    [C_SW] = {"s_w", false, 1},          [C_DH] = {"d_h", false, 1},
    [C_DW] = {"d_w", false, 1},          [C_PT] = {"p_top", false, 0},
    [C_PL] = {"p_left", false, 0},       [C_PB] = {"p_bottom", false, 0},
    [C_PR] = {"p_right", false, 0},      [C_GROUPS] = {"groups", false, 1},
};

#define MAX_FIELDS 64
#define MAX_LINE 4096

/* Split line (modified in place) into fields; returns the count or -1 on a
** malformed quote, -2 on too many fields. */
static int split(char *line, char *fields[MAX_FIELDS])
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == MAX_FIELDS)
            return -2;
        if (*p == '"') {
            char *w = ++p;
            fields[n++] = w;
            for (;;) {
                if (*p == '\0')
                    return -1;
                if (*p == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *w++ = *p++;
                }
            }
            *w = '\0';
            if (*p != ',' && *p != '\0')
                return -1;
        } else {
            fields[n++] = p;
            while (*p && *p != ',')
                p++;
        }
        if (*p == '\0')
            return n;
        *p++ = '\0';
    }
}

/* Read one line into buf; 1 ok, 0 EOF, -1 too long.  Strips \r\n. */
static int read_line(FILE *f, char *buf, size_t cap)
{
    if (!fgets(buf, (int)cap, f))
        return 0;
    size_t n = strlen(buf);
    if (n == cap - 1 && buf[n - 1] != '\n' && !feof(f)) {
        int c;
        while ((c = fgetc(f)) != EOF && c != '\n')
            ;
        return -1;
    }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    return 1;
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return false;
    return true;
}

static bool parse_int(const char *s, int64_t *v)
{
    if (*s == '\0')
        return false;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE)
        return false;
    *v = (int64_t)x;
    return true;
}

/* Parse one data row; 0 ok, else -1 with the message (without FILE:ROW). */
static int parse_row(char *line, const int col[C_COUNT], int ncols, int64_t row,
                     rip_csv_layer *out, char msg[RIP_ERR_LEN])
{
    char *f[MAX_FIELDS];
    int n = split(line, f);
    if (n < 0) {
        snprintf(msg, RIP_ERR_LEN, "%s", n == -1 ? "malformed quoted field" : "too many fields");
        return -1;
    }
    if (n != ncols) {
        /* name the first column the row lacks, or say the row is too long */
        const char *field = "row";
        for (int c = 0; c < C_COUNT && n < ncols; c++)
            if (col[c] == n)
                field = columns[c].name;
        snprintf(msg, RIP_ERR_LEN, "%s: %s (%d fields, the header has %d)", field,
                 n < ncols ? "missing" : "extra fields past the last column", n, ncols);
        return -1;
    }
    int64_t v[C_COUNT];
    for (int c = C_CIN; c < C_COUNT; c++) {
        v[c] = columns[c].dflt;
        if (col[c] >= 0 && !parse_int(f[col[c]], &v[c])) {
            snprintf(msg, RIP_ERR_LEN, "%s: expected an integer, got '%.40s'", columns[c].name, f[col[c]]);
            return -1;
        }
    }
    if (col[C_NAME] >= 0)
        snprintf(out->name, sizeof out->name, "%s", f[col[C_NAME]]);
    else
        snprintf(out->name, sizeof out->name, "row %lld", (long long)row);
    rip_layer L = {0};
    L.cin = v[C_CIN]; L.cout = v[C_COUT]; L.h_in = v[C_HIN]; L.w_in = v[C_WIN];
    L.k_h = v[C_KH]; L.k_w = v[C_KW]; L.s_h = v[C_SH]; L.s_w = v[C_SW];
    L.d_h = v[C_DH]; L.d_w = v[C_DW];
    L.p_top = v[C_PT]; L.p_left = v[C_PL]; L.p_bottom = v[C_PB]; L.p_right = v[C_PR];
    char why[RIP_ERR_LEN];
    if (rip_layer_derive(&L, why) != 0) {
        /* derive names fields as cin/h_in/p_top...; the CSV calls them c_in/c_out */
        const char *w = why;
        if (strncmp(w, "cin:", 4) == 0)
            snprintf(msg, RIP_ERR_LEN, "c_in:%.200s", w + 4);
        else if (strncmp(w, "cout:", 5) == 0)
            snprintf(msg, RIP_ERR_LEN, "c_out:%.200s", w + 5);
        else
            snprintf(msg, RIP_ERR_LEN, "%.230s", w);
        return -1;
    }
    if (v[C_GROUPS] < 1 || L.cin % v[C_GROUPS] != 0 || L.cout % v[C_GROUPS] != 0) {
        snprintf(msg, RIP_ERR_LEN, "groups: %lld must be >= 1 and divide c_in %lld and c_out %lld",
                 (long long)v[C_GROUPS], (long long)L.cin, (long long)L.cout);
        return -1;
    }
    out->L = L;
    out->groups = v[C_GROUPS];
    out->row = row;
    return 0;
}

int rip_layer_csv_read(FILE *f, const char *fname, bool skip_bad, FILE *bad,
                       rip_layer_table *t, char err[RIP_ERR_LEN])
{
    char *line = malloc(MAX_LINE);
    char msg[RIP_ERR_LEN];
    int col[C_COUNT], ncols = 0, status = -1;
    int64_t row = 0;
    size_t cap = 0;

    memset(t, 0, sizeof *t);
    if (!line) {
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", fname);
        return -1;
    }
    /* header: the first non-blank line */
    int rc;
    do {
        rc = read_line(f, line, MAX_LINE);
        row++;
    } while (rc == 1 && blank(line));
    if (rc <= 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: %s", fname,
                 rc == 0 ? (ferror(f) ? "read error" : "empty file, no header row") : "header line too long");
        goto done;
    }
    char *h[MAX_FIELDS];
    ncols = split(line, h);
    if (ncols < 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s:%lld: malformed header", fname, (long long)row);
        goto done;
    }
    for (int c = 0; c < C_COUNT; c++)
        col[c] = -1;
    for (int i = 0; i < ncols; i++) {
        int c = 0;
        while (c < C_COUNT && strcmp(h[i], columns[c].name) != 0)
            c++;
        if (c == C_COUNT) {
            snprintf(err, RIP_ERR_LEN,
                     "%.200s:%lld: unknown column '%.30s' (known: layer_name c_in c_out h_in w_in k_h k_w "
                     "s_h s_w d_h d_w p_top p_left p_bottom p_right groups)",
                     fname, (long long)row, h[i]);
            goto done;
        }
        if (col[c] >= 0) {
            snprintf(err, RIP_ERR_LEN, "%.200s:%lld: column '%s' given twice", fname, (long long)row,
                     columns[c].name);
            goto done;
        }
        col[c] = i;
    }
    for (int c = 0; c < C_COUNT; c++)
        if (columns[c].required && col[c] < 0) {
            snprintf(err, RIP_ERR_LEN, "%.200s:%lld: required column '%s' missing", fname,
                     (long long)row, columns[c].name);
            goto done;
        }

    while ((rc = read_line(f, line, MAX_LINE)) != 0) {
        row++;
        if (rc == 1 && blank(line))
            continue;
        if (t->n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            rip_csv_layer *r = realloc(t->rows, ncap * sizeof *r);
            if (!r) {
                snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", fname);
                goto done;
            }
            t->rows = r;
            cap = ncap;
        }
        int ok = rc == 1 ? parse_row(line, col, ncols, row, &t->rows[t->n], msg) : -1;
        if (rc < 0)
            snprintf(msg, RIP_ERR_LEN, "line longer than %d bytes", MAX_LINE - 2);
        if (ok == 0) {
            t->n++;
        } else if (skip_bad) {
            t->n_bad++;
            if (bad)
                fprintf(bad, "%s:%lld: %s (skipped)\n", fname, (long long)row, msg);
        } else {
            snprintf(err, RIP_ERR_LEN, "%.200s:%lld: %.280s", fname, (long long)row, msg);
            goto done;
        }
    }
    if (ferror(f)) {
        snprintf(err, RIP_ERR_LEN, "%.200s: read error", fname);
        goto done;
    }
    status = 0;
done:
    free(line);
    if (status != 0)
        rip_layer_table_free(t);
    return status;
}

void rip_layer_table_free(rip_layer_table *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}
