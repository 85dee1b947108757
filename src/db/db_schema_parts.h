/*
** db_schema_parts.h — SQL text shared by the schema versions (db_schema.c,
** db_schema_old.c): table executions and view execution_summary, the same
** from version 2 on.  Private to src/db/.
*/
#ifndef RIPSIM_DB_SCHEMA_PARTS_H
#define RIPSIM_DB_SCHEMA_PARTS_H

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

#endif
