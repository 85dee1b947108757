/*
** test_args.c — the table-driven option parser of src/cli/args.c, called
** directly: every way to give an option, every way to get one wrong (each
** exit 64 with one line naming the option), and the help it generates.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "skip.h"

static const rip_exit_doc exits[] = {{0, "fine"}, {64, "usage"}, {74, "cannot write"}};
static const char *const colors[] = {"red", "green", "blue", NULL};

/* One command with one option of each kind; values land in `v`. */
static struct {
    bool flag, quiet_given;
    int64_t n, shift, cap;
    double limit;
    const char *file;
    int color;
    const char *pos[2];
    size_t n_pos;
} v;

static bool parse_even(const char *s, void *dest, char *why, size_t n)
{
    snprintf(why, n, "an even number");
    int64_t x;
    if (!rip_arg_int(s, 0, 100, &x) || x % 2)
        return false;
    *(int64_t *)dest = x;
    return true;
}

static int64_t even;

static const rip_opt opts[] = {
    {.name = "--flag", .kind = RIP_OPT_FLAG, .dest = &v.flag, .flag_value = true, .help = "a flag"},
    {.name = "--n", .kind = RIP_OPT_INT, .dest = &v.n, .metavar = "N", .lo = 1, .hi = 10, .help = "one to ten"},
    {.name = "--limit", .kind = RIP_OPT_REAL, .dest = &v.limit, .metavar = "S", .lo = 0, .hi = INT64_MAX,
     .help = "seconds\nsecond line of help"},
    {.name = "--file", .kind = RIP_OPT_STR, .dest = &v.file, .metavar = "FILE", .help = "a file"},
    {.name = "--color", .kind = RIP_OPT_ENUM, .dest = &v.color, .metavar = "C", .choices = colors, .help = "a color"},
    {.name = "--even", .kind = RIP_OPT_CUSTOM, .dest = &even, .metavar = "E", .parse = parse_even, .help = "even"},
    {.name = "--shift", .kind = RIP_OPT_INT, .dest = &v.shift, .metavar = "D", .lo = INT64_MIN, .hi = INT64_MAX,
     .help = "any whole number (the command checks its range)"},
    {.name = "--cap", .kind = RIP_OPT_INT, .dest = &v.cap, .metavar = "C", .lo = INT64_MIN, .hi = 5,
     .help = "at most five"},
    {.name = "--quiet", .kind = RIP_OPT_FLAG, .dest = &v.flag, .flag_value = false, .given = &v.quiet_given,
     .help = "clears --flag"},
};

static const rip_cmd cmd = {
    .name = "demo", .synopsis = "[options] A [B]", .about = "A demonstration.\n", .opts = opts,
    .n_opts = sizeof opts / sizeof opts[0], .pos = v.pos, .min_pos = 1, .max_pos = 2, .n_pos = &v.n_pos,
    .missing = "missing A", .notes = "Notes here.\n", .exits = exits, .n_exits = 3, .example = "ripsim demo x",
};

typedef struct {
    int rc;
    char out[8192], err[1024];
} parsed;

/* Parse the words (argv[0] = "demo" is added) with fresh values. */
static parsed *parse_words(const char *const *words)
{
    static parsed p;
    memset(&v, 0, sizeof v);
    v.color = -1;
    even = -1;
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"demo";
    for (; *words && argc < 31; words++)
        argv[argc++] = (char *)*words;
    argv[argc] = NULL;
    FILE *out = fmemopen(p.out, sizeof p.out - 1, "w"), *err = fmemopen(p.err, sizeof p.err - 1, "w");
    cr_assert(out && err);
    memset(p.out, 0, sizeof p.out);
    memset(p.err, 0, sizeof p.err);
    p.rc = rip_args_parse(&cmd, argc, argv, out, err);
    fclose(out);
    fclose(err);
    return &p;
}

#define PARSE(...) parse_words((const char *const[]){__VA_ARGS__, NULL})

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* exit 64, one line on stderr that names `what`, nothing on stdout */
static void expect_usage(parsed *p, const char *what)
{
    cr_expect_eq(p->rc, 64, "status %d for %s (%s)", p->rc, what, p->err);
    cr_expect_eq(lines(p->err), 1, "one line: '%s'", p->err);
    cr_expect(strstr(p->err, what) != NULL, "'%s' should name %s", p->err, what);
    cr_expect(strncmp(p->err, "ripsim demo: ", 13) == 0, "'%s' names the command", p->err);
    cr_expect_str_empty(p->out);
}

Test(args, both_spellings_of_a_value)
{
    parsed *p = PARSE("--n=7", "--limit", "2.5", "--file=a=b.csv", "--color", "green", "--even=42", "x");
    cr_assert_eq(p->rc, RIP_ARGS_CONTINUE, "%s", p->err);
    cr_expect_eq(v.n, 7);
    cr_expect_float_eq(v.limit, 2.5, 1e-12);
    cr_expect_str_eq(v.file, "a=b.csv", "only the first '=' splits");
    cr_expect_eq(v.color, 1);
    cr_expect_eq(even, 42);
    cr_expect_eq(v.n_pos, 1);
    cr_expect_str_eq(v.pos[0], "x");
    p = PARSE("--n", "10", "--limit=0", "--file", "-", "a", "b");
    cr_assert_eq(p->rc, RIP_ARGS_CONTINUE, "%s", p->err);
    cr_expect_eq(v.n, 10);
    cr_expect_str_eq(v.file, "-", "'-' is a value, not an option");
    cr_expect_eq(v.n_pos, 2);
}

Test(args, flags_positionals_and_double_dash)
{
    parsed *p = PARSE("--flag", "-", "--", "--n");
    cr_assert_eq(p->rc, RIP_ARGS_CONTINUE, "%s", p->err);
    cr_expect(v.flag);
    cr_expect_str_eq(v.pos[0], "-", "'-' alone is positional (standard input)");
    cr_expect_str_eq(v.pos[1], "--n", "after '--' every word is positional");
    p = PARSE("--flag", "--quiet", "x");
    cr_assert_eq(p->rc, RIP_ARGS_CONTINUE);
    cr_expect(!v.flag, "the later flag wins");
    cr_expect(v.quiet_given);
    p = PARSE("--flag", "--flag", "x");
    cr_expect_eq(p->rc, RIP_ARGS_CONTINUE, "a repeated flag is harmless");
}

Test(args, each_error_is_one_line_naming_the_option)
{
    expect_usage(PARSE("--bogus", "x"), "'--bogus'");
    expect_usage(PARSE("--bogus=3", "x"), "'--bogus'");
    expect_usage(PARSE("-x", "x"), "'-x'");
    expect_usage(PARSE("-j", "2", "x"), "'-j'"); /* a short form of an option demo lacks */
    expect_usage(PARSE("x", "--n"), "--n needs a value");
    expect_usage(PARSE("--n", "0", "x"), "--n takes a whole number from 1 to 10, not '0'");
    expect_usage(PARSE("--n=11", "x"), "--n");
    expect_usage(PARSE("--n=", "x"), "--n");
    expect_usage(PARSE("--n", "3x", "x"), "--n");
    expect_usage(PARSE("--n", "99999999999999999999", "x"), "--n");
    expect_usage(PARSE("--limit", "-1", "x"), "--limit takes a number >= 0, not '-1'");
    /* no bound is named as the most negative 64-bit number (issue 19: execute --gap said
    ** "a whole number >= -9223372036854775808") */
    expect_usage(PARSE("--shift", "x", "x"), "--shift takes a 64-bit whole number, not 'x'");
    expect_usage(PARSE("--shift", "99999999999999999999", "x"), "--shift takes a 64-bit whole number");
    expect_usage(PARSE("--cap", "6", "x"), "--cap takes a whole number <= 5, not '6'");
    cr_expect_eq(PARSE("--shift", "-9223372036854775808", "--cap=-7", "x")->rc, RIP_ARGS_CONTINUE);
    cr_expect_eq(v.shift, INT64_MIN);
    cr_expect_eq(v.cap, -7);
    expect_usage(PARSE("--limit", "inf", "x"), "--limit");
    expect_usage(PARSE("--limit", "nan", "x"), "--limit");
    expect_usage(PARSE("--color", "purple", "x"), "--color takes red, green or blue, not 'purple'");
    expect_usage(PARSE("--color=", "x"), "--color");
    expect_usage(PARSE("--file=", "x"), "--file needs a non-empty FILE");
    expect_usage(PARSE("--even", "3", "x"), "--even takes an even number, not '3'");
    expect_usage(PARSE("--flag=yes", "x"), "--flag takes no value");
    expect_usage(PARSE("--n", "2", "--n=3", "x"), "--n given twice");
    expect_usage(PARSE("--file", "a", "--file", "a", "x"), "--file given twice");
    expect_usage(PARSE("a", "b", "c"), "unexpected argument 'c'");
    expect_usage(PARSE("--flag"), "missing A");
    /* every message points at the help */
    expect_usage(PARSE("--bogus", "x"), "see 'ripsim demo --help'");
}

Test(args, short_forms_stand_for_their_long_options)
{
    parsed *p = PARSE("-n", "4", "-q", "x");
    cr_assert_eq(p->rc, RIP_ARGS_CONTINUE, "%s", p->err);
    cr_expect_eq(v.n, 4);
    cr_expect(v.quiet_given, "-q is --quiet");
    p = PARSE("-n7", "x");
    cr_assert_eq(p->rc, RIP_ARGS_CONTINUE, "%s", p->err);
    cr_expect_eq(v.n, 7, "-n7 is -n 7");
    expect_usage(PARSE("-n", "11", "x"), "--n takes a whole number from 1 to 10, not '11'");
    expect_usage(PARSE("-n", "2", "--n=3", "x"), "--n given twice");
    expect_usage(PARSE("-qq", "x"), "--quiet takes no value");
    p = PARSE("--help");
    cr_expect(strstr(p->out, "  -n, --n N ") != NULL, "help shows the short form:\n%s", p->out);
    cr_expect(strstr(p->out, "  -q, --quiet ") != NULL, "%s", p->out);
    cr_expect(strstr(p->out, "-j") == NULL, "no short form of an option demo lacks:\n%s", p->out);
}

Test(args, unknown_options_name_the_closest)
{
    expect_usage(PARSE("--colour", "red", "x"), "unknown option '--colour' (did you mean '--color'?)");
    expect_usage(PARSE("--lmit=3", "x"), "(did you mean '--limit'?)");
    expect_usage(PARSE("--shif", "x"), "(did you mean '--shift'?)");
    expect_usage(PARSE("--hlep", "x"), "(did you mean '--help'?)");
    parsed *p = PARSE("--bogus", "x");
    cr_expect(strstr(p->err, "did you mean") == NULL, "nothing is close to --bogus: %s", p->err);
    static const char *const names[] = {"sweep", "merge", "migrate", "report", "layer", "layers"};
    cr_expect_str_eq(rip_args_closest("swep", 4, names, 6), "sweep");
    cr_expect_str_eq(rip_args_closest("mrege", 5, names, 6), "merge");
    cr_expect_str_eq(rip_args_closest("layer", 5, names, 6), "layer", "an exact name is its own closest");
    cr_expect_null(rip_args_closest("xyz", 3, names, 6));
    cr_expect_null(rip_args_closest("", 0, names, 6));
}

Test(args, the_database_once)
{
    const char *db = NULL;
    cr_expect_eq(rip_args_db(&cmd, &db, NULL), 0);
    cr_expect_null(db);
    cr_expect_eq(rip_args_db(&cmd, &db, "a.db"), 0);
    cr_expect_str_eq(db, "a.db", "the positional word is the database");
    cr_expect_eq(rip_args_db(&cmd, &db, "a.db"), 0, "the same one twice is harmless");
    cr_expect_eq(rip_args_db(&cmd, &db, "b.db"), 64, "two different databases are refused");
}

Test(args, help_is_generated_from_the_table)
{
    parsed *p = PARSE("x", "--help", "--bogus");
    cr_assert_eq(p->rc, 0, "help wins over later words");
    cr_expect_str_empty(p->err);
    static const char *const want[] = {
        "usage: ripsim demo [options] A [B]\n", "A demonstration.\n", "  --flag ", "  -n, --n N ", "one to ten\n",
        "  --limit S ", "seconds\n", "second line of help\n", "  --color C ", "  -h, --help ", "Notes here.\n",
        "exit status:\n", "  0    fine\n", "  64   usage\n", "  74   cannot write\n", "example: ripsim demo x\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(p->out, want[i]) != NULL, "help lacks '%s':\n%s", want[i], p->out);
    /* the continuation line is indented under the first line of its help */
    const char *first = strstr(p->out, "seconds\n"), *second = strstr(p->out, "second line");
    cr_assert(first && second);
    const char *line1 = first, *line2 = second;
    while (line1 > p->out && line1[-1] != '\n')
        line1--;
    while (line2 > p->out && line2[-1] != '\n')
        line2--;
    cr_expect_eq(first - line1, second - line2, "help columns line up");
    cr_expect_eq(PARSE("-h")->rc, 0);
}

Test(args, help_that_cannot_be_written_is_74)
{
    FILE *full = fopen("/dev/full", "w");
    if (full == NULL)
        rip_skip("no /dev/full");
    char err[512] = "";
    FILE *e = fmemopen(err, sizeof err - 1, "w");
    char *argv[] = {(char *)"demo", (char *)"--help", NULL};
    memset(&v, 0, sizeof v);
    int rc = rip_args_parse(&cmd, 2, argv, full, e);
    fclose(e);
    fclose(full);
    cr_expect_eq(rc, 74);
    cr_expect(strstr(err, "cannot write") != NULL, "%s", err);
}

Test(args, strict_integers)
{
    int64_t x = 0;
    cr_expect(rip_arg_int("42", 0, 100, &x) && x == 42);
    cr_expect(rip_arg_int("-5", -5, 0, &x) && x == -5);
    cr_expect(!rip_arg_int("", 0, 100, &x));
    cr_expect(!rip_arg_int(NULL, 0, 100, &x));
    cr_expect(!rip_arg_int("4 2", 0, 100, &x));
    cr_expect(!rip_arg_int("101", 0, 100, &x));
    cr_expect(!rip_arg_int("9223372036854775808", 0, INT64_MAX, &x));
    cr_expect(rip_arg_int("9223372036854775807", 0, INT64_MAX, &x) && x == INT64_MAX);
}
