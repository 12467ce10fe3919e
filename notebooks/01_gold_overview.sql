-- Databricks notebook source
-- MAGIC %md
-- MAGIC # Gold overview
-- MAGIC
-- MAGIC The latest windows of one gold metric, with the status of every number:
-- MAGIC
-- MAGIC * **provisional** — the gold stream's last watermark (`last_watermark`) has not yet passed
-- MAGIC   the window's end by `lake.correction.horizon`: late events may still change it;
-- MAGIC * **settled** — window end + horizon is at or before the last watermark and no correction
-- MAGIC   changed it (event time, not the wall clock: a replayed old dataset settles as its stream
-- MAGIC   moves on);
-- MAGIC * **restated** — a correction changed it; `last_change` shows old → new.
-- MAGIC
-- MAGIC `completeness` is the lateness profiler's expected share of the window's events that have
-- MAGIC already arrived (null until `latelake profile` ran and `latelake catalog register` ran
-- MAGIC after it). Everything is read from the view `latelake_gold.<metric>_status` that
-- MAGIC `latelake catalog register` creates.
-- MAGIC
-- MAGIC Parameters: `metric` (a configured gold metric), `latest` (how many windows to list).

-- COMMAND ----------

CREATE WIDGET TEXT metric DEFAULT 'events_per_device_10s';
CREATE WIDGET TEXT latest DEFAULT '20'

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Windows per status

-- COMMAND ----------

SELECT status,
       count(*) AS gold_rows,
       count(DISTINCT window_start) AS windows,
       min(window_start) AS first_window_start,
       max(window_end) AS last_window_end,
       round(min(completeness), 4) AS lowest_completeness
FROM IDENTIFIER('latelake_gold.' || :metric || '_status')
GROUP BY status
ORDER BY status

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Latest windows
-- MAGIC Newest first; `closed` is true once the gold stream's watermark has passed the window's end.

-- COMMAND ----------

SELECT *
FROM IDENTIFIER('latelake_gold.' || :metric || '_status')
ORDER BY window_start DESC, updated_at DESC
LIMIT CAST(:latest AS INT)

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Restated windows
-- MAGIC Every window a correction changed, with its last change (old → new measures).

-- COMMAND ----------

SELECT *
FROM IDENTIFIER('latelake_gold.' || :metric || '_status')
WHERE status = 'restated'
ORDER BY window_start
