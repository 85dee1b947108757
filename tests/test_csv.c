/*
** test_csv.c — the one CSV reader (src/io/csv.h): the RFC 4180 dialect
** (quotes, "" escapes, commas, CR and LF inside quotes), CRLF and LF, a
** UTF-8 BOM, empty fields, lines longer than 1 MB, no final newline, blank
** lines, ragged rows, strict integers, and every malformed record reported
** as FILE:ROW: FIELD: problem with ROW the line the record starts on.
** Expected values are written out by hand from the input texts.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"

/* A reader over the first len bytes of text (binary: NULs allowed). */
typedef struct mem_csv {
    FILE *f;
    rip_csv *r;
} mem_csv;

static mem_csv open_mem(const char *text, size_t len)
{
    mem_csv m;
    char err[RIP_ERR_LEN];
    m.f = fmemopen((void *)text, len, "r");
    cr_assert_not_null(m.f);
    cr_assert_eq(rip_csv_open(m.f, "t.csv", &m.r, err), RIP_OK, "%s", err);
    return m;
}

static void close_mem(mem_csv *m)
{
    rip_csv_close(m->r);
    fclose(m->f);
}

/* The next record, which must exist. */
static const rip_csv_record *next_ok(mem_csv *m)
{
    const rip_csv_record *rec;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_csv_next(m->r, &rec, err), RIP_OK, "%s", err);
    cr_assert_not_null(rec, "a record, not the end");
    return rec;
}

static void expect_end(mem_csv *m)
{
    const rip_csv_record *rec;
    char err[RIP_ERR_LEN];
    cr_expect_eq(rip_csv_next(m->r, &rec, err), RIP_OK, "%s", err);
    cr_expect_null(rec, "the end of the input");
}

/* The next record is malformed: RIP_S_DATA with the message starting `want`. */
static void expect_bad(mem_csv *m, const char *want, const char *also)
{
    const rip_csv_record *rec;
    char err[RIP_ERR_LEN];
    cr_expect_eq(rip_csv_next(m->r, &rec, err), RIP_S_DATA, "want an error %s", want);
    cr_expect(strncmp(err, want, strlen(want)) == 0, "want '%s...', got '%s'", want, err);
    if (also)
        cr_expect(strstr(err, also) != NULL, "want '%s' in '%s'", also, err);
    cr_expect(strchr(err, '\n') == NULL, "one line: %s", err);
}

Test(csv, quotes_commas_newlines_and_escaped_quotes)
{
    static const char t[] = "a,\"b,c\",\"d\"\"e\",\"f\ng\",\"\"\nnext,row\n";
    mem_csv m = open_mem(t, sizeof t - 1);
    const rip_csv_record *r = next_ok(&m);
    cr_assert_eq(r->n, 5u);
    cr_expect_str_eq(r->field[0], "a");
    cr_expect_str_eq(r->field[1], "b,c");
    cr_expect_str_eq(r->field[2], "d\"e");
    cr_expect_str_eq(r->field[3], "f\ng");
    cr_expect_str_eq(r->field[4], "", "\"\" is an empty field");
    cr_expect_eq(r->len[3], 3u);
    cr_expect_eq(r->line, 1);
    r = next_ok(&m);
    cr_expect_eq(r->line, 3, "the quoted line break moved the next record to line 3");
    cr_expect(r->n == 2 && strcmp(r->field[1], "row") == 0);
    expect_end(&m);
    close_mem(&m);
}

Test(csv, crlf_lf_bom_and_no_final_newline)
{
    static const char t[] = "\xEF\xBB\xBFid,x\r\n1,\"a\r\nb\"\r\n2,c\n3,d";
    mem_csv m = open_mem(t, sizeof t - 1);
    const rip_csv_record *r = next_ok(&m);
    cr_expect_str_eq(r->field[0], "id", "the BOM is not part of the first name");
    cr_expect_str_eq(r->field[1], "x", "CR of CRLF is not data");
    r = next_ok(&m);
    cr_expect_str_eq(r->field[1], "a\r\nb", "CRLF inside quotes is data");
    cr_expect_eq(r->line, 2);
    r = next_ok(&m);
    cr_expect_eq(r->line, 4);
    cr_expect_str_eq(r->field[1], "c");
    r = next_ok(&m);
    cr_expect_eq(r->line, 5);
    cr_expect_str_eq(r->field[1], "d", "the last line needs no line end");
    expect_end(&m);
    close_mem(&m);
}

Test(csv, empty_fields_are_fields_and_blank_lines_are_skipped)
{
    static const char t[] = "a,,b,\n\n  \t \n,\n\"\"\n";
    mem_csv m = open_mem(t, sizeof t - 1);
    const rip_csv_record *r = next_ok(&m);
    cr_assert_eq(r->n, 4u, "a, empty, b, empty");
    cr_expect(strcmp(r->field[1], "") == 0 && strcmp(r->field[3], "") == 0);
    r = next_ok(&m);
    cr_expect_eq(r->line, 4, "lines 2 and 3 are blank and skipped, but counted");
    cr_expect_eq(r->n, 2u, "',' is two empty fields");
    r = next_ok(&m);
    cr_expect_eq(r->n, 1u, "a quoted empty field is a record, not a blank line");
    expect_end(&m);
    close_mem(&m);
}

Test(csv, lines_longer_than_a_megabyte)
{
    const size_t big = 3u << 20; /* 3 MiB field, then a quoted 2 MiB field */
    char *t = malloc(big + (2u << 20) + 64);
    cr_assert_not_null(t);
    size_t n = 0;
    memset(t, 'x', big);
    n += big;
    t[n++] = ',';
    t[n++] = '"';
    memset(t + n, 'y', 2u << 20);
    n += 2u << 20;
    t[n++] = '"';
    memcpy(t + n, "\nz\n", 3);
    n += 3;
    mem_csv m = open_mem(t, n);
    const rip_csv_record *r = next_ok(&m);
    cr_assert_eq(r->n, 2u);
    cr_expect_eq(r->len[0], big);
    cr_expect_eq(r->len[1], (size_t)2 << 20);
    cr_expect(r->field[0][big - 1] == 'x' && r->field[1][0] == 'y');
    r = next_ok(&m);
    cr_expect_str_eq(r->field[0], "z");
    cr_expect_eq(r->line, 2);
    expect_end(&m);
    close_mem(&m);
    free(t);
}

Test(csv, malformed_records_name_row_and_field_and_resume)
{
    static const char t[] = "a,b,c\n"
                            "1,x\"y,3\n"        /* 2: quote in an unquoted field */
                            "1,\"q\"z,3\n"      /* 3: text after the closing quote */
                            "1,2,3\rX\n"        /* 4: a lone CR */
                            "ok,1,2\n"          /* 5 */
                            "1,\"never closed\n2,3\n";
    mem_csv m = open_mem(t, sizeof t - 1);
    char err[RIP_ERR_LEN];
    int col[3];
    static const rip_csv_column cols[3] = {{"a", true}, {"b", true}, {"c", true}};
    cr_assert_eq(rip_csv_read_header(m.r, cols, 3, false, col, err), RIP_OK, "%s", err);
    expect_bad(&m, "t.csv:2: b: ", "quote inside an unquoted field");
    expect_bad(&m, "t.csv:3: b: ", "after the closing quote");
    expect_bad(&m, "t.csv:4: c: ", "carriage return");
    const rip_csv_record *r = next_ok(&m);
    cr_expect_eq(r->line, 5, "the reader resumes at the next line");
    cr_expect_str_eq(r->field[0], "ok");
    expect_bad(&m, "t.csv:6: b: ", "not closed before the end of the file");
    close_mem(&m);

    static const char nul[] = "a,b\n1,2\0\n";
    m = open_mem(nul, sizeof nul - 1);
    next_ok(&m);
    expect_bad(&m, "t.csv:2: field 2: ", "NUL");
    close_mem(&m);
}

Test(csv, header_mapping_and_ragged_rows)
{
    static const rip_csv_column cols[3] = {{"id", true}, {"size", true}, {"note", false}};
    char err[RIP_ERR_LEN];
    int col[3];

    static const char t[] = "size,id\n8,a\n8\n8,a,extra\n";
    mem_csv m = open_mem(t, sizeof t - 1);
    cr_assert_eq(rip_csv_read_header(m.r, cols, 3, false, col, err), RIP_OK, "%s", err);
    cr_expect(col[0] == 1 && col[1] == 0 && col[2] == -1, "any order; an optional column may be absent");
    cr_expect_eq(rip_csv_width(m.r), 2u);
    const rip_csv_record *r = next_ok(&m);
    cr_expect_eq(rip_csv_check_width(m.r, r, err), RIP_OK);
    r = next_ok(&m);
    cr_expect_eq(rip_csv_check_width(m.r, r, err), RIP_S_DATA);
    cr_expect_str_eq(err, "t.csv:3: id: missing (1 fields, the header has 2)");
    r = next_ok(&m);
    cr_expect_eq(rip_csv_check_width(m.r, r, err), RIP_S_DATA);
    cr_expect_str_eq(err, "t.csv:4: row: 3 fields, the header has 2 (extra fields past the last column)");
    close_mem(&m);

    static const struct {
        const char *text, *want;
        bool allow_unknown;
    } bad[] = {
        {"", "t.csv:1: header: no header row", false},
        {"\n\n", "t.csv:3: header: no header row", false},
        {"id,size,bogus\n", "t.csv:1: header: unknown column 'bogus'", false},
        {"id,size,id\n", "t.csv:1: header: column 'id' given twice", false},
        {"\nid,note\n", "t.csv:2: header: required column 'size' missing", true},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = open_mem(bad[i].text, strlen(bad[i].text));
        cr_expect_eq(rip_csv_read_header(m.r, cols, 3, bad[i].allow_unknown, col, err), RIP_S_DATA, "%s",
                     bad[i].text);
        cr_expect(strncmp(err, bad[i].want, strlen(bad[i].want)) == 0, "want '%s', got '%s'", bad[i].want, err);
        close_mem(&m);
    }
    m = open_mem("id,size,bogus\n", 14);
    cr_expect_eq(rip_csv_read_header(m.r, cols, 3, true, col, err), RIP_OK, "unknown columns allowed: %s", err);
    close_mem(&m);
}

Test(csv, strict_integers)
{
    static const struct {
        const char *s;
        int want;
        int64_t v;
    } cases[] = {
        {"0", 0, 0},
        {"42", 0, 42},
        {"-7", 0, -7},
        {"007", 0, 7},
        {"9223372036854775807", 0, INT64_MAX},
        {"-9223372036854775808", 0, INT64_MIN},
        {"9223372036854775808", 2, 0},
        {"-9223372036854775809", 2, 0},
        {"99999999999999999999999999", 2, 0},
        {"", 1, 0},
        {"-", 1, 0},
        {" 1", 1, 0},
        {"1 ", 1, 0},
        {"+1", 1, 0},
        {"1e3", 1, 0},
        {"0x10", 1, 0},
        {"1.0", 1, 0},
        {"1,2", 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = 12345;
        int k = rip_csv_parse_int(cases[i].s, INT64_MIN, INT64_MAX, &v);
        cr_expect_eq(k, cases[i].want, "'%s': %d, want %d", cases[i].s, k, cases[i].want);
        cr_expect_eq(v, cases[i].want == 0 ? cases[i].v : 12345, "'%s'", cases[i].s);
    }
    int64_t v;
    cr_expect_eq(rip_csv_parse_int("5", 1, 4, &v), 2, "above the range");
    cr_expect_eq(rip_csv_parse_int("0", 1, 4, &v), 2, "below the range");
    cr_expect_eq(rip_csv_parse_int("4", 1, 4, &v), 0);

    /* messages name the row and the column */
    static const char t[] = "n,m\n5x,3\n1,99999999999999999999\n1,7\n";
    mem_csv m = open_mem(t, sizeof t - 1);
    char err[RIP_ERR_LEN];
    int col[2];
    static const rip_csv_column cols[2] = {{"n", true}, {"m", true}};
    cr_assert_eq(rip_csv_read_header(m.r, cols, 2, false, col, err), RIP_OK);
    const rip_csv_record *r = next_ok(&m);
    cr_expect_eq(rip_csv_int(m.r, r, 0, 0, 10, &v, err), RIP_S_DATA);
    cr_expect_str_eq(err, "t.csv:2: n: expected an integer, got '5x'");
    r = next_ok(&m);
    cr_expect_eq(rip_csv_int(m.r, r, 1, INT64_MIN, INT64_MAX, &v, err), RIP_S_DATA);
    cr_expect_str_eq(err, "t.csv:3: m: 99999999999999999999 does not fit in a 64-bit integer");
    r = next_ok(&m);
    cr_expect_eq(rip_csv_int(m.r, r, 1, 0, 5, &v, err), RIP_S_DATA);
    cr_expect_str_eq(err, "t.csv:4: m: 7 is out of range [0, 5]");
    close_mem(&m);
}

Test(csv, messages_show_fields_safely)
{
    char out[64];
    rip_csv_show("a\nb\tc", 40, out, sizeof out);
    cr_expect_str_eq(out, "a?b?c", "control characters shown as '?'");
    rip_csv_show("abcdefgh", 4, out, sizeof out);
    cr_expect_str_eq(out, "abcd...");
}
