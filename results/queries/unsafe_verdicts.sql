-- unsafe_verdicts.sql — every unsafe verdict, with the layer that produced it.
--
-- Answers: where does a closed form fall below the simulated minimum gap
-- (value < truth: an allocation of that size would corrupt live input)?
-- The paper (Sec. 5.2, App. G.1) expects rows only for gm2019_eq1, the
-- as-published Eq. 1 of Gural & Murmann (Limitation 1); a row for
-- corollary1, thm11, thm4_* or thm13_* contradicts the paper.
--
-- Run:  sqlite3 -header -column results/sweep.db < results/queries/unsafe_verdicts.sql
--
-- First result: one row per unsafe verdict, in formula order (table
-- formulas), then layer order.  shortfall = truth - value (scalars).  spec
-- reproduces the layer:  ripsim layer '<spec>'.
-- Second result: the count per formula (formulas with none are listed
-- with 0).

SELECT v.formula,
       v.exec_config,
       v.layer_idx,
       l.generator,
       l.tier,
       v.value,
       v.truth,
       v.truth - v.value AS shortfall,
       l.restricted,
       l.cin, l.cout, l.h_in, l.w_in, l.k_h, l.k_w, l.s_h, l.s_w, l.d_h, l.d_w,
       l.p_top, l.p_bottom, l.p_left, l.p_right, l.h_out, l.w_out,
       printf('cin=%d,cout=%d,h=%d,w=%d,k=%dx%d,s=%dx%d,d=%dx%d,pt=%d,pb=%d,pl=%d,pr=%d',
              l.cin, l.cout, l.h_in, l.w_in, l.k_h, l.k_w, l.s_h, l.s_w, l.d_h, l.d_w,
              l.p_top, l.p_bottom, l.p_left, l.p_right) AS spec
FROM verdicts v
JOIN layers l ON l.run_id = v.run_id AND l.layer_idx = v.layer_idx
JOIN formulas f ON f.formula = v.formula
WHERE v.verdict = 'unsafe'
ORDER BY f.ord, v.layer_idx;

SELECT f.formula,
       f.exec_config,
       count(v.layer_idx) AS unsafe,
       coalesce(max(v.truth - v.value), 0) AS max_shortfall
FROM formulas f
LEFT JOIN verdicts v ON v.formula = f.formula AND v.verdict = 'unsafe'
GROUP BY f.formula
ORDER BY f.ord;
