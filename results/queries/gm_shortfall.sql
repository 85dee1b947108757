-- gm_shortfall.sql — Limitation 1 and Lemma 9: how far G&M Eq. 1 falls short.
--
-- Answers: on the restricted layers with C_out > C_in (where Eq. 1 is
-- defined), what is the shortfall truth - Eq. 1 against the simulated
-- herringbone truth, and is it exactly (k-1)C_in mod (C_out-C_in), the
-- remainder Lemma 9 predicts?  Lemma 9 assumes floor(x*) <= W_out - 1 with
-- x* = (k-1)C_in / (C_out-C_in); there every row must have match = 1
-- (integer x*: shortfall 0, tight; non-integer x*: unsafe by the
-- remainder).  Outside the grid (in_grid = 0, Limitation 2) Eq. 1 evaluates
-- its square beyond the output grid and usually overestimates: shortfall
-- is then negative and match is not expected.
--
-- Run:  sqlite3 -header -column results/sweep.db < results/queries/gm_shortfall.sql
--
-- First result: one row per such layer (in-grid layers first).  x_star is
-- printed with 3 decimals; floor_x_star is exact (integer division of
-- positive integers).  eq1 is the closed form, truth the herringbone_taps
-- gap, shortfall = truth - eq1, predicted = (k-1)C_in mod (C_out-C_in),
-- match = (shortfall = predicted), in_grid = (floor(x*) <= W_out - 1).
-- Layers where Eq. 1 is not defined (its arithmetic would overflow) are
-- left out.
-- Second result: per in_grid, the number of layers, of matches, and the
-- verdicts.

SELECT l.layer_idx,
       l.generator,
       l.cin,
       l.cout,
       l.k_h AS k,
       l.h_in,
       l.w_out,
       printf('%.3f', (l.k_h - 1) * l.cin * 1.0 / (l.cout - l.cin)) AS x_star,
       (l.k_h - 1) * l.cin / (l.cout - l.cin) AS floor_x_star,
       ((l.k_h - 1) * l.cin / (l.cout - l.cin) <= l.w_out - 1) AS in_grid,
       v.value AS eq1,
       v.truth,
       v.truth - v.value AS shortfall,
       ((l.k_h - 1) * l.cin) % (l.cout - l.cin) AS predicted,
       (v.truth - v.value = ((l.k_h - 1) * l.cin) % (l.cout - l.cin)) AS match,
       v.verdict
FROM verdicts v
JOIN layers l ON l.run_id = v.run_id AND l.layer_idx = v.layer_idx
WHERE v.formula = 'gm2019_eq1'
  AND v.value IS NOT NULL AND v.truth IS NOT NULL
  AND l.restricted = 1 AND l.cout > l.cin
ORDER BY in_grid DESC, l.layer_idx;

SELECT ((l.k_h - 1) * l.cin / (l.cout - l.cin) <= l.w_out - 1) AS in_grid,
       count(*) AS layers,
       sum(v.truth - v.value = ((l.k_h - 1) * l.cin) % (l.cout - l.cin)) AS matches,
       sum(((l.k_h - 1) * l.cin) % (l.cout - l.cin) != 0) AS non_integer_x_star,
       sum(v.verdict = 'unsafe') AS unsafe,
       sum(v.verdict = 'tight') AS tight,
       sum(v.verdict = 'loose') AS loose,
       max(v.truth - v.value) AS max_shortfall,
       min(v.truth - v.value) AS min_shortfall
FROM verdicts v
JOIN layers l ON l.run_id = v.run_id AND l.layer_idx = v.layer_idx
WHERE v.formula = 'gm2019_eq1'
  AND v.value IS NOT NULL AND v.truth IS NOT NULL
  AND l.restricted = 1 AND l.cout > l.cin
GROUP BY in_grid
ORDER BY in_grid DESC;
