/*
** claims_registry.c — the claims of the paper that ripsim's data can check,
** each with its quoted wording, its section and its named SQL query
** (claims.h).  The verdict rule lives in the SQL, so what results/claims.md
** prints under a claim is exactly what decided it.
**
** Sweep queries read the temp views of rip_claims_sweep_views_sql over the
** schema views (layer_wide, generators); aux queries read the tables of
** claims_data.c through the views ra (every real layer), t6 (the Tab. 6
** selection), pl (the paper's named layers) and plans (Tab. 3's models).
**
** ALL(...) is the rule of a statement about every member of a set: agrees
** when every member of the domain satisfies it (NULL counts as not
** satisfying), contradicted with the smallest counterexample by
** N_in + N_out otherwise, differs when the domain is empty.  Its query
** also returns how many members hold and the domain's size (columns 4
** and 5), the figures behind the verdict.  Its CTEs are NOT MATERIALIZED:
** SQLite then reads only the columns a claim uses, not every text column
** of the view for every layer (twenty times faster on the default sweep).
*/
#include "claims.h"

#include <string.h>
#include "paper_data.h"

/* One row of Tab. 2 (paper_data.h) in the SQL of claim C07. */
#define TAB2_SQL_ROW(lim, cin, cout, k, hw, xs, eq1, truth, err, tag) \
    "\n       UNION ALL SELECT '" tag "', " #eq1 ", " #truth

#define ALL_HEAD "WITH d AS NOT MATERIALIZED (SELECT * FROM "
#define ALL(FROM, DOM, HOLDS, NOUN)                                                                           \
    ALL_HEAD FROM " WHERE " DOM "),\n"                                                                        \
    "     b AS NOT MATERIALIZED (SELECT * FROM d WHERE (" HOLDS ") IS NOT 1),\n"                             \
    "     n AS (SELECT count(*) AS nd, coalesce(sum((" HOLDS ") IS NOT 1), 0) AS nb FROM d)\n"              \
    "SELECT CASE WHEN nd = 0 THEN 'differs' WHEN nb = 0 THEN 'agrees' ELSE 'contradicted' END,\n"            \
    "       printf('holds on %d of %d " NOUN "', nd - nb, nd),\n"                                             \
    "       (SELECT witness FROM b ORDER BY size, witness LIMIT 1), nd - nb, nd FROM n"

/* Restricted layers where Eq. 1 is defined, x* = rho / alpha_hb inside the grid. */
#define EQ1_IN_GRID                                                                                           \
    "restricted = 1 AND cout > cin AND gm2019_eq1 IS NOT NULL AND (k_h - 1) * cin / (cout - cin) <= w_out - 1"

const char rip_claims_sweep_views_sql[] =
    "CREATE TEMP VIEW cl AS\n"
    "  SELECT *, 'layer ' || layer_idx || ' (' || generator || ', N_in+N_out = ' || size ||\n"
    "            '): `ripsim layer ' || witness_spec || '`' AS witness\n"
    "  FROM (SELECT w.*, w.n_in_dense + w.n_out AS size,\n"
    "               (w.p_top + w.p_bottom + w.p_left + w.p_right) > 0 AS padded,\n"
    "               w.cout - w.s_w * w.cin AS alpha,\n"
    "               w.cout * w.w_out - w.s_h * (w.w_in + w.p_left + w.p_right) * w.cin AS beta,\n"
    "               'cin=' || w.cin || ',cout=' || w.cout || ',h=' || w.h_in || ',w=' || w.w_in ||\n"
    "               ',k=' || w.k_h || 'x' || w.k_w || ',s=' || w.s_h || 'x' || w.s_w ||\n"
    "               ',d=' || w.d_h || 'x' || w.d_w || ',pt=' || w.p_top || ',pb=' || w.p_bottom ||\n"
    "               ',pl=' || w.p_left || ',pr=' || w.p_right AS witness_spec\n"
    "        FROM layer_wide w);\n"
    "-- lead: the dead leading run L of App. F.4, in real input pixels: the real\n"
    "-- pixels before the first one any output reads, in row-major order.  A\n"
    "-- pixel (y, x) is read iff row y and column x are; the first read row is\n"
    "-- the least r s_h + i d_h - p_top >= 0 over taps i and outputs r (likewise\n"
    "-- columns), so L = y0 W_in + x0, or H_in W_in when nothing is read.\n"
    "-- A table, computed once: three claims read it, each would recompute a view.\n"
    "CREATE TEMP TABLE lead AS\n"
    "  WITH RECURSIVE t(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM t WHERE i < 255),\n"
    "  ry AS (SELECT layer_idx, min(y) AS y0 FROM\n"
    "           (SELECT layer_idx, h_in, h_out, r, r * s_h + i * d_h - p_top AS y FROM\n"
    "              (SELECT l.layer_idx, l.h_in, l.h_out, l.s_h, l.d_h, l.p_top, t.i,\n"
    "                      CASE WHEN l.p_top - t.i * l.d_h > 0\n"
    "                           THEN (l.p_top - t.i * l.d_h + l.s_h - 1) / l.s_h ELSE 0 END AS r\n"
    "               FROM cl l JOIN t ON t.i < l.k_h))\n"
    "         WHERE r < h_out AND y < h_in GROUP BY layer_idx),\n"
    "  rx AS (SELECT layer_idx, min(x) AS x0 FROM\n"
    "           (SELECT layer_idx, w_in, w_out, c, c * s_w + i * d_w - p_left AS x FROM\n"
    "              (SELECT l.layer_idx, l.w_in, l.w_out, l.s_w, l.d_w, l.p_left, t.i,\n"
    "                      CASE WHEN l.p_left - t.i * l.d_w > 0\n"
    "                           THEN (l.p_left - t.i * l.d_w + l.s_w - 1) / l.s_w ELSE 0 END AS c\n"
    "               FROM cl l JOIN t ON t.i < l.k_w))\n"
    "         WHERE c < w_out AND x < w_in GROUP BY layer_idx)\n"
    "  SELECT cl.*, coalesce(ry.y0 * cl.w_in + rx.x0, cl.h_in * cl.w_in) AS lead_run\n"
    "  FROM cl LEFT JOIN ry USING (layer_idx) LEFT JOIN rx USING (layer_idx);\n";

static const rip_claim registry[] = {
    /* ---------------------------------------------------------- Sec. 3.1, Tab. 2, App. D */
    {"C01", "Abstract; Sec. 3.1; Lemma 9 (App. D)",
     "When x* is non-integer and floor(x*) <= W_out - 1, the as-published herringbone formula (Eq. 1) "
     "underestimates the true peak debt by exactly (k-1)C_in mod (C_out-C_in).",
     "lemma9_shortfall_exact", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", EQ1_IN_GRID " AND ((k_h - 1) * cin) % (cout - cin) <> 0",
         "herringbone_taps - gm2019_eq1 = ((k_h - 1) * cin) % (cout - cin)",
         "restricted layers with C_out > C_in, non-integer x* inside the grid"),
     0, NULL, NULL},
    {"C02", "Sec. 3.1 (Limitation 1); Lemma 6",
     "Eq. 1 evaluates the remaining square of unprocessed output at floor(x*), which is correct only when x* is "
     "an integer.",
     "eq1_exact_at_integer_xstar", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", EQ1_IN_GRID " AND ((k_h - 1) * cin) % (cout - cin) = 0", "gm2019_eq1 = herringbone_taps",
         "restricted layers with C_out > C_in, integer x* inside the grid (Eq. 1 tight)"),
     0, NULL, "the correct half: integer x* inside the grid gives Eq. 1 = truth; C01 covers the non-integer half"},
    {"C03", "Lemma 9 (App. D)",
     "When rho < alpha_hb, we have floor(x*) = 0 and the sum runs from 1, which is a genuine leg; no special case "
     "arises.",
     "lemma9_small_rho", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "restricted = 1 AND cout > cin AND gm2019_eq1 IS NOT NULL AND (k_h - 1) * cin < cout - cin",
         "herringbone_taps - gm2019_eq1 = (k_h - 1) * cin", "restricted layers with (k-1)C_in < C_out - C_in"),
     0, NULL, "no special case: the shortfall is rho mod alpha_hb = rho"},
    {"C04", "Sec. 3.1 (Limitation 1)",
     "However, it does not stay small, being bounded by C_out - C_in.", "eq1_shortfall_bounded",
     RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "restricted = 1 AND gm2019_eq1 IS NOT NULL AND gm2019_eq1 < herringbone_taps",
         "herringbone_taps - gm2019_eq1 < cout - cin", "layers where Eq. 1 is unsafe"),
     0, NULL, NULL},
    {"C05", "Sec. 3.1 (Limitation 2)",
     "Eq. 1 implicitly assumes the square of side floor(x*) fits inside the output grid [...]. The quadratic terms "
     "are then evaluated outside the grid and return peak debts larger than the layer's whole activation "
     "footprint.",
     "eq1_outside_grid_exceeds_footprint", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl",
         "restricted = 1 AND cout > cin AND gm2019_eq1 IS NOT NULL AND (k_h - 1) * cin / (cout - cin) > w_out - 1",
         "gm2019_eq1 > n_in_padded + n_out", "layers with floor(x*) > W_out - 1 (Eq. 1 > N_in + N_out)"),
     0, NULL, "read as a statement about every layer with floor(x*) outside the grid"},
    {"C06", "Sec. 3.1 (Limitation 2)",
     "Eq. 1 [...] outside the grid: an unbounded overestimate, up to 2,432x on the configurations of Tab. 2.",
     "eq1_overestimate_ratio_tab2", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH r AS (SELECT max(1.0 * gm2019_eq1 / herringbone_taps) AS m FROM pl WHERE network LIKE 'tab2_%')\n"
     "SELECT CASE WHEN round(m) = 2432 THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('largest Eq. 1 / truth over the seven Tab. 2 rows: %.1fx (paper 2,432x)', m), NULL FROM r",
     0, NULL, NULL},
    {"C07", "Tab. 2",
     "Tab. 2: G&M and Truth for G&M's deployed MNIST network (conv_0-conv_2) and four layers whose critical leg "
     "exceeds the output grid.",
     "tab2_values", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH p(tag, gm, truth) AS (SELECT NULL, NULL, NULL WHERE 0" RIP_PAPER_TAB2(TAB2_SQL_ROW) "),\n"
     "     j AS (SELECT p.*, l.gm2019_eq1 AS our_gm, l.herringbone_taps AS our_truth FROM p JOIN pl l ON l.network = p.tag)\n"
     "SELECT CASE WHEN sum(gm = our_gm AND truth = our_truth) = (SELECT count(*) FROM p) THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%d of %d rows equal in both G&M and Truth%s', sum(gm = our_gm AND truth = our_truth),\n"
     "              (SELECT count(*) FROM p),\n"
     "              coalesce('; not: ' || group_concat(CASE WHEN gm <> our_gm OR truth <> our_truth\n"
     "                THEN tag || ' ' || our_gm || '/' || our_truth || ' (paper ' || gm || '/' || truth || ')' END, ', '), '')),\n"
     "       NULL FROM j",
     0, NULL, NULL},
    {"C08", "Tab. 2 caption; Sec. 3.3", "Corollary 1 reproduces Truth on every row.", "tab2_corollary1",
     RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("pl", "network LIKE 'tab2_%'", "corollary1 = herringbone_taps", "Tab. 2 rows"), 0, NULL, NULL},
    {"C09", "Sec. 3.1 (Limitation 1)",
     "Two things keep this silent: [...] the count is small (one or two scalars on the layers of Tab. 2 against "
     "low-bit activations).",
     "tab2_shortfall_small", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("pl", "network LIKE 'tab2_conv%'", "herringbone_taps - gm2019_eq1 IN (1, 2)",
         "Limitation 1 rows of Tab. 2 (shortfall 1 or 2)"),
     0, NULL, NULL},
    {"C10", "Sec. 3.1 (Limitation 1)", "a 16 -> 64, k = 3 layer loses 32.", "sec31_16_to_64",
     RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("pl", "network = 'sec31_16to64'", "herringbone_taps - gm2019_eq1 = 32",
         "16 -> 64, k = 3 layers (8x8 input) losing 32"),
     0, NULL, "the paper gives no grid; we take 8x8 input (x* = 2/3 inside any grid)"},
    {"C11", "Sec. 3.1 (Limitation 1)",
     "All three convolutional layers of the network deployed in [9] have non-integer x* (Tab. 2).",
     "tab2_nonint_xstar", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("pl", "network LIKE 'tab2_conv%'", "((k_h - 1) * cin) % (cout - cin) <> 0 AND gm2019_eq1 < herringbone_taps",
         "G&M network layers (non-integer x*, Eq. 1 unsafe)"),
     0, NULL, NULL},
    {"C12", "Sec. 3.1 (Limitation 1)",
     "Take k = 3, C_in = 3. At C_out = 6 we have x* = 2 [...] the formula evaluates the peak correctly. At C_out = 8 "
     "we have x* = 1.2 [...] The formula therefore evaluates a peak that omits one leg of output.",
     "sec31_worked_example", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH a AS (SELECT gm2019_eq1 - herringbone_taps AS e FROM pl WHERE network = 'sec31_cout6'),\n"
     "     b AS (SELECT gm2019_eq1 - herringbone_taps AS e FROM pl WHERE network = 'sec31_cout8')\n"
     "SELECT CASE WHEN a.e = 0 AND b.e < 0 THEN 'agrees' ELSE 'contradicted' END,\n"
     "       printf('Eq. 1 - truth: %d at C_out = 6, %d at C_out = 8 (3x3 output)', a.e, b.e), NULL FROM a, b",
     0, NULL, "Fig. 2(a)'s grid read as 3x3 output pixels (input 5x5)"},
    /* ---------------------------------------------------------- Sec. 3.2-3.3, App. E */
    {"C13", "Corollary 1 (Sec. 3.2); App. D.1", "If alpha_hb <= 0 then D_hb = C_out.", "corollary1_alpha_nonpositive",
     RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "restricted = 1 AND cout <= cin", "herringbone_taps = cout", "restricted layers with C_out <= C_in"), 0,
     NULL, NULL},
    {"C14", "Corollary 1 (Sec. 3.2)",
     "Under the restrictions of [9] [...] D_hb = C_out(H_out W_out - x^2) - C_in(H_in W_in - (x + k - 1)^2 - k) + "
     "(rho - alpha_hb x) (Eq. 3).",
     "corollary1_tight", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "restricted = 1", "corollary1 = herringbone_taps", "restricted layers (Corollary 1 tight)"), 0, NULL,
     NULL},
    {"C15", "Sec. 3.2",
     "It is a corollary in the literal sense: specializing the generalized theorem of Sec. 3.3 to square output, "
     "valid padding, unit stride and unit dilation returns Eq. 3.",
     "corollary1_equals_thm11", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "restricted = 1", "corollary1 = thm11", "restricted layers (Eq. 3 = Eq. 38)"), 0, NULL, NULL},
    {"C16", "Sec. 3.3; Sec. 5.2",
     "A simulator that executes the traversal in an allocation-tracked workspace confirms both forms: the "
     "generalized form on all 10,000 synthetic configurations of Sec. 5.2.",
     "thm11_tight_sweep", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "1", "thm11 = herringbone_taps", "sweep layers (Theorem 11 tight)"), 0, NULL, NULL},
    {"C17", "Theorem 11 (App. E.2)",
     "its global maximum is the largest of the three component maxima, together with the floor C_out that the "
     "write-before-clear headroom imposes.",
     "herringbone_floor_cout", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "1", "herringbone_taps >= cout", "sweep layers (herringbone truth >= C_out)"), 0, NULL, NULL},
    {"C18", "Sec. 3.3; Sec. 5.3",
     "[the simulator confirms] the generalized form [...] on all 84 real layers.", "thm11_tight_tab6",
     RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("t6", "1", "thm11 = herringbone_taps", "Tab. 6 layers (Theorem 11 tight)"), 0, NULL,
     "our Tab. 6 selection has 76 layers (the two pruned families have no public layer list)"},
    {"C19", "Sec. 5.3",
     "Each traversal is first confirmed against the corruption simulator [...]; the generalized herringbone form "
     "matches on all 84.",
     "thm11_tight_real_all", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("ra", "1", "thm11 = herringbone_taps AND thm4_taps = rip_padded_taps",
         "channel-mixing layers of sweeps/layers/ (Theorems 11 and 4 tight)"),
     0, NULL, "extended to every channel-mixing layer of the public tables, and to Theorem 4"},
    {"C20", "Sec. 3.3; Sec. 5.3",
     "Forty-three of the 84 layers fall outside the parameter range of [9] (strided, dilated, padded, or "
     "rectangular).",
     "tab6_generalized_count", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN sum(restricted = 0) = 43 AND count(*) = 84 THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%d of %d layers outside the restricted setting (paper 43 of 84)', sum(restricted = 0), count(*)),\n"
     "       NULL FROM t6",
     0, NULL, NULL},
    /* ---------------------------------------------------------- Sec. 4 */
    {"C21", "Theorem 4 (Sec. 4.2), sigma = 0",
     "The minimum gap admitting no corruption is Delta* = max(max D(r,c), N_out - H_p W_p C_in).",
     "thm4_gather_tight", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "1", "thm4_gather = rip_padded_gather", "sweep layers (Theorem 4, gather first, tight)"), 0, NULL,
     NULL},
    {"C22", "Theorem 4 (Sec. 4.2), sigma = C_out",
     "The minimum gap admitting no corruption is Delta* = max(max D(r,c), N_out - H_p W_p C_in) [...] for any "
     "kernel shape, strides, dilations, padding, and channel ratio.",
     "thm4_taps_tight", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "1", "thm4_taps = rip_padded_taps", "sweep layers (Theorem 4, taps from the workspace, tight)"), 0,
     NULL, NULL},
    {"C23", "Theorem 4, proof (Workspace)",
     "The second term of Eq. 10 forces Delta* + H_p W_p C_in >= N_out, so [...] W* = Delta* + H_p W_p C_in.",
     "thm4_workspace_holds_output", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "1", "rip_padded_gather + n_in_padded >= n_out AND rip_padded_taps + n_in_padded >= n_out",
         "sweep layers (simulated workspace >= N_out)"),
     0, NULL, NULL},
    {"C24", "Sec. 4.2", "Since (H_out-1, W_out-1) is in R_s x C_s, we always have Delta* >= sigma.",
     "thm4_at_least_sigma", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "1", "rip_padded_taps >= cout AND thm4_taps >= cout",
         "sweep layers (Theorem 4 and its truth >= sigma = C_out, taps from the workspace)"),
     0, NULL, NULL},
    {"C25", "Sec. 4.2",
     "When alpha <= 0 and beta <= 0 the bound is met with equality: the whole output tensor is absorbed into the "
     "space its input vacates, and only the production-order headroom remains.",
     "thm4_equality_case", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "alpha <= 0 AND beta <= 0", "rip_padded_taps = cout AND rip_padded_gather = 0",
         "layers with alpha <= 0 and beta <= 0 (gap = sigma)"),
     0, NULL, NULL},
    {"C26", "Sec. 4.2",
     "At unit stride this is just C_out <= C_in, the same-or-decreasing-channel case, where RiP degenerates to "
     "plain in-place replacement.",
     "thm4_unit_stride_case", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "s_h = 1 AND s_w = 1", "(alpha <= 0 AND beta <= 0) = (cout <= cin) AND (cout > cin OR rip_padded_gather = 0)",
         "unit-stride layers (alpha, beta <= 0 iff C_out <= C_in; then gap 0 gathered)"),
     0, NULL, NULL},
    {"C27", "Theorem 4, proof",
     "All nine are load-bearing; dropping any one lowers the computed maximum on some configuration.",
     "thm4_nine_breakpoints", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     "WITH g AS (SELECT layer_idx, alpha, beta, h_out, w_out, n_out - n_in_padded AS tail,\n"
     "                  max(h_out - 2, 0) AS r1, h_out - 1 AS r2, max(w_out - 2, 0) AS c1, w_out - 1 AS c2 FROM cl),\n"
     "     e AS (SELECT *,\n"
     "       CASE WHEN 1 < w_out THEN alpha WHEN 1 < h_out THEN beta ELSE 0 END AS d00,\n"
     "       CASE WHEN c1 + 1 < w_out THEN alpha * (c1 + 1) WHEN 1 < h_out THEN beta ELSE 0 END AS d01,\n"
     "       CASE WHEN c2 + 1 < w_out THEN alpha * (c2 + 1) WHEN 1 < h_out THEN beta ELSE 0 END AS d02,\n"
     "       CASE WHEN 1 < w_out THEN beta * r1 + alpha WHEN r1 + 1 < h_out THEN beta * (r1 + 1) ELSE 0 END AS d10,\n"
     "       CASE WHEN c1 + 1 < w_out THEN beta * r1 + alpha * (c1 + 1) WHEN r1 + 1 < h_out THEN beta * (r1 + 1) ELSE 0 END AS d11,\n"
     "       CASE WHEN c2 + 1 < w_out THEN beta * r1 + alpha * (c2 + 1) WHEN r1 + 1 < h_out THEN beta * (r1 + 1) ELSE 0 END AS d12,\n"
     "       CASE WHEN 1 < w_out THEN beta * r2 + alpha WHEN r2 + 1 < h_out THEN beta * (r2 + 1) ELSE 0 END AS d20,\n"
     "       CASE WHEN c1 + 1 < w_out THEN beta * r2 + alpha * (c1 + 1) WHEN r2 + 1 < h_out THEN beta * (r2 + 1) ELSE 0 END AS d21,\n"
     "       CASE WHEN c2 + 1 < w_out THEN beta * r2 + alpha * (c2 + 1) WHEN r2 + 1 < h_out THEN beta * (r2 + 1) ELSE 0 END AS d22\n"
     "       FROM g),\n"
     "     f AS (SELECT *, max(d00, d01, d02, d10, d11, d12, d20, d21, d22, tail) AS full FROM e),\n"
     "     k AS (SELECT sum(max(d01, d02, d10, d11, d12, d20, d21, d22, tail) < full) AS n00,\n"
     "                  sum(max(d00, d02, d10, d11, d12, d20, d21, d22, tail) < full) AS n01,\n"
     "                  sum(max(d00, d01, d10, d11, d12, d20, d21, d22, tail) < full) AS n02,\n"
     "                  sum(max(d00, d01, d02, d11, d12, d20, d21, d22, tail) < full) AS n10,\n"
     "                  sum(max(d00, d01, d02, d10, d12, d20, d21, d22, tail) < full) AS n11,\n"
     "                  sum(max(d00, d01, d02, d10, d11, d20, d21, d22, tail) < full) AS n12,\n"
     "                  sum(max(d00, d01, d02, d10, d11, d12, d21, d22, tail) < full) AS n20,\n"
     "                  sum(max(d00, d01, d02, d10, d11, d12, d20, d22, tail) < full) AS n21,\n"
     "                  sum(max(d00, d01, d02, d10, d11, d12, d20, d21, tail) < full) AS n22,\n"
     "                  sum(full <> (SELECT thm4_gather FROM cl WHERE cl.layer_idx = f.layer_idx)) AS bad\n"
     "           FROM f)\n"
     "SELECT CASE WHEN bad > 0 THEN 'differs' WHEN min(n00, n01, n02, n10, n11, n12, n20, n21, n22) > 0 THEN 'agrees'\n"
     "            ELSE 'contradicted' END,\n"
     "       printf('layers (sigma = 0) whose gap drops without the breakpoint (r,c) = (0,0) %d, (0,W-2) %d, ' ||\n"
     "              '(0,W-1) %d, (H-2,0) %d, (H-2,W-2) %d, (H-2,W-1) %d, (H-1,0) %d, (H-1,W-2) %d, (H-1,W-1) %d; ' ||\n"
     "              'Eq. 10 recomputed here differs from thm4_gather on %d layers',\n"
     "              n00, n01, n02, n10, n11, n12, n20, n21, n22, bad), NULL FROM k",
     0, NULL, "Eq. 8 and 10 evaluated in SQL at each breakpoint (sigma = 0); a breakpoint is load-bearing when "
              "some sweep layer's maximum drops without it; contradicted when one never is. Beyond the sample, "
              "(0,0) cannot be: D(0,0) = alpha is at most D(0,W-2) = alpha (W-1) when alpha > 0 and at most "
              "D(H-1,W-1) = sigma otherwise"},
    /* ---------------------------------------------------------- Sec. 5.2, App. G */
    {"C28", "Sec. 5.2", "Of the 10,000, 22.6% fall inside the restrictions of [9].", "restricted_share",
     RIP_CLAIM_SWEEP, RIP_CLAIM_SHARE, "SELECT sum(restricted), count(*) FROM cl", RIP_PAPER_RESTRICTED_PCT, "layers restricted", NULL},
    {"C29", "Sec. 5.2; App. G.1",
     "No configuration produced an unsafe gap. [...] No sweep in this paper has produced an unsafe verdict.",
     "no_unsafe_bound", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "1",
         "coalesce(corollary1 >= herringbone_taps, 1) AND thm11 >= herringbone_taps AND thm4_gather >= rip_padded_gather"
         " AND thm4_taps >= rip_padded_taps AND coalesce(thm13_gather >= rip_dense_gather, 1)"
         " AND coalesce(thm13_taps >= rip_dense_taps, 1)",
         "sweep layers (no bound of the paper below its truth)"),
     0, NULL, "the paper's bounds: Corollary 1, Theorems 4, 11 and 13 (Eq. 1 is G&M's)"},
    {"C30", "Abstract", "Across 10,000 random layers RiP produced no corruption.", "rip_never_unsafe",
     RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "1",
         "thm4_gather >= rip_padded_gather AND thm4_taps >= rip_padded_taps"
         " AND coalesce(thm13_gather >= rip_dense_gather, 1) AND coalesce(thm13_taps >= rip_dense_taps, 1)",
         "sweep layers (RiP bounds safe)"),
     0, NULL, "read on the simulator (the default sweep stores no kernel executions)"},
    {"C31", "Sec. 5.2", "The dense bound is tight on 99.1% when taps are read directly from the workspace.",
     "dense_taps_tight_share", RIP_CLAIM_SWEEP, RIP_CLAIM_SHARE,
     "SELECT sum(thm13_taps = rip_dense_taps), count(*) FROM cl WHERE thm13_taps IS NOT NULL", RIP_PAPER_DENSE_TIGHT_PCT,
     "judged layers tight", NULL},
    {"C32", "Sec. 5.2", "The bound remains safe there, overshooting by 91.85 scalars on average.",
     "dense_taps_mean_overshoot", RIP_CLAIM_SWEEP, RIP_CLAIM_MEAN,
     "SELECT thm13_taps - rip_dense_taps FROM cl WHERE thm13_taps > rip_dense_taps", RIP_PAPER_DENSE_OVERSHOOT,
     "scalars over the loose layers", NULL},
    {"C33", "Sec. 5.2",
     "Gathering the receptive field into a temporary buffer first removes the exception and the bound is tight on "
     "all 10,000.",
     "dense_gather_tight_all", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "1", "thm13_gather = rip_dense_gather", "sweep layers (Theorem 13 gathered tight; n/a counts as not)"),
     0, NULL, NULL},
    {"C34", "App. F.4",
     "Dead input is necessary for looseness but not sufficient, and two conditions must hold together. First, the "
     "dead addresses must include the first one [...]. Second, sigma must be the binding term, Delta_d* = sigma.",
     "dense_loose_conditions", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("lead", "thm13_taps > rip_dense_taps", "lead_run > 0 AND thm13_taps = cout",
         "loose layers (dead leading run L > 0 and Theorem 13 = sigma)"),
     0, NULL, NULL},
    {"C35", "App. F.4", "Dead input is necessary for looseness but not sufficient.", "dense_dead_not_sufficient",
     RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     "WITH x AS (SELECT * FROM lead WHERE lead_run > 0 AND thm13_taps = rip_dense_taps)\n"
     "SELECT CASE WHEN count(*) > 0 THEN 'agrees' ELSE 'contradicted' END,\n"
     "       printf('%d layers have a dead leading run and Theorem 13 (taps) tight; the smallest is the example', count(*)),\n"
     "       (SELECT witness FROM x ORDER BY size, witness LIMIT 1) FROM x",
     0, NULL, "an existence claim: the witness shown is an example, not a counterexample"},
    {"C36", "App. F.4; Sec. 5.2",
     "Empirically, the overshoot is at most min(sigma, L C_in) and never exceeded sigma on any configuration we "
     "test.",
     "dense_overshoot_bound", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("lead", "thm13_taps > rip_dense_taps", "thm13_taps - rip_dense_taps <= min(cout, lead_run * cin)",
         "loose layers (overshoot <= min(C_out, L C_in))"),
     0, NULL, NULL},
    {"C37", "App. F.4",
     "The simplest configuration that is loose has C_in = C_out = 2, k = 1x2, H_in = W_in = 1, unit stride, "
     "(d_h, d_w) = (1, 2) and (p_h, p_w) = (0, 1) [...]. The true minimum gap is 0 [...]. Theorem 13 returns 2.",
     "f4_simplest_example", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("pl", "network = 'f4_simplest'", "rip_dense_taps = 0 AND thm13_taps = 2", "the F.4 layer (truth 0, Thm 13 = 2)"),
     0, NULL, NULL},
    {"C38", "App. F.4", "The simplest configuration that is loose has C_in = C_out = 2, k = 1x2, H_in = W_in = 1 [...]",
     "f4_simplest_is_smallest", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     "WITH x AS (SELECT * FROM cl WHERE thm13_taps > rip_dense_taps)\n"
     "SELECT CASE WHEN count(*) = 0 THEN 'differs' WHEN min(size) >= 4 THEN 'agrees' ELSE 'contradicted' END,\n"
     "       printf('%d loose layers in the sweep; the smallest has N_in+N_out = %d (the F.4 layer: 4)', count(*), min(size)),\n"
     "       (SELECT witness FROM x WHERE size < 4 ORDER BY size, witness LIMIT 1) FROM x",
     0, NULL, "\"simplest\" read as smallest N_in + N_out among the sweep's loose layers"},
    {"C39", "App. F.3 (Eq. 42)",
     "On every configuration in the sweep of Appendix G the first term exceeds the second, so the difference is "
     "non-negative.",
     "eq42_nonnegative", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "thm13_taps IS NOT NULL",
         "thm4_taps + n_in_padded >= thm13_taps + n_in_dense AND thm4_gather + n_in_padded >= thm13_gather + n_in_dense",
         "layers with Theorem 13 defined (W* >= W_d*, sigma = C_out and 0)"),
     0, NULL, "W* = Theorem 4 + H_p W_p C_in, W_d* = Theorem 13 + H_in W_in C_in, both sigma"},
    {"C40", "App. F.3 (Eq. 42)", "[the difference is] strictly positive whenever the padding is non-zero.",
     "eq42_strict_when_padded_taps", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "padded AND thm13_taps IS NOT NULL", "thm4_taps + n_in_padded > thm13_taps + n_in_dense",
         "padded layers (W* > W_d*, sigma = C_out)"),
     0, NULL, NULL},
    {"C41", "App. F.3 (Eq. 42)", "[the difference is] strictly positive whenever the padding is non-zero.",
     "eq42_strict_when_padded_gather", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "padded AND thm13_gather IS NOT NULL", "thm4_gather + n_in_padded > thm13_gather + n_in_dense",
         "padded layers (W* > W_d*, sigma = 0)"),
     0, NULL, NULL},
    {"C42", "App. F.3; Sec. 4.3", "Dropping the padding raises the gap.", "dense_gap_not_below_padded",
     RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "thm13_taps IS NOT NULL", "thm13_taps >= thm4_taps AND thm13_gather >= thm4_gather",
         "layers with Theorem 13 defined (dense gap >= padded gap)"),
     0, NULL, "\"raises\" read as never lowers (equal without padding)"},
    {"C43", "App. G.2; Tab. 5",
     "The generator weights sum to 100 [...]. They fall in three tiers. The first, 35% [...]. The second, 45% "
     "[...]. The third, 20%.",
     "tab5_weights", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     "SELECT CASE WHEN sum(weight) = 100 AND sum(CASE tier WHEN 1 THEN weight END) = " RIP_PAPER_STR(RIP_PAPER_TIER1_PCT) "\n"
     "             AND sum(CASE tier WHEN 2 THEN weight END) = " RIP_PAPER_STR(RIP_PAPER_TIER2_PCT) " AND sum(CASE tier WHEN 3 THEN weight END) = " RIP_PAPER_STR(RIP_PAPER_TIER3_PCT) "\n"
     "             AND count(*) = " RIP_PAPER_STR(RIP_PAPER_GENERATORS) " THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%d generators, weights sum to %d: tiers %d/%d/%d', count(*), sum(weight),\n"
     "              sum(CASE tier WHEN 1 THEN weight END), sum(CASE tier WHEN 2 THEN weight END),\n"
     "              sum(CASE tier WHEN 3 THEN weight END)), NULL FROM generators",
     0, NULL, NULL},
    {"C44", "App. G.2", "We draw 10,000 layer configurations from the twenty generators of Tab. 5, with input "
                        "spatial extent up to 128 and a fixed seed.",
     "sweep_composition", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     "SELECT CASE WHEN count(*) = 10000 AND count(DISTINCT generator) = " RIP_PAPER_STR(RIP_PAPER_GENERATORS) " AND max(max(h_in, w_in)) <= 128\n"
     "            THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%d layers from %d generators, largest input extent %d', count(*), count(DISTINCT generator),\n"
     "              max(max(h_in, w_in))), NULL FROM cl",
     0, NULL, NULL},
    {"C45", "App. G.2; Tab. 5",
     "The second, 45%, is small-grid and near-degenerate geometry, where every defect we have found lives.",
     "defects_in_tier2", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "(gm2019_eq1 IS NOT NULL AND gm2019_eq1 <> herringbone_taps) OR thm13_taps > rip_dense_taps",
         "tier = 2", "layers where Eq. 1 or Theorem 13 (taps) is not tight (in tier 2)"),
     0, NULL, "\"defect\" read as a closed form that is not tight: Eq. 1 unsafe or loose, Theorem 13 (taps) loose"},
    /* ---------------------------------------------------------- Sec. 5.3, App. H, Tab. 6 */
    {"C46", "Abstract; Sec. 5.3", "RiP matches the herringbone workspace exactly on 58 of the 84 layers.",
     "tab6_exact", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN sum(w_rip = w_hb) = " RIP_PAPER_STR(RIP_PAPER_TAB6_EXACT) " AND count(*) = " RIP_PAPER_STR(RIP_PAPER_TAB6_N) " THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%d of %d layers exact (paper " RIP_PAPER_STR(RIP_PAPER_TAB6_EXACT) " of " RIP_PAPER_STR(RIP_PAPER_TAB6_N) ")', sum(w_rip = w_hb), count(*)), NULL FROM t6",
     0, NULL, NULL},
    {"C47", "Abstract; Sec. 5.3", "[RiP matches the herringbone workspace] to within 5% on 81.", "tab6_within5",
     RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN sum(w_rip * 100 <= w_hb * 105) = " RIP_PAPER_STR(RIP_PAPER_TAB6_LE5) " AND count(*) = " RIP_PAPER_STR(RIP_PAPER_TAB6_N) " THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%d of %d layers within 5%% (paper " RIP_PAPER_STR(RIP_PAPER_TAB6_LE5) " of " RIP_PAPER_STR(RIP_PAPER_TAB6_N) ")', sum(w_rip * 100 <= w_hb * 105), count(*)), NULL FROM t6",
     0, NULL, NULL},
    {"C48", "Abstract; Sec. 5.3", "at a mean reduction of 24.8% against naive allocation", "tab6_mean_save",
     RIP_CLAIM_AUX, RIP_CLAIM_MEAN, "SELECT 100.0 * (1.0 - 1.0 * w_rip / w_naive) FROM t6", RIP_PAPER_TAB6_SAVE,
     "percent saved against dual buffering, over the Tab. 6 layers", NULL},
    {"C49", "Sec. 5.3", "(median 25.0%, best 50.0%)", "tab6_median_best_save", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH s AS (SELECT 100.0 * (1.0 - 1.0 * w_rip / w_naive) AS v FROM t6),\n"
     "     o AS (SELECT v, row_number() OVER (ORDER BY v) AS i, count(*) OVER () AS n FROM s),\n"
     "     m AS (SELECT avg(v) AS med FROM o WHERE i IN ((n + 1) / 2, (n + 2) / 2))\n"
     "SELECT CASE WHEN printf('%.1f', med) = '25.0' AND printf('%.1f', (SELECT max(v) FROM s)) = '50.0'\n"
     "            THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('median %.1f%%, best %.1f%% (paper 25.0%%, 50.0%%)', med, (SELECT max(v) FROM s)), NULL FROM m",
     0, NULL, NULL},
    {"C50", "Sec. 5.3",
     "On every layer whose output tensor is no larger than its padded input (25 of the 84) RiP and herringbone "
     "agree exactly, without exception.",
     "small_output_exact_tab6", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("t6", "n_out <= n_in_padded", "w_rip = w_hb", "Tab. 6 layers with N_out <= H_p W_p C_in (exact)"), 0, NULL,
     NULL},
    {"C51", "Sec. 5.3", "On every layer whose output tensor is no larger than its padded input [...] RiP and "
                        "herringbone agree exactly, without exception.",
     "small_output_exact_real_all", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("ra", "n_out <= n_in_padded", "w_rip = w_hb", "public-table layers with N_out <= H_p W_p C_in (exact)"), 0,
     NULL, "extended to every channel-mixing layer of sweeps/layers/"},
    {"C52", "Sec. 5.3", "All three layers exceeding 5% are of this kind [output larger than the padded input].",
     "over5_larger_output", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("ra", "w_rip * 100 > w_hb * 105", "n_out > n_in_padded",
         "public-table layers above 1.05 W_hb (N_out > H_p W_p C_in)"),
     0, NULL, "checked on every channel-mixing layer of sweeps/layers/ (our Tab. 6 selection has none above 5%)"},
    {"C53", "Sec. 5.3; App. H",
     "the worst at 17.0%, an Inception-v3 7x1 branch whose kernel is maximally anisotropic.",
     "inception_7x1_ratio", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN printf('%.3f', 1.0 * w_rip / w_hb) = '1.170' THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%s: W_rip / W_hb = %.3f (paper 1.170)', name, 1.0 * w_rip / w_hb), NULL\n"
     "FROM ra WHERE network = 'inception_v3' AND name = 'Mixed_6b.branch7x7_3.conv'",
     0, NULL, "the layer is Mixed_6b.branch7x7_3 (7x1, 128 -> 192, 17x17)"},
    {"C54", "Sec. 5.3",
     "a practitioner meeting such a layer can [...] transpose the input and kernels to process in column order "
     "instead, which in this case matches herringbone gap exactly.",
     "inception_7x1_column_order", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN w_rip_col = w_hb THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('column-major W_rip = %d against W_hb = %d (ratio %.3f; simulated column-major %d)', w_rip_col, w_hb,\n"
     "              1.0 * w_rip_col / w_hb, w_rip_col_truth), NULL\n"
     "FROM ra WHERE network = 'inception_v3' AND name = 'Mixed_6b.branch7x7_3.conv'",
     0, NULL, NULL},
    {"C55", "App. H",
     "the Dense column is zero on exactly the 46 layers that use no padding, and non-zero on all 38 that do.",
     "tab6_dense_zero_iff_unpadded", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH x AS (SELECT *, p_top + p_bottom + p_left + p_right > 0 AS padded FROM t6)\n"
     "SELECT CASE WHEN sum(padded AND w_dense = w_rip) + sum(NOT padded AND w_dense <> w_rip) > 0 THEN 'contradicted'\n"
     "            WHEN sum(NOT padded) = 46 AND sum(padded) = 38 THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('Dense zero on %d of %d unpadded layers, non-zero on %d of %d padded (paper 46 and 38)',\n"
     "              sum(NOT padded AND w_dense = w_rip), sum(NOT padded), sum(padded AND w_dense < w_rip), sum(padded)),\n"
     "       (SELECT witness FROM x WHERE (padded AND w_dense = w_rip) OR (NOT padded AND w_dense <> w_rip)\n"
     "        ORDER BY size, witness LIMIT 1) FROM x",
     0, NULL, NULL},
    {"C56", "App. H",
     "Across the whole set the dense gap is never smaller than the padded gap and the dense workspace never larger, "
     "strictly so on the 38 layers that pad.",
     "tab6_dense_sign_inversion", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("t6", "w_dense IS NOT NULL",
         "thm13_taps >= thm4_taps AND w_dense <= w_rip AND (p_top + p_bottom + p_left + p_right = 0 OR w_dense < w_rip)",
         "Tab. 6 layers (dense gap >= padded, dense workspace <= padded, < when padded)"),
     0, NULL, NULL},
    {"C57", "App. F.3; App. H", "Tab. 6 reports a mean of 2.1% across the 84 layers", "tab6_mean_dense",
     RIP_CLAIM_AUX, RIP_CLAIM_MEAN, "SELECT 100.0 * (1.0 - 1.0 * w_dense / w_rip) FROM t6 WHERE w_dense IS NOT NULL",
     2.1, "percent further saved by the dense layout, over the Tab. 6 layers", NULL},
    {"C58", "App. F.3; App. H", "but 17.4% on Inception-v3, whose 7x1 and 1x7 branches pad one axis heavily",
     "tab6_inception_dense", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH x AS (SELECT t.* FROM t6 t WHERE EXISTS (SELECT 1 FROM ra r WHERE r.network = 'inception_v3'\n"
     "           AND r.name = t.name AND r.spec = t.spec))\n"
     "SELECT CASE WHEN printf('%.1f', avg(100.0 * (1.0 - 1.0 * w_dense / w_rip))) = '17.4' THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('mean %.1f%% over our %d Inception-v3 layers of Tab. 6 (%s)', avg(100.0 * (1.0 - 1.0 * w_dense / w_rip)),\n"
     "              count(*), group_concat(name, ', ')), NULL FROM x",
     0, NULL, "our Tab. 6 selection takes Inception-v3's two largest layers (the stem), not its 7x1 branches"},
    {"C59", "App. H", "and 25.3% on the single worst layer", "tab6_worst_dense", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN printf('%.1f', max(100.0 * (1.0 - 1.0 * w_dense / w_rip))) = '25.3' THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('largest Dense over the Tab. 6 layers %.1f%% (paper 25.3%%)', max(100.0 * (1.0 - 1.0 * w_dense / w_rip))),\n"
     "       NULL FROM t6 WHERE w_dense IS NOT NULL",
     0, NULL, NULL},
    {"C60", "App. H", "Eleven of the seventeen families contain no layer above a 1.01 workspace ratio",
     "tab6_families_max", RIP_CLAIM_AUX, RIP_CLAIM_NONE, NULL, 0, NULL,
     "two of the seventeen families (pruned ResNet-56 and VGG-16) have no public layer list; results/table6.md "
     "gives Max per reproduced family"},
    /* ---------------------------------------------------------- App. I, single layers */
    {"C61", "App. I",
     "On VGG-16's conv1_2 (64 -> 64, k = 3, 224x224, same padding) [...] giving W* = N_out + (p_h W_out + p_w) "
     "C_out = 3,211,264 + 14,400 = 3,225,664 B.",
     "appI_vgg16_conv1_2", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("pl", "network = 'appI_vgg16_conv1_2'",
         "thm13_gather + n_in_dense = 3225664 AND rip_dense_gather + n_in_dense = 3225664",
         "layers (dense, gathered: W* = 3,225,664)"),
     0, NULL, NULL},
    {"C62", "App. I",
     "The Inception pair peaks on the channel-doubling stem convolution (32 -> 64, k = 3, 147x147, same padding) "
     "[...] giving W* = N_out + beta = 1,382,976 + 4,704 = 1,387,680 B.",
     "appI_inception_stem", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("pl", "network = 'appI_inception_stem'",
         "thm13_gather + n_in_dense = 1387680 AND rip_dense_gather + n_in_dense = 1387680",
         "layers (dense, gathered: W* = 1,387,680)"),
     0, NULL, NULL},
    /* ---------------------------------------------------------- Sec. 4.3, 5.4, Tab. 3, Fig. 1 (planner) */
    {"C63", "Tab. 3", "Peak activation memory (B), Base: 46,080 ... 245,760 for the eleven MCUNet models.",
     "tab3_base_peaks", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN sum(base = paper_base) = 11 THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%d of %d baseline peaks equal (strategy tinyengine, in-place depthwise)%s', sum(base = paper_base), count(*),\n"
     "              coalesce('; not: ' || group_concat(CASE WHEN base <> paper_base THEN label END, ', '), '')), NULL FROM plans",
     0, NULL, NULL},
    {"C64", "Tab. 3", "Peak activation memory (B), RiP: 36,864 ... 163,840 for the eleven MCUNet models.",
     "tab3_rip_peaks", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN sum(rip = paper_rip) = 11 THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%d of %d RiP peaks equal (strategy milp, RiP candidates)%s', sum(rip = paper_rip), count(*),\n"
     "              coalesce('; not: ' || group_concat(CASE WHEN rip <> paper_rip THEN label END, ', '), '')), NULL FROM plans",
     0, NULL, NULL},
    {"C65", "Abstract; Sec. 5.4; Sec. 6",
     "RiP reduces peak activation memory on every model, by 12.5 to 33.3% (mean 19.7%, 444,672 B in total across "
     "the eleven).",
     "tab3_reduction", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH r AS (SELECT 100.0 * (base - rip) / base AS v, base - rip AS b FROM plans)\n"
     "SELECT CASE WHEN min(b) <= 0 THEN 'contradicted'\n"
     "            WHEN printf('%.1f %.1f %.1f %d', min(v), max(v), avg(v), sum(b)) = '12.5 33.3 19.7 444672'\n"
     "            THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('reductions %.1f to %.1f%%, mean %.1f%%, %d B in total', min(v), max(v), avg(v), sum(b)), NULL FROM r",
     0, NULL, NULL},
    {"C66", "Sec. 5.4", "The reductions land on exact fractions (Tab. 3), and this is the bound showing through.",
     "tab3_exact_fractions", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH d AS (SELECT *, base AS size, label AS witness FROM plans),\n"
     "     b AS (SELECT * FROM d WHERE rip * paper_den <> base * paper_num)\n"
     "SELECT CASE WHEN (SELECT count(*) FROM b) = 0 THEN 'agrees' ELSE 'contradicted' END,\n"
     "       printf('RiP / Base equals the paper''s fraction on %d of %d models', (SELECT count(*) FROM d) - (SELECT count(*) FROM b),\n"
     "              (SELECT count(*) FROM d)), (SELECT witness FROM b ORDER BY size LIMIT 1)",
     0, NULL, NULL},
    {"C67", "Abstract; Sec. 5.4",
     "raising the number of models that fit the Pico 1's 256 KB SRAM from six to nine.", "tab3_fit_pico1",
     RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH f AS (SELECT base + paper_buffer + " RIP_PAPER_STR(RIP_PAPER_SDK_BYTES) " + " RIP_PAPER_STR(RIP_PAPER_STACK_BYTES) " <= " RIP_PAPER_STR(RIP_PAPER_PICO1_SRAM) " AS fb, rip + paper_buffer + " RIP_PAPER_STR(RIP_PAPER_SDK_BYTES) " + " RIP_PAPER_STR(RIP_PAPER_STACK_BYTES) " <= " RIP_PAPER_STR(RIP_PAPER_PICO1_SRAM) " AS fr\n"
     "           FROM plans)\n"
     "SELECT CASE WHEN sum(fb) = " RIP_PAPER_STR(RIP_PAPER_PICO1_FIT_BASE) " AND sum(fr) = " RIP_PAPER_STR(RIP_PAPER_PICO1_FIT_RIP) " THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('%d fit at baseline, %d with RiP (arena + Tab. 3 buffer + 7,964 B SDK + 2,048 B stack <= 256 KB)',\n"
     "              sum(fb), sum(fr)), NULL FROM f",
     0, NULL, "fit read as Sec. 5.4's band: arena + scratch buffer + SDK/TinyUSB data + stack within 262,144 B"},
    {"C68", "Sec. 5.4; Fig. 1",
     "Depthwise-only in-place peaks at 247,808 B, which with the band overruns the Pico 1 by 14,212 B; RiP peaks at "
     "185,856 B and clears it by 47,740 B.",
     "fig1_in3_margins", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN base = " RIP_PAPER_STR(RIP_PAPER_IN3_BASE) " AND rip = " RIP_PAPER_STR(RIP_PAPER_IN3_RIP) " AND base + " RIP_PAPER_STR(RIP_PAPER_IN3_BAND) " - " RIP_PAPER_STR(RIP_PAPER_PICO1_SRAM) " = " RIP_PAPER_STR(RIP_PAPER_IN3_OVERRUN) " AND " RIP_PAPER_STR(RIP_PAPER_PICO1_SRAM) " - rip - " RIP_PAPER_STR(RIP_PAPER_IN3_BAND) " = " RIP_PAPER_STR(RIP_PAPER_IN3_CLEARANCE) "\n"
     "            THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('MCUNet-in3: base %d B overruns by %d B, RiP %d B clears by %d B (band 28,548 B)', base,\n"
     "              base + " RIP_PAPER_STR(RIP_PAPER_IN3_BAND) " - " RIP_PAPER_STR(RIP_PAPER_PICO1_SRAM) ", rip, " RIP_PAPER_STR(RIP_PAPER_PICO1_SRAM) " - rip - " RIP_PAPER_STR(RIP_PAPER_IN3_BAND) "), NULL FROM plans WHERE model = 'mcunet-in3'",
     0, NULL, NULL},
    {"C69", "Sec. 5.4", "Proxyless-w0.3 clears by a similar margin, Person-Det by 76,604 B.", "fig1_persondet_margin",
     RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "SELECT CASE WHEN " RIP_PAPER_STR(RIP_PAPER_PICO1_SRAM) " - rip - paper_buffer - " RIP_PAPER_STR(RIP_PAPER_SDK_BYTES) " - " RIP_PAPER_STR(RIP_PAPER_STACK_BYTES) " = " RIP_PAPER_STR(RIP_PAPER_PERSON_CLEARANCE) " THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('Person-Det with RiP clears the Pico 1 by %d B', " RIP_PAPER_STR(RIP_PAPER_PICO1_SRAM) " - rip - paper_buffer - " RIP_PAPER_STR(RIP_PAPER_SDK_BYTES) " - " RIP_PAPER_STR(RIP_PAPER_STACK_BYTES) "), NULL\n"
     "FROM plans WHERE model = 'person-det'",
     0, NULL, NULL},
    {"C70", "Sec. 4.3",
     "It still returns r_i = 0 everywhere: across all eleven deployed models, between 44% and 57% of tensors are "
     "placed in-place and not one memmove is scheduled.",
     "tab3_inplace_share_no_shift", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH s AS (SELECT 100.0 * rip_inplace / n_tensors AS v, rip_shifts FROM plans)\n"
     "SELECT CASE WHEN sum(rip_shifts) > 0 THEN 'contradicted' WHEN min(v) >= 44 AND max(v) <= 57 THEN 'agrees'\n"
     "            ELSE 'differs' END,\n"
     "       printf('%d runtime shifts; in-place share %.1f%% to %.1f%% of tensors', sum(rip_shifts), min(v), max(v)), NULL\n"
     "FROM s",
     0, NULL, "which candidates the MILP uses in place is its choice among equally good plans, so the share is "
              "one optimal plan's"},
    {"C71", "Sec. 4.3; Fig. 1 caption",
     "On naive dual buffering and on TinyEngine's own schedule, the program reaches the same peak as first-fit.",
     "milp_equals_first_fit", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH d AS (SELECT *, base AS size, label AS witness FROM plans),\n"
     "     b AS (SELECT * FROM d WHERE naive_milp <> naive_ff OR base_milp <> base)\n"
     "SELECT CASE WHEN (SELECT count(*) FROM b) = 0 THEN 'agrees' ELSE 'contradicted' END,\n"
     "       printf('MILP = first fit under dual buffering and under TinyEngine''s schedule on %d of %d models',\n"
     "              (SELECT count(*) FROM d) - (SELECT count(*) FROM b), (SELECT count(*) FROM d)),\n"
     "       (SELECT witness || ': dual MILP ' || naive_milp || ' B, first fit ' || naive_ff || ' B; TinyEngine MILP ' ||\n"
     "               base_milp || ' B, first fit ' || base || ' B' FROM b ORDER BY size LIMIT 1)",
     0, NULL, "first fit read as strategy tinyengine (TinyEngine's scheduler)"},
    {"C72", "Sec. 4.3",
     "on MCUNet-in2 and in3 (Fig. 1), [...] it strands the reclaimed space between live tensors and returns no "
     "peak reduction at all despite the smaller buffers.",
     "first_fit_strands_rip", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH d AS (SELECT *, base AS size, label AS witness FROM plans WHERE model IN ('mcunet-in2', 'mcunet-in3')),\n"
     "     b AS (SELECT * FROM d WHERE rip_ff <> base)\n"
     "SELECT CASE WHEN (SELECT count(*) FROM b) = 0 THEN 'agrees' ELSE 'contradicted' END,\n"
     "       (SELECT group_concat(label || ': first fit with RiP ' || rip_ff || ' B against base ' || base || ' B', '; ') FROM d),\n"
     "       (SELECT witness FROM b ORDER BY size LIMIT 1)",
     0, NULL, "first fit read as strategy tinyengine with the RiP candidates"},
    /* ---------------------------------------------------------- not checkable here */
    {"C73", "Sec. 5.3",
     "We also run the 48 layers that fit on the Pico 2 and show that the right-shift is close to free: every one "
     "costs within 1% of the dual-buffer kernel.",
     "-", RIP_CLAIM_AUX, RIP_CLAIM_NONE, NULL, 0, NULL, "runtime on a Pico 2 board; none is attached here"},
    {"C74", "Sec. 5.4", "the mean cycle ratio on the Pico 2 is 1.0005", "-", RIP_CLAIM_AUX, RIP_CLAIM_NONE, NULL, 0,
     NULL, "cycle counts need the board; results/table3.md gives QEMU instruction counts instead"},
    {"C75", "App. I", "RiP cuts peak activation memory on all 33, by 20.0% to 49.8% (mean 32.6%).", "-",
     RIP_CLAIM_AUX, RIP_CLAIM_NONE, NULL, 0, NULL,
     "the 33 keras.applications MILPs take about 20 s; `ripsim tables table7` (results/table7.md, regenerated by "
     "its own test) compares every model"},
    {"C76", "App. I",
     "the pairwise no-overlap constraints put three overlap binaries on each of the n(n-1)/2 tensor pairs, so the "
     "dual-buffer formulation has exactly 3n(n-1)/2 binaries on all 33 models.",
     "-", RIP_CLAIM_AUX, RIP_CLAIM_NONE, NULL, 0, NULL,
     "our program puts binaries only on pairs whose lifetimes overlap, so its size is not the paper's by "
     "construction"},
    {"C77", "App. I",
     "across the 33, the solver schedules a right shift on four models only (VGG-16, VGG-19, Inception-v3, and "
     "InceptionResNetV2).",
     "-", RIP_CLAIM_AUX, RIP_CLAIM_NONE, NULL, 0, NULL,
     "the keras MILPs are solved by `ripsim tables table7` (results/table7.md, Shift column), not here"},
    {"C78", "App. I.1 (Theorem 14)",
     "Under the layout above and reverse row-major traversal, no output write reaches a live input for any S >= 1, "
     "and the minimum workspace is W* = N_out.",
     "-", RIP_CLAIM_AUX, RIP_CLAIM_NONE, NULL, 0, NULL,
     "the sweep and the layer tables hold convolutions only; the planner's checker simulates each in-place "
     "upsampling of a plan instead"},
    {"C79", "App. E.3",
     "A traversal that discards those before storing the input and then runs herringbone uses strictly less "
     "memory.",
     "pruned_strictly_less", RIP_CLAIM_SWEEP, RIP_CLAIM_SQL,
     ALL("cl", "n_in_read < n_in_padded", "herringbone_pruned + n_in_read < herringbone_taps + n_in_padded",
         "layers with input no output reads (herringbone_pruned workspace < herringbone_taps workspace)"),
     0, NULL,
     "the pruned traversal as `herringbone_pruned` (unread input never stored, herringbone order, window "
     "release; sim/README.md), its workspace against `herringbone_taps`' on every sweep layer with unread input"},
    {"C80", "App. E.3",
     "Evaluating the major and minor candidates here would sum a leg sequence that does not exist and would "
     "overestimate the peak by up to 128 scalars on the configurations of Appendix G.",
     "-", RIP_CLAIM_SWEEP, RIP_CLAIM_NONE, NULL, 0, NULL,
     "the unguarded evaluation is not implemented (formulas/ has the corrected Theorem 11 only)"},
    {"C81", "Sec. 3.3; App. E.3; Sec. 6",
     "Whether herringbone remains memory-optimal among all traversals under arbitrary parameters is a separate "
     "question, and the answer is no.",
     "optimum_below_herringbone", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     "WITH x AS (SELECT * FROM small_opt WHERE optimum < herringbone_taps_reader)\n"
     "SELECT CASE WHEN count(*) > 0 THEN 'agrees' ELSE 'differs' END,\n"
     "       printf('the traversal optimum is below herringbone on %d of %d sweep layers with at most 12 output '\n"
     "              || 'pixels (%d of them restricted); the smallest is the example', count(*),\n"
     "              (SELECT count(*) FROM small_opt), coalesce(sum(restricted), 0)),\n"
     "       (SELECT witness FROM x ORDER BY size, witness LIMIT 1) FROM x",
     0, NULL,
     "an existence claim, checked by `ripsim optimal`'s exact search (every visiting order, last-reader release) "
     "on the sweep's small grids against herringbone_taps_reader (the same release rule); the witness is an "
     "example"},
    {"C83", "Sec. 1; Sec. 2",
     "Gural and Murmann [9] prove that a herringbone traversal minimizes activation memory for direct "
     "convolution [...] under valid padding, unit stride, unit dilation, and odd square kernels.",
     "herringbone_optimal_restricted", RIP_CLAIM_AUX, RIP_CLAIM_SQL,
     ALL("small_opt", "restricted = 1", "herringbone_taps = optimum AND herringbone_taps_reader = optimum",
         "restricted sweep layers with at most 12 output pixels (herringbone gap = traversal optimum)"),
     0, NULL,
     "checked by `ripsim optimal`'s exact search on the sweep's restricted small grids, both herringbone release "
     "rules against the optimum over every visiting order; results/optimum.md covers every restricted grid up "
     "to 4x4 with C_in, C_out <= 8"},
    {"C82", "App. G.3; Tab. 3", "Every deployed model in Tab. 3 carries an on-device checksum [...]. All eleven agree "
                                "bit for bit.",
     "-", RIP_CLAIM_AUX, RIP_CLAIM_NONE, NULL, 0, NULL,
     "on-device runs; `./build.sh firmware` checks the QEMU runs (results/table3.md, deployment table)"},
};

const rip_claim *rip_claims(size_t *n)
{
    *n = sizeof registry / sizeof registry[0];
    return registry;
}

/* Contract (claims.h): the name after ALL_HEAD, up to its " WHERE ". */
const char *rip_claim_every_from(const rip_claim *c)
{
    static const char *const views[] = {"cl", "lead", "ra", "t6", "pl", "small_opt"};
    const size_t head = sizeof ALL_HEAD - 1;
    if (c->kind != RIP_CLAIM_SQL || c->sql == NULL || strncmp(c->sql, ALL_HEAD, head) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        const size_t len = strlen(views[i]);
        if (strncmp(c->sql + head, views[i], len) == 0 && strncmp(c->sql + head + len, " WHERE ", 7) == 0)
            return views[i];
    }
    return NULL;
}
