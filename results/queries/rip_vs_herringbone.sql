-- rip_vs_herringbone.sql — where row-major RiP beats the herringbone, and the reverse.
--
-- Answers: on which layers does RiP (padded layout, row-major, taps read
-- from the workspace) need a smaller simulated gap than the generalized
-- herringbone traversal (taps read from the workspace, window release),
-- and where does it need more?  Both configurations keep the same stored
-- input (the padded input, N_in_padded scalars), so comparing gaps is
-- comparing workspaces; both are simulated truths (table truths:
-- rip_padded_taps vs herringbone_taps), not closed forms.
--
-- Run:  sqlite3 -header -column results/sweep.db < results/queries/rip_vs_herringbone.sql
--
-- Results, in order:
--   1. layers where RiP needs less (hb_minus_rip > 0), largest saving first;
--   2. layers where the herringbone needs less (hb_minus_rip < 0), largest
--      RiP cost first; ws_ratio = RiP workspace / herringbone workspace;
--   3. the count per generator category (rip_better, equal, hb_better);
--   4. the overall counts.

SELECT l.layer_idx, l.generator, l.cin, l.cout, l.h_in, l.w_in, l.k_h, l.k_w, l.s_h, l.s_w,
       l.d_h, l.d_w, l.p_top, l.p_bottom, l.p_left, l.p_right,
       r.gap AS rip_gap, h.gap AS hb_gap, h.gap - r.gap AS hb_minus_rip,
       r.workspace AS rip_workspace, h.workspace AS hb_workspace,
       printf('%.4f', 1.0 * r.workspace / h.workspace) AS ws_ratio
FROM layers l
JOIN truths r ON r.run_id = l.run_id AND r.layer_idx = l.layer_idx AND r.exec_config = 'rip_padded_taps'
JOIN truths h ON h.run_id = l.run_id AND h.layer_idx = l.layer_idx AND h.exec_config = 'herringbone_taps'
WHERE r.gap < h.gap
ORDER BY h.gap - r.gap DESC, l.layer_idx;

SELECT l.layer_idx, l.generator, l.cin, l.cout, l.h_in, l.w_in, l.k_h, l.k_w, l.s_h, l.s_w,
       l.d_h, l.d_w, l.p_top, l.p_bottom, l.p_left, l.p_right,
       r.gap AS rip_gap, h.gap AS hb_gap, h.gap - r.gap AS hb_minus_rip,
       r.workspace AS rip_workspace, h.workspace AS hb_workspace,
       printf('%.4f', 1.0 * r.workspace / h.workspace) AS ws_ratio
FROM layers l
JOIN truths r ON r.run_id = l.run_id AND r.layer_idx = l.layer_idx AND r.exec_config = 'rip_padded_taps'
JOIN truths h ON h.run_id = l.run_id AND h.layer_idx = l.layer_idx AND h.exec_config = 'herringbone_taps'
WHERE r.gap > h.gap
ORDER BY r.gap - h.gap DESC, l.layer_idx;

SELECT l.generator,
       l.tier,
       sum(r.gap < h.gap) AS rip_better,
       sum(r.gap = h.gap) AS equal,
       sum(r.gap > h.gap) AS hb_better,
       printf('%.4f', max(1.0 * r.workspace / h.workspace)) AS worst_ws_ratio
FROM layers l
JOIN truths r ON r.run_id = l.run_id AND r.layer_idx = l.layer_idx AND r.exec_config = 'rip_padded_taps'
JOIN truths h ON h.run_id = l.run_id AND h.layer_idx = l.layer_idx AND h.exec_config = 'herringbone_taps'
GROUP BY l.generator
ORDER BY l.tier, l.generator;

SELECT count(*) AS layers,
       sum(r.gap < h.gap) AS rip_better,
       sum(r.gap = h.gap) AS equal,
       sum(r.gap > h.gap) AS hb_better,
       printf('%.4f', avg(1.0 * r.workspace / h.workspace)) AS mean_ws_ratio,
       printf('%.4f', max(1.0 * r.workspace / h.workspace)) AS worst_ws_ratio
FROM layers l
JOIN truths r ON r.run_id = l.run_id AND r.layer_idx = l.layer_idx AND r.exec_config = 'rip_padded_taps'
JOIN truths h ON h.run_id = l.run_id AND h.layer_idx = l.layer_idx AND h.exec_config = 'herringbone_taps';
