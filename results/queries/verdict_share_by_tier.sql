-- verdict_share_by_tier.sql — verdicts of every closed form per tier of paper Tab. 5.
--
-- Answers: how do the verdicts split across the three tiers of the sweep
-- (1: real-network geometry, 2: small-grid and degenerate, 3: correctness
-- corners; App. G.2)?  The paper's remark that every defect found lives in
-- tier 2 can be read off the loose and unsafe columns.
--
-- Run:  sqlite3 -header -column results/sweep.db < results/queries/verdict_share_by_tier.sql
--
-- One row per (formula, tier), in formula order, then a row with tier
-- 'all' totalling the formula; naive_workspace (a workspace, never judged)
-- is left out.  judged = unsafe + tight + loose; pct_tight and pct_unsafe
-- are shares of judged in percent (NULL when nothing was judged).

SELECT formula, tier, layers, unsafe, tight, loose, na, judged,
       CASE WHEN judged > 0 THEN printf('%.2f', 100.0 * tight / judged) END AS pct_tight,
       CASE WHEN judged > 0 THEN printf('%.2f', 100.0 * unsafe / judged) END AS pct_unsafe
FROM (
    SELECT f.ord, v.formula, CAST(l.tier AS TEXT) AS tier,
           count(*) AS layers,
           sum(v.verdict = 'unsafe') AS unsafe,
           sum(v.verdict = 'tight') AS tight,
           sum(v.verdict = 'loose') AS loose,
           sum(v.verdict = 'n/a') AS na,
           sum(v.verdict != 'n/a') AS judged
    FROM verdicts v
    JOIN layers l ON l.run_id = v.run_id AND l.layer_idx = v.layer_idx
    JOIN formulas f ON f.formula = v.formula
    WHERE f.is_workspace = 0
    GROUP BY v.formula, l.tier
    UNION ALL
    SELECT f.ord, v.formula, 'all',
           count(*),
           sum(v.verdict = 'unsafe'),
           sum(v.verdict = 'tight'),
           sum(v.verdict = 'loose'),
           sum(v.verdict = 'n/a'),
           sum(v.verdict != 'n/a')
    FROM verdicts v
    JOIN formulas f ON f.formula = v.formula
    WHERE f.is_workspace = 0
    GROUP BY v.formula
)
ORDER BY ord, tier;
