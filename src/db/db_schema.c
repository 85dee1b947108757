/*
** db_schema.c — the SQL of the verdict database (schema version 2).
**
** Kept as strings so the binary needs no data files; `sqlite3 DB .schema`
** prints it back.  Changing it means bumping RIP_DB_SCHEMA_VERSION in db.h.
** Version 2 added table executions and view execution_summary (EXECUTIONS
** below); a version 1 database is version 2 minus exactly these, which is
** what rip_db_upgrade adds.
*/
#include "db.h"

#define EXECUTIONS                                                                                     \
    "-- `ripsim sweep --execute`: every layer executed with the int8 kernels\n"                        \
    "-- (firmware/kernels/) under each of the four rip_* configurations, in place\n"                  \
    "-- at the configuration's truth and at truth - 1, against the dual-buffer run\n"                 \
    "-- of the same drawn tensors.  A layer has all four rows or none (a sweep run\n"                 \
    "-- without --execute stores none).  Added in schema version 2.\n"                                  \
    "CREATE TABLE executions (\n"                                                                      \
    "  run_id      INTEGER NOT NULL,\n"                                                                \
    "  layer_idx   INTEGER NOT NULL,\n"                                                                \
    "  exec_config TEXT    NOT NULL CHECK (exec_config IN\n"                                           \
    "                ('rip_padded_gather','rip_padded_taps','rip_dense_gather','rip_dense_taps')),\n"  \
    "  gap         INTEGER NOT NULL,       -- the truth it was executed at\n"                          \
    "  bit_exact   INTEGER NOT NULL CHECK (bit_exact IN (0,1)),  -- in-place output = dual-buffer output\n" \
    "  early_overwrite_at_truth INTEGER NOT NULL CHECK (early_overwrite_at_truth IN (0,1)),\n"         \
    "                                      -- the instrumented run at the truth read an overwritten input\n" \
    "  caught_at_truth_minus_1  INTEGER CHECK (caught_at_truth_minus_1 IN (0,1)),\n"                  \
    "                                      -- the instrumented run at truth - 1 caught one; NULL when gap = 0\n" \
    "  catch_step  INTEGER,                -- output scalars written before that catch; NULL when none\n" \
    "  checksum    TEXT    NOT NULL,       -- FNV-1a 32-bit of the dual-buffer output, 8 hex digits\n" \
    "  PRIMARY KEY (run_id, layer_idx, exec_config),\n"                                                \
    "  FOREIGN KEY (run_id, layer_idx) REFERENCES layers(run_id, layer_idx)\n"                         \
    ") WITHOUT ROWID;\n"                                                                               \
    "\n"                                                                                                \
    "CREATE VIEW execution_summary AS\n"                                                               \
    "  SELECT run_id, exec_config,\n"                                                                  \
    "         count(*)                                    AS executed,\n"                              \
    "         sum(bit_exact)                              AS bit_exact,\n"                             \
    "         sum(early_overwrite_at_truth)               AS early_overwrite_at_truth,\n"              \
    "         sum(gap = 0)                                AS truth_zero,\n"                            \
    "         sum(gap > 0)                                AS truth_positive,\n"                        \
    "         coalesce(sum(caught_at_truth_minus_1), 0)   AS caught_at_truth_minus_1\n"                \
    "  FROM executions\n"                                                                              \
    "  GROUP BY run_id, exec_config\n"                                                                 \
    "  ORDER BY run_id, CASE exec_config WHEN 'rip_padded_gather' THEN 0 WHEN 'rip_padded_taps' THEN 1\n" \
    "                   WHEN 'rip_dense_gather' THEN 2 ELSE 3 END;\n"

const char rip_db_executions_sql[] = EXECUTIONS;

const char rip_db_schema_sql[] =
    "-- ripsim verdict database, schema version 2 (PRAGMA user_version = 2).\n"
    "--\n"
    "-- One database holds one run (run_id = 1): a sweep of n_layers layers drawn\n"
    "-- from `seed`, or one shard of it.  Every table is keyed so that SELECT *\n"
    "-- returns rows in key order: two databases of the same seed and size hold\n"
    "-- the same rows in the same order whatever --jobs was and however often the\n"
    "-- sweep was interrupted.  Nothing time-dependent lives in these tables;\n"
    "-- wall-clock facts go to run_log.\n"
    "--\n"
    "-- Units: gaps, values, truths, margins and workspaces are in scalars.\n"
    "\n"
    "CREATE TABLE runs (\n"
    "  run_id          INTEGER PRIMARY KEY,\n"
    "  seed            INTEGER NOT NULL,   -- PCG32 initstate; layer i uses sequence i\n"
    "  n_layers        INTEGER NOT NULL,   -- size of the whole sweep (all shards)\n"
    "  shard_index     INTEGER NOT NULL,   -- this database holds layers with\n"
    "  shard_count     INTEGER NOT NULL,   --   layer_idx % shard_count = shard_index\n"
    "  generator_set   TEXT    NOT NULL,   -- \"name:weight,...\" of the categories used\n"
    "  ripsim_version  TEXT    NOT NULL\n"
    ");\n"
    "\n"
    "CREATE TABLE layers (\n"
    "  run_id      INTEGER NOT NULL REFERENCES runs(run_id),\n"
    "  layer_idx   INTEGER NOT NULL,\n"
    "  generator   TEXT    NOT NULL,       -- category name (sweeps/generators/)\n"
    "  tier        INTEGER NOT NULL,       -- 1, 2 or 3 (paper Tab. 5)\n"
    "  cin INTEGER NOT NULL, cout INTEGER NOT NULL,\n"
    "  h_in INTEGER NOT NULL, w_in INTEGER NOT NULL,\n"
    "  k_h INTEGER NOT NULL, k_w INTEGER NOT NULL,\n"
    "  s_h INTEGER NOT NULL, s_w INTEGER NOT NULL,\n"
    "  d_h INTEGER NOT NULL, d_w INTEGER NOT NULL,\n"
    "  p_h INTEGER NOT NULL, p_w INTEGER NOT NULL,       -- top and left padding\n"
    "  p_top INTEGER NOT NULL, p_bottom INTEGER NOT NULL,\n"
    "  p_left INTEGER NOT NULL, p_right INTEGER NOT NULL,\n"
    "  h_out INTEGER NOT NULL, w_out INTEGER NOT NULL,\n"
    "  restricted  INTEGER NOT NULL,       -- 1 inside Gural & Murmann's setting\n"
    "  n_in_padded INTEGER NOT NULL, n_in_dense INTEGER NOT NULL, n_out INTEGER NOT NULL,\n"
    "  PRIMARY KEY (run_id, layer_idx)\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "CREATE TABLE truths (\n"
    "  run_id      INTEGER NOT NULL,\n"
    "  layer_idx   INTEGER NOT NULL,\n"
    "  exec_config TEXT    NOT NULL,       -- rip_padded_gather ... herringbone_taps_reader\n"
    "  gap         INTEGER NOT NULL,       -- simulated minimum gap (binary search)\n"
    "  workspace   INTEGER NOT NULL,       -- gap + stored input (dense: real pixels only)\n"
    "  PRIMARY KEY (run_id, layer_idx, exec_config),\n"
    "  FOREIGN KEY (run_id, layer_idx) REFERENCES layers(run_id, layer_idx)\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "CREATE TABLE verdicts (\n"
    "  run_id      INTEGER NOT NULL,\n"
    "  layer_idx   INTEGER NOT NULL,\n"
    "  formula     TEXT    NOT NULL,       -- gm2019_eq1 ... naive_workspace\n"
    "  exec_config TEXT,                   -- the configuration that judges it; NULL for naive_workspace\n"
    "  value       INTEGER,                -- the closed form; NULL where not defined\n"
    "  truth       INTEGER,                -- the judging truth; NULL when not judged\n"
    "  verdict     TEXT    NOT NULL CHECK (verdict IN ('unsafe','tight','loose','n/a')),\n"
    "  margin      INTEGER,                -- value - truth; NULL when n/a\n"
    "  PRIMARY KEY (run_id, layer_idx, formula),\n"
    "  FOREIGN KEY (run_id, layer_idx) REFERENCES layers(run_id, layer_idx)\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "CREATE INDEX verdicts_by_formula ON verdicts (run_id, formula, verdict);\n"
    "\n"
    "-- Wall-clock events (start, resume, interruption, finish): provenance only,\n"
    "-- never compared between databases.\n"
    "CREATE TABLE run_log (\n"
    "  run_id  INTEGER NOT NULL,\n"
    "  at      TEXT    NOT NULL,           -- UTC, ISO 8601\n"
    "  event   TEXT    NOT NULL,\n"
    "  detail  TEXT\n"
    ");\n"
    "\n"
    "-- Reference tables, filled when the database is created: the closed forms\n"
    "-- and the generator categories this binary knows, in paper order.\n"
    "CREATE TABLE formulas (\n"
    "  formula      TEXT PRIMARY KEY,\n"
    "  ord          INTEGER NOT NULL,\n"
    "  paper        TEXT    NOT NULL,\n"
    "  exec_config  TEXT,                  -- judged against; NULL for naive_workspace\n"
    "  is_workspace INTEGER NOT NULL       -- 1: a workspace size, not a gap\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "CREATE TABLE generators (\n"
    "  generator TEXT PRIMARY KEY,\n"
    "  ord       INTEGER NOT NULL,\n"
    "  tier      INTEGER NOT NULL,\n"
    "  weight    INTEGER NOT NULL,         -- percent of the sweep\n"
    "  title     TEXT    NOT NULL,         -- paper Tab. 5 wording\n"
    "  ranges    TEXT    NOT NULL\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "CREATE VIEW verdict_summary AS\n"
    "  SELECT v.run_id, v.formula, v.exec_config,\n"
    "         sum(v.verdict = 'unsafe') AS unsafe,\n"
    "         sum(v.verdict = 'tight')  AS tight,\n"
    "         sum(v.verdict = 'loose')  AS loose,\n"
    "         sum(v.verdict = 'n/a')    AS na\n"
    "  FROM verdicts v JOIN formulas f USING (formula)\n"
    "  GROUP BY v.run_id, v.formula, v.exec_config\n"
    "  ORDER BY v.run_id, min(f.ord);\n"
    "\n" EXECUTIONS;
