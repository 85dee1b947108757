-- dense_vs_padded.sql — the sign inversion of Eq. 42 (App. F.3, App. H).
--
-- Answers: dropping the padding raises the gap but lowers the workspace —
-- does it, on every layer of the sweep?  With W* = Theorem 4 gap +
-- N_in_padded and W_d* = Theorem 13 gap + N_in_dense (closed forms, both
-- with the same tap order), Eq. 42 says W* - W_d* >= 0 on every layer and
-- > 0 whenever the padding is non-zero; App. H adds that the dense gap is
-- never smaller than the padded gap (stated for the 84 real layers).
-- Layers where Theorem 13 is not defined (p >= k_eff) are left out.
--
-- Run:  sqlite3 -header -column results/sweep.db < results/queries/dense_vs_padded.sql
--
-- First result: per tap order (taps: sigma = C_out, thm4_taps vs
-- thm13_taps; gather: sigma = 0, thm4_gather vs thm13_gather) the number
-- of layers, of layers with W_d* <= W*, of padded layers, of padded layers
-- with W_d* < W*, and of layers whose dense gap is >= the padded gap.
-- Second result: every layer breaking one of these, with saving = W* - W_d*.

SELECT CASE WHEN a.formula = 'thm4_taps' THEN 'taps' ELSE 'gather' END AS tap_order,
       count(*) AS layers,
       sum(a.value + l.n_in_padded >= b.value + l.n_in_dense) AS dense_ws_le_padded,
       sum(l.p_top + l.p_bottom + l.p_left + l.p_right > 0) AS padded_layers,
       sum(l.p_top + l.p_bottom + l.p_left + l.p_right > 0
           AND a.value + l.n_in_padded > b.value + l.n_in_dense) AS padded_strictly_less,
       sum(b.value >= a.value) AS dense_gap_ge_padded,
       printf('%.2f', avg(100.0 * ((a.value + l.n_in_padded) - (b.value + l.n_in_dense))
                          / (a.value + l.n_in_padded))) AS mean_saving_pct
FROM layers l
JOIN verdicts a ON a.run_id = l.run_id AND a.layer_idx = l.layer_idx
JOIN verdicts b ON b.run_id = l.run_id AND b.layer_idx = l.layer_idx
WHERE ((a.formula = 'thm4_taps' AND b.formula = 'thm13_taps')
    OR (a.formula = 'thm4_gather' AND b.formula = 'thm13_gather'))
  AND a.value IS NOT NULL AND b.value IS NOT NULL
GROUP BY tap_order
ORDER BY tap_order DESC;

SELECT CASE WHEN a.formula = 'thm4_taps' THEN 'taps' ELSE 'gather' END AS tap_order,
       l.layer_idx, l.generator, l.cin, l.cout, l.h_in, l.w_in, l.k_h, l.k_w, l.s_h, l.s_w,
       l.d_h, l.d_w, l.p_top, l.p_bottom, l.p_left, l.p_right,
       a.value AS padded_gap, b.value AS dense_gap,
       a.value + l.n_in_padded AS padded_ws, b.value + l.n_in_dense AS dense_ws,
       (a.value + l.n_in_padded) - (b.value + l.n_in_dense) AS saving,
       CASE WHEN a.value + l.n_in_padded < b.value + l.n_in_dense THEN 'dense workspace larger'
            WHEN l.p_top + l.p_bottom + l.p_left + l.p_right > 0
                 AND a.value + l.n_in_padded = b.value + l.n_in_dense THEN 'padded, no saving'
            ELSE 'dense gap smaller' END AS breaks
FROM layers l
JOIN verdicts a ON a.run_id = l.run_id AND a.layer_idx = l.layer_idx
JOIN verdicts b ON b.run_id = l.run_id AND b.layer_idx = l.layer_idx
WHERE ((a.formula = 'thm4_taps' AND b.formula = 'thm13_taps')
    OR (a.formula = 'thm4_gather' AND b.formula = 'thm13_gather'))
  AND a.value IS NOT NULL AND b.value IS NOT NULL
  AND (a.value + l.n_in_padded < b.value + l.n_in_dense
       OR (l.p_top + l.p_bottom + l.p_left + l.p_right > 0
           AND a.value + l.n_in_padded = b.value + l.n_in_dense)
       OR b.value < a.value)
ORDER BY tap_order DESC, l.layer_idx;
