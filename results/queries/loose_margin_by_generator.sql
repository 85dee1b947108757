-- loose_margin_by_generator.sql — which generator categories make each bound loose.
--
-- Answers: for every closed form that is judged against a simulated truth,
-- in which categories of paper Tab. 5 is it loose (value > truth), how
-- often, and by how much (margin = value - truth, scalars)?  The paper
-- expects loose rows for thm13_taps (App. F.4: real input dead from the
-- outset) and gm2019_eq1 (Limitation 2), and none for thm4_*, thm11,
-- corollary1 or thm13_gather.
--
-- Run:  sqlite3 -header -column results/sweep.db < results/queries/loose_margin_by_generator.sql
--
-- One row per (formula, generator) with at least one loose verdict, in
-- formula order, most loose first.  judged counts verdicts other than n/a;
-- pct_loose is loose / judged in percent; mean, min and max are over the
-- loose margins only.  (SQLite has no median: `ripsim report` prints
-- medians and quantiles.)

SELECT v.formula,
       l.generator,
       l.tier,
       sum(v.verdict != 'n/a') AS judged,
       sum(v.verdict = 'loose') AS loose,
       printf('%.2f', 100.0 * sum(v.verdict = 'loose') / sum(v.verdict != 'n/a')) AS pct_loose,
       printf('%.2f', avg(CASE WHEN v.verdict = 'loose' THEN v.margin END)) AS mean_margin,
       min(CASE WHEN v.verdict = 'loose' THEN v.margin END) AS min_margin,
       max(CASE WHEN v.verdict = 'loose' THEN v.margin END) AS max_margin
FROM verdicts v
JOIN layers l ON l.run_id = v.run_id AND l.layer_idx = v.layer_idx
JOIN formulas f ON f.formula = v.formula
WHERE f.is_workspace = 0
GROUP BY v.formula, l.generator
HAVING sum(v.verdict = 'loose') > 0
ORDER BY min(f.ord), loose DESC, l.generator;
