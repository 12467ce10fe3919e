-- Databricks notebook source
-- MAGIC %md
-- MAGIC # What changed
-- MAGIC
-- MAGIC The restatements of a period, from `latelake_monitoring.corrections_log`: every gold row
-- MAGIC a correction changed, the values readers saw before (`old_values`) and after
-- MAGIC (`new_values`), when, by which run and why. Times are UTC.
-- MAGIC
-- MAGIC Parameters: `metric`, and the period `since` / `until` (UTC dates, inclusive) of the
-- MAGIC corrections.
-- MAGIC
-- MAGIC To see a whole gold table as readers saw it before a run, use Delta time travel:
-- MAGIC `SELECT * FROM latelake_gold.<metric> TIMESTAMP AS OF '2024-05-14 12:00:00'` or
-- MAGIC `VERSION AS OF 3` (`DESCRIBE HISTORY latelake_gold.<metric>` lists the versions).

-- COMMAND ----------

CREATE WIDGET TEXT metric DEFAULT 'events_per_device_10s';
CREATE WIDGET TEXT since DEFAULT '1970-01-01';
CREATE WIDGET TEXT until DEFAULT '2999-12-31'

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Restatements in the period

-- COMMAND ----------

SELECT window_start, window_end, keys, old_values, new_values, reason, policy, run_id,
       corrected_at
FROM latelake_monitoring.corrections_log
WHERE metric = :metric
  AND corrected_at >= CAST(:since AS DATE)
  AND corrected_at < date_add(CAST(:until AS DATE), 1)
ORDER BY corrected_at, window_start, keys

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Biggest changes
-- MAGIC One line per restated measure: old value, new value and the change, largest first. A new
-- MAGIC window has no old value, a removed window (all its events were duplicates) no new value;
-- MAGIC a missing side counts as 0 in the change.

-- COMMAND ----------

SELECT window_start, keys, m.measure,
       old_m[m.measure] AS old_value,
       new_m[m.measure] AS new_value,
       coalesce(new_m[m.measure], 0D) - coalesce(old_m[m.measure], 0D) AS change,
       reason, run_id
FROM (
  SELECT *, from_json(old_values, 'MAP<STRING, DOUBLE>') AS old_m,
         from_json(new_values, 'MAP<STRING, DOUBLE>') AS new_m
  FROM latelake_monitoring.corrections_log
  WHERE metric = :metric
    AND corrected_at >= CAST(:since AS DATE)
    AND corrected_at < date_add(CAST(:until AS DATE), 1)
) LATERAL VIEW explode(array_distinct(concat(
    coalesce(map_keys(old_m), CAST(array() AS ARRAY<STRING>)),
    coalesce(map_keys(new_m), CAST(array() AS ARRAY<STRING>))))) m AS measure
ORDER BY abs(change) DESC, window_start, keys, m.measure
LIMIT 50

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Per run and reason
-- MAGIC Every metric, so a run's whole effect shows.

-- COMMAND ----------

SELECT run_id, metric, reason, policy, count(*) AS rows_restated,
       min(window_start) AS first_window, max(window_end) AS last_window_end,
       max(corrected_at) AS corrected_at
FROM latelake_monitoring.corrections_log
WHERE corrected_at >= CAST(:since AS DATE)
  AND corrected_at < date_add(CAST(:until AS DATE), 1)
GROUP BY run_id, metric, reason, policy
ORDER BY corrected_at, run_id, metric, reason
