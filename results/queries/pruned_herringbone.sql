-- pruned_herringbone.sql — Appendix E.3's pruned herringbone against the unpruned ones.
--
-- Answers: E.3 says a traversal that discards the input no output reads
-- ("stale on arrival") before storing it, then runs herringbone, "uses
-- strictly less memory".  Configuration herringbone_pruned (sim/README.md)
-- stores only the read input (n_in_read scalars) and releases it by the
-- window rule of herringbone_taps; its workspace is gap + n_in_read, the
-- others' gap + n_in_padded.  All are simulated truths (view truths).
--
-- Run:  sqlite3 -header -column results/sweep.db < results/queries/pruned_herringbone.sql
--
-- Results, in order:
--   1. the count per generator category: layers with stale input, and of
--      those where pruning saves workspace against herringbone_taps, and
--      where it saves nothing (E.3's "strictly" fails);
--   2. the layers with stale input where pruning saves nothing, smallest
--      output first (the stale input leaves the unpruned pool before its
--      peak);
--   3. the 20 largest savings against herringbone_taps, with the reader
--      release's workspace beside them.

SELECT l.generator, l.tier,
       sum(w.n_in_read < w.n_in_padded) AS stale_layers,
       sum(w.n_in_read < w.n_in_padded AND p.workspace < h.workspace) AS pruning_saves,
       sum(w.n_in_read < w.n_in_padded AND p.workspace = h.workspace) AS pruning_saves_nothing,
       sum(p.workspace > h.workspace) AS pruning_costs
FROM layers l
JOIN layer_wide w ON w.layer_idx = l.layer_idx
JOIN truths p ON p.run_id = l.run_id AND p.layer_idx = l.layer_idx AND p.exec_config = 'herringbone_pruned'
JOIN truths h ON h.run_id = l.run_id AND h.layer_idx = l.layer_idx AND h.exec_config = 'herringbone_taps'
GROUP BY l.generator
ORDER BY l.tier, l.generator;

SELECT l.layer_idx, l.generator, l.cin, l.cout, l.h_in, l.w_in, l.k_h, l.k_w, l.s_h, l.s_w,
       l.d_h, l.d_w, l.p_top, l.p_bottom, l.p_left, l.p_right, l.n_out,
       w.n_in_padded - w.n_in_read AS stale_scalars,
       h.gap AS hb_gap, p.gap AS pruned_gap, h.workspace AS hb_workspace, p.workspace AS pruned_workspace
FROM layers l
JOIN layer_wide w ON w.layer_idx = l.layer_idx
JOIN truths p ON p.run_id = l.run_id AND p.layer_idx = l.layer_idx AND p.exec_config = 'herringbone_pruned'
JOIN truths h ON h.run_id = l.run_id AND h.layer_idx = l.layer_idx AND h.exec_config = 'herringbone_taps'
WHERE w.n_in_read < w.n_in_padded AND p.workspace = h.workspace
ORDER BY l.n_out, l.layer_idx;

SELECT l.layer_idx, l.generator, l.cin, l.cout, l.h_in, l.w_in, l.k_h, l.k_w, l.s_h, l.s_w,
       l.d_h, l.d_w, l.p_top, l.p_bottom, l.p_left, l.p_right,
       w.n_in_padded - w.n_in_read AS stale_scalars,
       h.workspace AS hb_workspace, r.workspace AS reader_workspace, p.workspace AS pruned_workspace,
       h.workspace - p.workspace AS saving,
       printf('%.4f', 1.0 * p.workspace / h.workspace) AS ws_ratio
FROM layers l
JOIN layer_wide w ON w.layer_idx = l.layer_idx
JOIN truths p ON p.run_id = l.run_id AND p.layer_idx = l.layer_idx AND p.exec_config = 'herringbone_pruned'
JOIN truths h ON h.run_id = l.run_id AND h.layer_idx = l.layer_idx AND h.exec_config = 'herringbone_taps'
JOIN truths r ON r.run_id = l.run_id AND r.layer_idx = l.layer_idx AND r.exec_config = 'herringbone_taps_reader'
WHERE p.workspace < h.workspace
ORDER BY h.workspace - p.workspace DESC, l.layer_idx
LIMIT 20;
