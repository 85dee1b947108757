/*
** test_svg.c — the SVG canvas (src/io/svg.c): its one number format, the
** escaping of text, the page it opens and closes, and the sticky errors
** (a non-finite number, a failed write).  Every expected string is typed
** here by hand.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* What the calls in draw() write, as a string (freed by the caller). */
static char *drawn(void (*draw)(rip_svg *), rip_status *st, char err[RIP_ERR_LEN])
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    rip_svg c;
    rip_svg_begin(&c, f, 100, 50.5, "sans-serif", 11);
    draw(&c);
    *st = rip_svg_end(&c, "test.svg", err);
    fclose(f);
    return buf;
}

Test(svg, numbers_have_at_most_two_decimals_without_trailing_zeros)
{
    static const struct { double v; const char *want; } cases[] = {
        {0, "0"}, {12, "12"}, {12.5, "12.5"}, {12.25, "12.25"}, {12.254, "12.25"}, {12.256, "12.26"},
        {-3.1, "-3.1"}, {-0.001, "0"}, {0.005, "0.01"}, {-0.005, "-0.01"}, {999999.999, "1000000"},
        {1e-9, "0"}, {7.10, "7.1"}, {100.04, "100.04"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        cr_expect(rip_svg_num(buf, cases[i].v), "%g", cases[i].v);
        cr_expect_str_eq(buf, cases[i].want, "%.6f", cases[i].v);
    }
    char buf[32];
    cr_expect_not(rip_svg_num(buf, NAN));
    cr_expect_not(rip_svg_num(buf, INFINITY));
    cr_expect_not(rip_svg_num(buf, -INFINITY));
}

static void shapes(rip_svg *c)
{
    rip_svg_rect(c, 1, 2.5, 3, 4, "fill=\"red\"");
    rip_svg_line(c, 0, 0, 10, 10.75, NULL);
    rip_svg_circle(c, 5, 5, 2, "");
    rip_svg_text(c, 3, 4, "text-anchor=\"end\"", "a < b & %d > %.1f", 7, 2.25);
    rip_svg_rect_titled(c, 0, 0, 1, 1, NULL, "%s", "<t>");
    rip_svg_polyline_begin(c, "stroke=\"blue\"");
    rip_svg_point(c, 1, 2);
    rip_svg_point(c, 3.5, 4);
    rip_svg_polyline_end(c);
}

Test(svg, a_drawing_is_the_page_and_its_shapes)
{
    rip_status st;
    char err[RIP_ERR_LEN];
    char *s = drawn(shapes, &st, err);
    cr_expect_eq(st, RIP_OK, "%s", err);
    cr_expect_str_eq(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"50.5\" "
                        "viewBox=\"0 0 100 50.5\" font-family=\"sans-serif\" font-size=\"11\">\n"
                        "<rect width=\"100\" height=\"50.5\" fill=\"white\"/>\n"
                        "<rect x=\"1\" y=\"2.5\" width=\"3\" height=\"4\" fill=\"red\"/>\n"
                        "<line x1=\"0\" y1=\"0\" x2=\"10\" y2=\"10.75\"/>\n"
                        "<circle cx=\"5\" cy=\"5\" r=\"2\"/>\n"
                        "<text x=\"3\" y=\"4\" text-anchor=\"end\">a &lt; b &amp; 7 &gt; 2.2</text>\n"
                        "<rect x=\"0\" y=\"0\" width=\"1\" height=\"1\"><title>&lt;t&gt;</title></rect>\n"
                        "<polyline stroke=\"blue\" points=\"1,2 3.5,4\"/>\n"
                        "</svg>\n");
    free(s);
}

static void nonfinite_coordinate(rip_svg *c)
{
    rip_svg_text(c, 1, 1, NULL, "before");
    rip_svg_rect(c, NAN, 0, 1, 1, NULL);
    rip_svg_text(c, 1, 1, NULL, "after");
}

static void nonfinite_text(rip_svg *c)
{
    rip_svg_text(c, 1, 1, NULL, "%.1f layers", INFINITY);
}

Test(svg, a_non_finite_number_fails_the_drawing_and_nothing_follows_it)
{
    rip_status st;
    char err[RIP_ERR_LEN];
    char *s = drawn(nonfinite_coordinate, &st, err);
    cr_expect_eq(st, RIP_S_INTERNAL);
    cr_expect_str_eq(err, "test.svg: a coordinate is not a finite number");
    cr_expect_not_null(strstr(s, "before"));
    cr_expect_null(strstr(s, "after"), "%s", s);
    cr_expect_null(strstr(s, "nan"), "%s", s);
    free(s);
    s = drawn(nonfinite_text, &st, err);
    cr_expect_eq(st, RIP_S_INTERNAL);
    cr_expect_null(strstr(s, "inf"), "%s", s);
    free(s);
}

Test(svg, a_failed_write_is_an_io_error)
{
    FILE *f = fopen("/dev/full", "w");   /* Linux: every write fails with ENOSPC */
    cr_assert_not_null(f, "/dev/full");
    setvbuf(f, NULL, _IONBF, 0);
    rip_svg c;
    char err[RIP_ERR_LEN];
    rip_svg_begin(&c, f, 10, 10, NULL, 0);
    rip_svg_rect(&c, 0, 0, 1, 1, NULL);
    cr_expect_eq(rip_svg_end(&c, "full.svg", err), RIP_S_IO);
    cr_expect_str_eq(err, "full.svg: cannot write the drawing");
    fclose(f);
}
