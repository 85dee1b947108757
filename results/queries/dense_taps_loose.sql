-- dense_taps_loose.sql — where the dense bound with taps from the workspace is loose (App. F.4).
--
-- Answers: on which layers does Theorem 13 with sigma = C_out (thm13_taps,
-- judged against rip_dense_taps) exceed the simulated minimum gap, by how
-- much, and does the overshoot stay within sigma = C_out as App. F.4
-- reports?  Sec. 5.2 gives 99.1% tight and a mean overshoot of 91.85
-- scalars where loose.  App. F.4 names the cause: real input that no
-- output reads (dead before the layer starts), through a stride larger
-- than the dilated kernel or a dilation that skips columns/rows, with the
-- dead run at the first address; the flag columns point at these
-- mechanisms (indicators, not a proof).  gather_verdict shows the same
-- layer with the receptive field gathered first (thm13_gather), which the
-- paper reports tight everywhere.
--
-- Run:  sqlite3 -header -column results/sweep.db < results/queries/dense_taps_loose.sql
--
-- First result: one row per loose layer, largest overshoot first.
-- Second result: the count, mean and maximum overshoot, and how many stay
-- within sigma.

SELECT v.layer_idx, l.generator, l.cin, l.cout, l.h_in, l.w_in, l.k_h, l.k_w, l.s_h, l.s_w,
       l.d_h, l.d_w, l.p_top, l.p_bottom, l.p_left, l.p_right, l.h_out, l.w_out,
       v.value AS thm13_taps, v.truth, v.margin AS overshoot, l.cout AS sigma,
       (v.margin <= l.cout) AS within_sigma,
       (l.s_h > l.d_h * (l.k_h - 1) + 1 OR l.s_w > l.d_w * (l.k_w - 1) + 1) AS stride_gt_keff,
       (l.d_h > l.s_h OR l.d_w > l.s_w) AS dilation_gt_stride,
       g.verdict AS gather_verdict
FROM verdicts v
JOIN layers l ON l.run_id = v.run_id AND l.layer_idx = v.layer_idx
LEFT JOIN verdicts g ON g.run_id = v.run_id AND g.layer_idx = v.layer_idx AND g.formula = 'thm13_gather'
WHERE v.formula = 'thm13_taps' AND v.verdict = 'loose'
ORDER BY v.margin DESC, v.layer_idx;

SELECT sum(v.verdict = 'loose') AS loose,
       sum(v.verdict != 'n/a') AS judged,
       printf('%.2f', 100.0 * sum(v.verdict = 'tight') / sum(v.verdict != 'n/a')) AS pct_tight,
       printf('%.2f', avg(CASE WHEN v.verdict = 'loose' THEN v.margin END)) AS mean_overshoot,
       max(CASE WHEN v.verdict = 'loose' THEN v.margin END) AS max_overshoot,
       sum(v.verdict = 'loose' AND v.margin <= l.cout) AS within_sigma
FROM verdicts v
JOIN layers l ON l.run_id = v.run_id AND l.layer_idx = v.layer_idx
WHERE v.formula = 'thm13_taps';
