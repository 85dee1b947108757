/*
** csv.h — the one CSV reader of ripsim: every CSV the project reads (layer
** tables, model graphs, interval lists, the reference tables of the paper)
** goes through it, so there is one dialect and one error format.
**
** Dialect (RFC 4180, read strictly; sweeps/layers/README.md and
** firmware/models/README.md state the same rules for users):
**   - fields are separated by commas; a record ends at LF or CRLF, or at the
**     end of the file (a final line end is optional);
**   - a field may be enclosed in double quotes; inside quotes a doubled
**     quote "" is one quote, and commas, CR and LF are data;
**   - a quote inside an unquoted field, text after a closing quote, a quote
**     left open at the end of the file, a CR not followed by LF outside
**     quotes, and a NUL byte are errors;
**   - an optional UTF-8 byte order mark at the very start is skipped;
**   - empty fields are fields ("a,,b" has three); spaces are data (no
**     trimming), so " 3" is not the integer 3;
**   - a line that is empty or holds only spaces and tabs is skipped;
**   - no limit on the length of a line, a field or the number of fields
**     (memory grows with the longest record, never with the file).
**
** Rows.  ROW in a message is the line number of the file, counted from 1 as
** an editor shows it (the header is usually line 1; skipped blank lines
** count), of the line on which the record starts: a quoted field holding
** line breaks makes its record span several lines.
**
** Errors are one line, `FILE:ROW: FIELD: problem`, FIELD being the header's
** name of the column (or `field N`, 1-based, before the header is known).
**
** Streaming: rip_csv_next() hands out one record at a time; the record's
** storage is reused by the next call, so memory does not grow with the
** number of rows.
*/
#ifndef RIPSIM_CSV_H
#define RIPSIM_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "layer.h"   /* RIP_ERR_LEN */
#include "status.h"

typedef struct rip_csv rip_csv;

/* One record, valid until the next rip_csv_next() or rip_csv_close(). */
typedef struct rip_csv_record {
    size_t n;          /* number of fields, >= 1 */
    char **field;      /* field[i]: the unquoted text, NUL-terminated, writable */
    size_t *len;       /* strlen(field[i]) */
    int64_t line;      /* the line on which the record starts (1-based) */
} rip_csv_record;

/* A column a reader knows: its header name and whether it must be there. */
typedef struct rip_csv_column {
    const char *name;
    bool required;
} rip_csv_column;

/*
** Start reading f (not closed by the reader; named fname in messages).
** Returns RIP_OK with *out, or RIP_S_NOMEM with err.
*/
rip_status rip_csv_open(FILE *f, const char *fname, rip_csv **out, char err[RIP_ERR_LEN]);

/* Release the reader (NULL is fine); the FILE stays open. */
void rip_csv_close(rip_csv *r);

/*
** The next record (blank lines skipped).  RIP_OK with *rec, or RIP_OK with
** *rec = NULL at the end of the input; RIP_S_DATA for a malformed record,
** RIP_S_IO for a read error, RIP_S_NOMEM; err then holds the message.
*/
rip_status rip_csv_next(rip_csv *r, const rip_csv_record **rec, char err[RIP_ERR_LEN]);

/*
** Read the header (the first record) and map it: col[c] receives the field
** index of cols[c].name, or -1 when the column is absent.  Errors
** (RIP_S_DATA, `FILE:ROW: header: ...`): no header (empty file), a column
** named twice, a required column missing, and, unless allow_unknown, a
** name not in cols.  The header's names are kept for later messages.
*/
rip_status rip_csv_read_header(rip_csv *r, const rip_csv_column *cols, size_t ncols, bool allow_unknown,
                               int *col, char err[RIP_ERR_LEN]);

/* The number of header fields (0 before rip_csv_read_header). */
size_t rip_csv_width(const rip_csv *r);

/*
** A data record must have exactly as many fields as the header.  Otherwise
** RIP_S_DATA with `FILE:ROW: NAME: missing (N fields, the header has M)`,
** NAME being the first absent column, or `FILE:ROW: row: N fields, the
** header has M (extra fields past the last column)`.
*/
rip_status rip_csv_check_width(const rip_csv *r, const rip_csv_record *rec, char err[RIP_ERR_LEN]);

/* The header name of field i, or "field N" (1-based) when there is none;
** the text lives until the next call with the same reader. */
const char *rip_csv_field_name(rip_csv *r, size_t i);

/* The file name given to rip_csv_open. */
const char *rip_csv_fname(const rip_csv *r);

/*
** Strict decimal integer: an optional '-', then one or more digits, nothing
** else (no spaces, no '+', no hex), within [lo, hi].  Returns 0 when s is
** such an integer in range; 1 when it is not an integer (empty, stray
** characters); 2 when it is an integer outside [lo, hi], including values
** that do not fit in 64 bits (*v is then unchanged).
*/
int rip_csv_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *v);

/*
** Field i of rec as an integer in [lo, hi] (rip_csv_parse_int).  RIP_OK,
** or RIP_S_DATA with `FILE:ROW: NAME: expected an integer, got 'x'` or
** `FILE:ROW: NAME: V is out of range [lo, hi]`.
*/
rip_status rip_csv_int(rip_csv *r, const rip_csv_record *rec, size_t i, int64_t lo, int64_t hi, int64_t *v,
                       char err[RIP_ERR_LEN]);

/* Write `FILE:ROW: FIELD: ` + the formatted text into err. */
void rip_csv_errorf(const rip_csv *r, int64_t row, const char *field, char err[RIP_ERR_LEN], const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A field's text made safe for a one-line message: at most max bytes
** (then "..."), control characters shown as '?'. */
void rip_csv_show(const char *s, size_t max, char *out, size_t out_len);

#endif
