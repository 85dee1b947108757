/*
** csv.c — the one CSV reader (dialect and contracts in csv.h).
**
** A byte-at-a-time state machine over a 64 KiB read buffer.  The fields of
** the current record are stored back to back, NUL-terminated, in one
** growing buffer that is reused for every record, so memory follows the
** longest record and never the length of the file.  After a malformed
** record the rest of its physical line is skipped, so a caller that
** reports bad rows and goes on (`layers --skip-bad`) resumes at the next
** line.
*/
#include "csv.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define IN_CAP 65536

struct rip_csv {
    FILE *f;
    char *fname;
    unsigned char in[IN_CAP];
    size_t in_len, in_pos;
    bool at_start;         /* nothing read yet: a BOM may follow */
    int64_t line;          /* the line of the next byte, 1-based */

    char *buf;             /* the current record's fields, back to back */
    size_t buf_len, buf_cap;
    size_t *off;           /* field starts in buf */
    size_t *len;
    char **field;
    size_t n_cap;
    rip_csv_record rec;

    char *hdr_text;        /* the header's names, back to back */
    char **hdr;
    size_t n_hdr;
    char name_buf[32];     /* "field N" */
};

/* ---- bytes ---- */

/* The next byte, or EOF (end of input or a read error: see ferror). */
static int get(rip_csv *r)
{
    if (r->in_pos == r->in_len) {
        r->in_len = fread(r->in, 1, IN_CAP, r->f);
        r->in_pos = 0;
        if (r->at_start) {
            r->at_start = false;
            if (r->in_len >= 3 && r->in[0] == 0xEF && r->in[1] == 0xBB && r->in[2] == 0xBF)
                r->in_pos = 3;
        }
        if (r->in_pos == r->in_len)
            return EOF;
    }
    return r->in[r->in_pos++];
}

/* Skip to just after the next LF (or to the end of the input). */
static void skip_line(rip_csv *r)
{
    int c;
    while ((c = get(r)) != EOF && c != '\n')
        ;
    if (c == '\n')
        r->line++;
}

/* Append byte c to the record buffer; false when out of memory. */
static bool put(rip_csv *r, char c)
{
    if (r->buf_len == r->buf_cap) {
        size_t cap = r->buf_cap ? 2 * r->buf_cap : 256;
        char *nb = cap > r->buf_cap ? realloc(r->buf, cap) : NULL;
        if (nb == NULL)
            return false;
        r->buf = nb;
        r->buf_cap = cap;
    }
    r->buf[r->buf_len++] = c;
    return true;
}

/* Room for field index n; false when out of memory. */
static bool field_slot(rip_csv *r, size_t n)
{
    if (n < r->n_cap)
        return true;
    size_t cap = r->n_cap ? 2 * r->n_cap : 32;
    if (cap > SIZE_MAX / sizeof(char *))
        return false;
    size_t *no = realloc(r->off, cap * sizeof *no);
    if (no == NULL)
        return false;
    r->off = no;
    size_t *nl = realloc(r->len, cap * sizeof *nl);
    if (nl == NULL)
        return false;
    r->len = nl;
    char **nf = realloc(r->field, cap * sizeof *nf);
    if (nf == NULL)
        return false;
    r->field = nf;
    r->n_cap = cap;
    return true;
}

/* ---- messages ---- */

void rip_csv_show(const char *s, size_t max, char *out, size_t out_len)
{
    size_t o = 0, i = 0;
    if (out_len == 0)
        return;
    for (; s[i] && i < max && o + 1 < out_len; i++)
        out[o++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    if (s[i] && i == max)
        for (int k = 0; k < 3 && o + 1 < out_len; k++)
            out[o++] = '.';
    out[o] = '\0';
}

void rip_csv_errorf(const rip_csv *r, int64_t row, const char *field, char err[RIP_ERR_LEN], const char *fmt, ...)
{
    int k = snprintf(err, RIP_ERR_LEN, "%.200s:%lld: %.60s: ", r->fname, (long long)row, field);
    if (k < 0 || k >= RIP_ERR_LEN)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + k, RIP_ERR_LEN - (size_t)k, fmt, ap);
    va_end(ap);
}

const char *rip_csv_field_name(rip_csv *r, size_t i)
{
    if (i < r->n_hdr)
        return r->hdr[i];
    snprintf(r->name_buf, sizeof r->name_buf, "field %zu", i + 1);
    return r->name_buf;
}

const char *rip_csv_fname(const rip_csv *r)
{
    return r->fname;
}

size_t rip_csv_width(const rip_csv *r)
{
    return r->n_hdr;
}

/* ---- open, close ---- */

rip_status rip_csv_open(FILE *f, const char *fname, rip_csv **out, char err[RIP_ERR_LEN])
{
    *out = NULL;
    rip_csv *r = calloc(1, sizeof *r);
    char *name = strdup(fname ? fname : "<input>");
    if (r == NULL || name == NULL) {
        free(r);
        free(name);
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", fname ? fname : "<input>");
        return RIP_S_NOMEM;
    }
    r->f = f;
    r->fname = name;
    r->at_start = true;
    r->line = 1;
    *out = r;
    return RIP_OK;
}

void rip_csv_close(rip_csv *r)
{
    if (r == NULL)
        return;
    free(r->fname);
    free(r->buf);
    free(r->off);
    free(r->len);
    free(r->field);
    free(r->hdr_text);
    free(r->hdr);
    free(r);
}

/* ---- records ---- */

static bool blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return false;
    return true;
}

/* A malformed record: the message, the rest of the line skipped. */
static rip_status bad(rip_csv *r, int64_t row, size_t field, bool skip, char err[RIP_ERR_LEN], const char *what)
{
    rip_csv_errorf(r, row, rip_csv_field_name(r, field), err, "%s", what);
    if (skip)
        skip_line(r);
    return RIP_S_DATA;
}

static rip_status nomem(rip_csv *r, char err[RIP_ERR_LEN])
{
    snprintf(err, RIP_ERR_LEN, "%.200s:%lld: out of memory", r->fname, (long long)r->line);
    return RIP_S_NOMEM;
}

static rip_status read_error(rip_csv *r, char err[RIP_ERR_LEN])
{
    snprintf(err, RIP_ERR_LEN, "%.200s:%lld: read error", r->fname, (long long)r->line);
    return RIP_S_IO;
}

rip_status rip_csv_next(rip_csv *r, const rip_csv_record **rec, char err[RIP_ERR_LEN])
{
    *rec = NULL;
    for (;;) {
        int64_t start = r->line;
        size_t n = 0;
        bool quoted0 = false;
        r->buf_len = 0;
        int c = get(r);
        if (c == EOF)
            return ferror(r->f) ? read_error(r, err) : RIP_OK;
        for (;;) { /* one field per turn; c is its first byte */
            if (!field_slot(r, n))
                return nomem(r, err);
            r->off[n] = r->buf_len;
            if (c == '"') {
                if (n == 0)
                    quoted0 = true;
                for (;;) {
                    c = get(r);
                    if (c == EOF) {
                        if (ferror(r->f))
                            return read_error(r, err);
                        return bad(r, start, n, false, err,
                                   "a quoted field is not closed before the end of the file");
                    }
                    if (c == '"') {
                        c = get(r);
                        if (c != '"')
                            break; /* c is the byte after the closing quote */
                    } else if (c == '\n') {
                        r->line++;
                    } else if (c == '\0') {
                        return bad(r, start, n, true, err, "a NUL byte in the field");
                    }
                    if (!put(r, (char)c))
                        return nomem(r, err);
                }
                if (c != ',' && c != '\n' && c != '\r' && c != EOF)
                    return bad(r, start, n, c != '\n', err,
                               "text after the closing quote (a quoted field must end at a comma or the line end)");
            } else {
                while (c != ',' && c != '\n' && c != '\r' && c != EOF) {
                    if (c == '"')
                        return bad(r, start, n, true, err,
                                   "a quote inside an unquoted field (quote the whole field and double the quote)");
                    if (c == '\0')
                        return bad(r, start, n, true, err, "a NUL byte in the field");
                    if (!put(r, (char)c))
                        return nomem(r, err);
                    c = get(r);
                }
            }
            if (!put(r, '\0'))
                return nomem(r, err);
            r->len[n] = r->buf_len - r->off[n] - 1;
            n++;
            if (c == ',') {
                c = get(r);
                continue;
            }
            if (c == '\r') {
                c = get(r);
                if (c != '\n')
                    return bad(r, start, n - 1, c != EOF, err,
                               "a carriage return not followed by a line feed (line ends are LF or CRLF)");
            }
            if (c == '\n')
                r->line++;
            else if (ferror(r->f))
                return read_error(r, err);
            break; /* the line end or the end of the input ends the record */
        }
        if (n == 1 && !quoted0 && blank(r->buf))
            continue; /* a blank line */
        for (size_t i = 0; i < n; i++)
            r->field[i] = r->buf + r->off[i];
        r->rec = (rip_csv_record){n, r->field, r->len, start};
        *rec = &r->rec;
        return RIP_OK;
    }
}

/* ---- header ---- */

rip_status rip_csv_read_header(rip_csv *r, const rip_csv_column *cols, size_t ncols, bool allow_unknown,
                               int *col, char err[RIP_ERR_LEN])
{
    const rip_csv_record *h;
    rip_status s = rip_csv_next(r, &h, err);
    if (s != RIP_OK)
        return s;
    if (h == NULL) {
        rip_csv_errorf(r, r->line, "header", err, "no header row (the file is empty)");
        return RIP_S_DATA;
    }
    size_t total = 0;
    for (size_t i = 0; i < h->n; i++)
        total += h->len[i] + 1;
    free(r->hdr_text);
    free(r->hdr);
    r->n_hdr = 0;
    r->hdr_text = malloc(total);
    r->hdr = malloc(h->n * sizeof *r->hdr);
    if (r->hdr_text == NULL || r->hdr == NULL)
        return nomem(r, err);
    memcpy(r->hdr_text, h->field[0], total); /* the fields are stored back to back */
    for (size_t i = 0; i < h->n; i++)
        r->hdr[i] = r->hdr_text + (h->field[i] - h->field[0]);
    r->n_hdr = h->n;

    char shown[48];
    for (size_t c = 0; c < ncols; c++)
        col[c] = -1;
    for (size_t i = 0; i < h->n; i++) {
        size_t c = 0;
        while (c < ncols && strcmp(h->field[i], cols[c].name) != 0)
            c++;
        if (c == ncols) {
            if (allow_unknown)
                continue;
            char known[RIP_ERR_LEN / 2];
            size_t k = 0;
            known[0] = '\0';
            for (size_t j = 0; j < ncols && k < sizeof known; j++) {
                int w = snprintf(known + k, sizeof known - k, "%s%s", j ? " " : "", cols[j].name);
                k = w < 0 ? sizeof known : k + (size_t)w;
            }
            rip_csv_show(h->field[i], 30, shown, sizeof shown);
            rip_csv_errorf(r, h->line, "header", err, "unknown column '%s' (known: %s)", shown, known);
            return RIP_S_DATA;
        }
        if (col[c] >= 0) {
            rip_csv_errorf(r, h->line, "header", err, "column '%s' given twice", cols[c].name);
            return RIP_S_DATA;
        }
        if (i > (size_t)INT32_MAX) {
            rip_csv_errorf(r, h->line, "header", err, "too many columns");
            return RIP_S_DATA;
        }
        col[c] = (int)i;
    }
    for (size_t c = 0; c < ncols; c++)
        if (cols[c].required && col[c] < 0) {
            rip_csv_errorf(r, h->line, "header", err, "required column '%s' missing", cols[c].name);
            return RIP_S_DATA;
        }
    return RIP_OK;
}

rip_status rip_csv_check_width(const rip_csv *r, const rip_csv_record *rec, char err[RIP_ERR_LEN])
{
    if (rec->n == r->n_hdr)
        return RIP_OK;
    if (rec->n < r->n_hdr)
        rip_csv_errorf(r, rec->line, r->hdr[rec->n], err, "missing (%zu fields, the header has %zu)", rec->n,
                       r->n_hdr);
    else
        rip_csv_errorf(r, rec->line, "row", err, "%zu fields, the header has %zu (extra fields past the last column)",
                       rec->n, r->n_hdr);
    return RIP_S_DATA;
}

/* ---- integers ---- */

int rip_csv_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    const char *p = s;
    bool neg = *p == '-';
    if (neg)
        p++;
    if (*p < '0' || *p > '9')
        return 1;
    uint64_t acc = 0;
    bool big = false;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return 1;
        unsigned d = (unsigned)(*p - '0');
        if (acc > (UINT64_MAX - d) / 10)
            big = true;
        else
            acc = acc * 10 + d;
    }
    const uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (big || acc > lim)
        return 2;
    int64_t x = neg ? (acc == lim ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
    if (x < lo || x > hi)
        return 2;
    *v = x;
    return 0;
}

rip_status rip_csv_int(rip_csv *r, const rip_csv_record *rec, size_t i, int64_t lo, int64_t hi, int64_t *v,
                       char err[RIP_ERR_LEN])
{
    int k = rip_csv_parse_int(rec->field[i], lo, hi, v);
    if (k == 0)
        return RIP_OK;
    char shown[64];
    rip_csv_show(rec->field[i], 40, shown, sizeof shown);
    const char *name = rip_csv_field_name(r, i);
    if (k == 1)
        rip_csv_errorf(r, rec->line, name, err, "expected an integer, got '%s'", shown);
    else if (lo == INT64_MIN && hi == INT64_MAX)
        rip_csv_errorf(r, rec->line, name, err, "%s does not fit in a 64-bit integer", shown);
    else
        rip_csv_errorf(r, rec->line, name, err, "%s is out of range [%lld, %lld]", shown, (long long)lo,
                       (long long)hi);
    return RIP_S_DATA;
}
