/*
** db_pages.c — the rows of a rowid table read from the b-tree pages of the
** database file (see db_pages.h).
**
** Why: the values pass of the one check (db_check_values.c) looks at every
** value of layer_results, 38 columns of each of the 1,000,000 rows of the
** 1M sweep.  Stepped through SQLite (a column opcode per value, then a C
** aggregate) that costs about 0.6 CPU-s, twice the quick_check that has
** just read the same pages; decoded here from the pages it costs about a
** tenth of that.  SQLite's reading stays the reference: whatever this file
** does not handle exactly, it leaves to SQLite (RIP_PAGES_UNSURE).
**
** What it reads (SQLite's file format, sqlite.org/fileformat2.html):
** page 1 starts with the 100-byte file header (page size at offset 16, 1
** meaning 65536; the read and write versions at 18 and 19, 1 for a
** rollback journal and 2 for WAL; the bytes reserved at the end of each
** page at 20).  A table b-tree page starts with its type (0x05 interior,
** 0x0d leaf), the number of cells at offset 3 and, on an interior page, the
** right-most child at offset 8; then an array of 2-byte cell offsets
** (from offset 12 on interior pages, 8 on leaves).  An interior cell is a
** 4-byte child page number and a varint key; a leaf cell is a varint
** payload size, a varint rowid, and the payload, which spills onto
** overflow pages when larger than the usable page size minus 35.  A record
** (the payload) is a varint header size, one varint serial type per field
** (0 NULL; 1, 2, 3, 4, 5, 6 an integer of 1, 2, 3, 4, 6, 8 bytes, big
** endian two's complement; 7 a real; 8 and 9 the integers 0 and 1; 10 and
** 11 reserved; even N >= 12 a blob and odd N >= 13 a text of (N - 12) / 2
** or (N - 13) / 2 bytes), then the field bodies in order.  Integers are
** stored big-endian, varints in 7-bit groups with the high bit set on all
** but the last, the ninth byte (if any) giving 8 bits.
**
** Pages are read through SQLite's own handle of the file (so under the
** lock of the caller's read transaction), one level of the b-tree at a
** time, each level in file order in runs of up to 256 KiB, every page
** once.  Every offset and length is checked against the page it is on.
*/
#include "db_pages.h"

#include <stdlib.h>
#include <string.h>

enum {
    HEADER_BYTES = 100,
    INTERIOR_TABLE = 0x05,
    LEAF_TABLE = 0x0d,
    MAX_LEVELS = 40,
    CHUNK_BYTES = 1 << 18,
};

/* A growable list of page numbers. */
typedef struct page_list {
    uint32_t *p;
    size_t n, cap;
} page_list;

typedef struct reader {
    sqlite3_file *f;
    int64_t page_size, usable, n_pages;
    unsigned char *chunk;   /* room for per_chunk pages */
    int64_t per_chunk;
    unsigned char *seen;    /* one bit per page: visited */
    int n_cols;
    rip_pages_row_fn row;
    void *ctx;
    int64_t value[RIP_PAGES_MAX_COLS];
    unsigned char type[RIP_PAGES_MAX_COLS];
} reader;

static bool push(page_list *l, uint32_t v)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        uint32_t *more = realloc(l->p, cap * sizeof *more);
        if (!more)
            return false;
        l->p = more;
        l->cap = cap;
    }
    l->p[l->n++] = v;
    return true;
}

static int by_page(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static unsigned be16(const unsigned char *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The big-endian two's complement integer of the n (1 to 8) bytes at p. */
static int64_t be_int(const unsigned char *p, int n)
{
    uint64_t u = p[0] & 0x80 ? UINT64_MAX : 0;
    for (int i = 0; i < n; i++)
        u = u << 8 | p[i];
    return (int64_t)u;
}

/* The varint at p into *v: its length (1 to 9), or 0 when it would run past end. */
static int varint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) {
        if (p + i >= end)
            return 0;
        x = x << 7 | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    if (p + 8 >= end)
        return 0;
    *v = x << 8 | p[8];
    return 9;
}

/* n bytes of the file at offset off into buf: true, or false on any error or short read. */
static bool read_file(const reader *r, void *buf, int64_t n, int64_t off)
{
    return n <= INT32_MAX && r->f->pMethods->xRead(r->f, buf, (int)n, off) == SQLITE_OK;
}

/* One record (rec, size bytes, all on its page): its fields to the callback. */
static rip_pages_result record(reader *r, int64_t rowid, const unsigned char *rec, int64_t size)
{
    const unsigned char *end = rec + size;
    uint64_t header;
    int k = varint(rec, end, &header);
    if (k == 0 || header < (uint64_t)k || header > (uint64_t)size)
        return RIP_PAGES_UNSURE;
    const unsigned char *h = rec + k, *h_end = rec + header, *body = h_end;
    /* serial types 0 to 11: the type and the body's length (10, 11: reserved, type 0) */
    static const unsigned char type_of[12] = {SQLITE_NULL, SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER,
                                              SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_FLOAT,
                                              SQLITE_INTEGER, SQLITE_INTEGER, 0, 0};
    static const unsigned char len_of[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
    for (int c = 0; c < r->n_cols; c++) {
        uint64_t t, len;
        if (h < h_end && *h < 0x80) { /* a one-byte varint: every serial type of an integer */
            t = *h++;
        } else {
            int m = h < h_end ? varint(h, h_end, &t) : 0;
            if (m == 0)
                return RIP_PAGES_UNSURE; /* fewer fields than columns, or a broken header */
            h += m;
        }
        if (t < 12) {
            r->type[c] = type_of[t];
            len = len_of[t];
            if (r->type[c] == 0)
                return RIP_PAGES_UNSURE;
        } else {
            r->type[c] = t & 1 ? SQLITE_TEXT : SQLITE_BLOB;
            len = (t - 12) / 2; /* (an odd t: (t - 13) / 2, the same) */
        }
        if (len > (uint64_t)(end - body))
            return RIP_PAGES_UNSURE;
        r->value[c] = r->type[c] != SQLITE_INTEGER ? 0 : len > 0 ? be_int(body, (int)len) : (int64_t)t - 8;
        body += len;
    }
    if (h != h_end || body != end)
        return RIP_PAGES_UNSURE; /* more fields than columns, or bytes past the last */
    return r->row(r->ctx, rowid, r->value, r->type, r->n_cols) ? RIP_PAGES_DONE : RIP_PAGES_STOPPED;
}

/* Every row of the leaf page p. */
static rip_pages_result leaf_rows(reader *r, const unsigned char *p)
{
    const int64_t n = be16(p + 3), cells = 8 + 2 * n;
    const unsigned char *end = p + r->usable;
    if (cells > r->usable)
        return RIP_PAGES_UNSURE;
    for (int64_t i = 0; i < n; i++) {
        const int64_t off = be16(p + 8 + 2 * i);
        if (off < cells || off >= r->usable)
            return RIP_PAGES_UNSURE;
        const unsigned char *c = p + off;
        uint64_t size, key;
        int k1 = varint(c, end, &size), k2 = k1 ? varint(c + k1, end, &key) : 0;
        /* (larger than usable - 35: it spills onto overflow pages) */
        if (k2 == 0 || size > (uint64_t)(r->usable - 35) || size > (uint64_t)(end - (c + k1 + k2)))
            return RIP_PAGES_UNSURE;
        rip_pages_result res = record(r, (int64_t)key, c + k1 + k2, (int64_t)size);
        if (res != RIP_PAGES_DONE)
            return res;
    }
    return RIP_PAGES_DONE;
}

/* The children of the interior page p onto next. */
static rip_pages_result children(const reader *r, const unsigned char *p, page_list *next)
{
    const int64_t n = be16(p + 3), cells = 12 + 2 * n;
    if (cells > r->usable)
        return RIP_PAGES_UNSURE;
    for (int64_t i = 0; i <= n; i++) {
        uint32_t child = be32(p + 8); /* the right-most, after the cells */
        if (i < n) {
            const int64_t off = be16(p + 12 + 2 * i);
            if (off < cells || off + 4 > r->usable)
                return RIP_PAGES_UNSURE;
            child = be32(p + off);
        }
        if (child < 2 || child > r->n_pages || !push(next, child))
            return RIP_PAGES_UNSURE;
    }
    return RIP_PAGES_DONE;
}

/* One level of the b-tree (level, sorted here): leaves' rows to the callback, interior pages' children onto next. */
static rip_pages_result read_level(reader *r, page_list *level, page_list *next)
{
    qsort(level->p, level->n, sizeof *level->p, by_page);
    for (size_t i = 0; i < level->n;) {
        size_t j = i + 1;
        while (j < level->n && (int64_t)(j - i) < r->per_chunk && level->p[j] == level->p[j - 1] + 1)
            j++;
        for (size_t k = i; k < j; k++) {
            uint32_t pg = level->p[k];
            if (r->seen[pg / 8] & (1u << (pg % 8)))
                return RIP_PAGES_UNSURE; /* a page of two parents */
            r->seen[pg / 8] |= (unsigned char)(1u << (pg % 8));
        }
        if (!read_file(r, r->chunk, (int64_t)(j - i) * r->page_size, (int64_t)(level->p[i] - 1) * r->page_size))
            return RIP_PAGES_UNSURE;
        for (size_t k = i; k < j; k++) {
            const unsigned char *p = r->chunk + (int64_t)(k - i) * r->page_size;
            rip_pages_result res = p[0] == LEAF_TABLE       ? leaf_rows(r, p)
                                   : p[0] == INTERIOR_TABLE ? children(r, p, next)
                                                            : RIP_PAGES_UNSURE;
            if (res != RIP_PAGES_DONE)
                return res;
        }
        i = j;
    }
    return RIP_PAGES_DONE;
}

/* One integer of sql (text bound to ?1 when given): true, or false on any failure. */
static bool one_int(sqlite3 *db, const char *sql, const char *text, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && text)
        rc = sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    bool ok = rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER;
    if (ok)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return ok;
}

/* The file's page geometry into r, from SQLite and the file header: false when this reader does not apply. */
static bool open_reader(sqlite3 *db, reader *r, int64_t *root, const char *table)
{
    unsigned char h[HEADER_BYTES];
    if (sqlite3_txn_state(db, "main") != SQLITE_TXN_READ)
        return false; /* (a write transaction may hold pages not yet in the file) */
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &r->f) != SQLITE_OK || !r->f ||
        !r->f->pMethods)
        return false;
    if (!one_int(db, "PRAGMA main.page_size", NULL, &r->page_size) ||
        !one_int(db, "PRAGMA main.page_count", NULL, &r->n_pages) ||
        !one_int(db, "SELECT rootpage FROM main.sqlite_master WHERE type = 'table' AND name = ?1", table, root))
        return false;
    if (r->page_size < 512 || r->page_size > 65536 || r->n_pages < 2 || r->n_pages > UINT32_MAX || *root < 2 ||
        *root > r->n_pages || !read_file(r, h, sizeof h, 0))
        return false;
    const int64_t stored_size = be16(h + 16) == 1 ? 65536 : be16(h + 16);
    r->usable = r->page_size - h[20];
    /* a rollback journal (18, 19: 1); WAL pages may live in the -wal file */
    return memcmp(h, "SQLite format 3", 16) == 0 && stored_size == r->page_size && h[18] == 1 && h[19] == 1 &&
           r->usable >= 480;
}

rip_pages_result rip_db_pages_rows(sqlite3 *db, const char *table, int n_cols, rip_pages_row_fn row, void *ctx)
{
    reader *r = calloc(1, sizeof *r);
    page_list level = {0}, next = {0};
    int64_t root = 0;
    rip_pages_result res = RIP_PAGES_UNSURE;
    if (!r || n_cols < 1 || n_cols > RIP_PAGES_MAX_COLS || !open_reader(db, r, &root, table))
        goto done;
    r->n_cols = n_cols;
    r->row = row;
    r->ctx = ctx;
    r->per_chunk = CHUNK_BYTES / r->page_size;
    r->chunk = malloc((size_t)(r->per_chunk * r->page_size));
    r->seen = calloc((size_t)(r->n_pages / 8 + 1), 1);
    if (!r->chunk || !r->seen || !push(&level, (uint32_t)root))
        goto done;
    for (int depth = 0; level.n > 0 && depth < MAX_LEVELS; depth++) {
        next.n = 0;
        if ((res = read_level(r, &level, &next)) != RIP_PAGES_DONE)
            goto done;
        page_list t = level;
        level = next;
        next = t;
    }
    res = level.n == 0 ? RIP_PAGES_DONE : RIP_PAGES_UNSURE;
done:
    free(level.p);
    free(next.p);
    if (r) {
        free(r->chunk);
        free(r->seen);
    }
    free(r);
    return res;
}
