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

/* ---- arrowheads, axes, colour scales: what figures share ---- */

Test(svg, nice_steps_are_one_two_or_five_times_a_power_of_ten)
{
    static const struct { double span; int n; double want; } cases[] = {
        {53, 5, 20}, {91, 5, 20}, {100, 5, 20}, {100, 10, 10}, {1.5, 6, 0.5}, {7, 4, 2}, {0.3, 3, 0.1},
        {400, 4, 100}, {1, 1, 1}, {0, 5, 1}, {-3, 5, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_float_eq(rip_svg_nice_step(cases[i].span, cases[i].n), cases[i].want, 1e-12, "span %g n %d",
                           cases[i].span, cases[i].n);
}

static void linear_axes(rip_svg *c)
{
    rip_svg_arrow_marker(c, "a", "#333");
    rip_svg_axis x = {RIP_SVG_BOTTOM, 40, 10, 90, 0, 1, false, 30};
    rip_svg_axis_linear(c, &x, 0.5, "%");
    rip_svg_axis_title(c, &x, 20, "share");
    rip_svg_axis y = {RIP_SVG_LEFT, 10, 40, 0, 0, 8, false, 0};
    rip_svg_axis_linear(c, &y, 4, NULL);
    rip_svg_axis_title(c, &y, 25, "layers");
}

Test(svg, a_linear_axis_has_a_line_ticks_labels_and_a_title)
{
    rip_status st;
    char err[RIP_ERR_LEN];
    char *s = drawn(linear_axes, &st, err);
    cr_expect_eq(st, RIP_OK, "%s", err);
    const char *body = strstr(s, "<defs>");
    cr_assert_not_null(body, "%s", s);
    cr_expect_str_eq(body,
                     "<defs><marker id=\"a\" viewBox=\"0 0 10 10\" refX=\"7\" refY=\"5\" markerWidth=\"4\" "
                     "markerHeight=\"4\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#333\"/></marker></defs>\n"
                     "<line x1=\"10\" y1=\"40\" x2=\"90\" y2=\"40\" stroke=\"#333\"/>\n"
                     "<line x1=\"10\" y1=\"40\" x2=\"10\" y2=\"10\" stroke=\"#e4e4e4\"/>\n"
                     "<line x1=\"10\" y1=\"40\" x2=\"10\" y2=\"44\" stroke=\"#333\"/>\n"
                     "<text x=\"10\" y=\"55\" text-anchor=\"middle\" font-size=\"10\">0%</text>\n"
                     "<line x1=\"50\" y1=\"40\" x2=\"50\" y2=\"10\" stroke=\"#e4e4e4\"/>\n"
                     "<line x1=\"50\" y1=\"40\" x2=\"50\" y2=\"44\" stroke=\"#333\"/>\n"
                     "<text x=\"50\" y=\"55\" text-anchor=\"middle\" font-size=\"10\">0.5%</text>\n"
                     "<line x1=\"90\" y1=\"40\" x2=\"90\" y2=\"10\" stroke=\"#e4e4e4\"/>\n"
                     "<line x1=\"90\" y1=\"40\" x2=\"90\" y2=\"44\" stroke=\"#333\"/>\n"
                     "<text x=\"90\" y=\"55\" text-anchor=\"middle\" font-size=\"10\">1%</text>\n"
                     "<text x=\"50\" y=\"60\" text-anchor=\"middle\">share</text>\n"
                     "<line x1=\"10\" y1=\"40\" x2=\"10\" y2=\"0\" stroke=\"#333\"/>\n"
                     "<line x1=\"10\" y1=\"40\" x2=\"6\" y2=\"40\" stroke=\"#333\"/>\n"
                     "<text x=\"4\" y=\"43.5\" text-anchor=\"end\" font-size=\"10\">0</text>\n"
                     "<line x1=\"10\" y1=\"20\" x2=\"6\" y2=\"20\" stroke=\"#333\"/>\n"
                     "<text x=\"4\" y=\"23.5\" text-anchor=\"end\" font-size=\"10\">4</text>\n"
                     "<line x1=\"10\" y1=\"0\" x2=\"6\" y2=\"0\" stroke=\"#333\"/>\n"
                     "<text x=\"4\" y=\"3.5\" text-anchor=\"end\" font-size=\"10\">8</text>\n"
                     "<text x=\"-15\" y=\"20\" transform=\"rotate(-90 -15 20)\" text-anchor=\"middle\">layers</text>\n"
                     "</svg>\n");
    free(s);
}

static void log_axis(rip_svg *c)
{
    rip_svg_axis x = {RIP_SVG_RIGHT, 50, 40, 0, 5, 1000, true, 0};
    rip_svg_axis_log(c, &x);
}

Test(svg, a_log_axis_labels_its_decades_and_ticks_between_them)
{
    rip_status st;
    char err[RIP_ERR_LEN];
    char *s = drawn(log_axis, &st, err);
    cr_expect_eq(st, RIP_OK, "%s", err);
    /* 5 .. 1000 over 40 px: 10 at 40 - 40 log10(2) / log10(200) = 34.77 px, 100 at 17.38 */
    cr_expect_not_null(strstr(s, "<line x1=\"50\" y1=\"40\" x2=\"50\" y2=\"0\" stroke=\"#333\"/>\n"
                                 "<line x1=\"50\" y1=\"40\" x2=\"53\" y2=\"40\" stroke=\"#333\"/>\n"), "%s", s);
    cr_expect_not_null(strstr(s, "<line x1=\"50\" y1=\"34.77\" x2=\"55\" y2=\"34.77\" stroke=\"#333\"/>\n"
                                 "<text x=\"57\" y=\"38.27\" font-size=\"10\">10</text>\n"), "%s", s);
    cr_expect_not_null(strstr(s, "<text x=\"57\" y=\"20.88\" font-size=\"10\">100</text>\n"), "%s", s);
    cr_expect_not_null(strstr(s, "<text x=\"57\" y=\"3.5\" font-size=\"10\">10\xc2\xb3</text>\n"), "%s", s);
    /* 5..9, 20..90, 200..900 unlabelled and the three decades labelled: 3 labels */
    int ticks = 0, labels = 0;
    for (const char *p = s; (p = strstr(p, "x1=\"50\"")) != NULL; p++)
        ticks++;
    for (const char *p = s; (p = strstr(p, "<text")) != NULL; p++)
        labels++;
    cr_expect_eq(ticks, 1 + 5 + 9 + 9 + 1, "the axis line and 25 ticks: %s", s);
    cr_expect_eq(labels, 3);
    free(s);
}

static void scales(rip_svg *c)
{
    char buf[48];
    rip_svg_ramp_fill(buf, 0.5, 0xffffff, 0x0000ff);
    rip_svg_text(c, 0, 0, NULL, "%s", buf);
    rip_svg_ramp_fill(buf, 2, 0x102030, 0x405060);
    rip_svg_text(c, 0, 0, NULL, "%s", buf);
    rip_svg_colorbar(c, 1, 2, 3, 10, 2, 0xff0000, 0x00ff00);
    rip_svg_swatch(c, 5, 20, "fill=\"red\"", "unsafe");
}

Test(svg, ramps_colour_bars_and_swatches)
{
    rip_status st;
    char err[RIP_ERR_LEN];
    char *s = drawn(scales, &st, err);
    cr_expect_eq(st, RIP_OK, "%s", err);
    const char *body = strstr(s, "<text");
    cr_assert_not_null(body);
    cr_expect_str_eq(body, "<text x=\"0\" y=\"0\">fill=\"rgb(128,128,255)\"</text>\n"
                           "<text x=\"0\" y=\"0\">fill=\"rgb(64,80,96)\"</text>\n"
                           "<rect x=\"1\" y=\"7\" width=\"3\" height=\"5\" fill=\"rgb(255,0,0)\"/>\n"
                           "<rect x=\"1\" y=\"2\" width=\"3\" height=\"5\" fill=\"rgb(0,255,0)\"/>\n"
                           "<rect x=\"1\" y=\"2\" width=\"3\" height=\"10\" fill=\"none\" stroke=\"#333\"/>\n"
                           "<rect x=\"5\" y=\"11\" width=\"10\" height=\"10\" fill=\"red\"/>\n"
                           "<text x=\"19\" y=\"20\">unsafe</text>\n"
                           "</svg>\n");
    free(s);
}

static void bad_axis(rip_svg *c)
{
    rip_svg_axis x = {RIP_SVG_BOTTOM, 40, 10, 90, 0, 1, true, 0};   /* log from 0 */
    rip_svg_axis_log(c, &x);
}

Test(svg, a_log_axis_from_zero_fails_the_drawing)
{
    rip_status st;
    char err[RIP_ERR_LEN];
    free(drawn(bad_axis, &st, err));
    cr_expect_eq(st, RIP_S_INTERNAL);
}

static void chosen_ticks(rip_svg *c)
{
    rip_svg_axis x = {RIP_SVG_BOTTOM, 20, 0, 60, 1, 101, true, 5};
    rip_svg_axis_line(c, &x);
    rip_svg_axis_tick(c, &x, 11, "10");
    rip_svg_axis_tick(c, &x, 101, NULL);
}

Test(svg, ticks_a_figure_chooses)
{
    rip_status st;
    char err[RIP_ERR_LEN];
    char *s = drawn(chosen_ticks, &st, err);
    cr_expect_eq(st, RIP_OK, "%s", err);
    const char *body = strstr(s, "<line");
    cr_assert_not_null(body);
    /* 11 on a log axis 1..101 over 60 px: 60 log10(11) / log10(101) = 31.17 */
    cr_expect_str_eq(body, "<line x1=\"0\" y1=\"20\" x2=\"60\" y2=\"20\" stroke=\"#333\"/>\n"
                           "<line x1=\"31.17\" y1=\"20\" x2=\"31.17\" y2=\"15\" stroke=\"#e4e4e4\"/>\n"
                           "<line x1=\"31.17\" y1=\"20\" x2=\"31.17\" y2=\"24\" stroke=\"#333\"/>\n"
                           "<text x=\"31.17\" y=\"35\" text-anchor=\"middle\" font-size=\"10\">10</text>\n"
                           "<line x1=\"60\" y1=\"20\" x2=\"60\" y2=\"23\" stroke=\"#333\"/>\n"
                           "</svg>\n");
    free(s);
}
