-- Databricks notebook source
-- MAGIC %md
-- MAGIC # Lateness
-- MAGIC
-- MAGIC How late events arrive, from the tables `latelake profile` writes, and what the
-- MAGIC watermark dropped, from `latelake_monitoring.stream_progress`.
-- MAGIC Lateness = enqueued time − event time, in seconds; an arrival day is the UTC date of the
-- MAGIC enqueued time; negative lateness is clock skew.
-- MAGIC
-- MAGIC Parameters: `since` / `until` (arrival days, UTC, inclusive) of the percentiles; the
-- MAGIC watermark advice and replay (the last profile run) and the streaming figures are shown
-- MAGIC whole.

-- COMMAND ----------

CREATE WIDGET TEXT since DEFAULT '1970-01-01';
CREATE WIDGET TEXT until DEFAULT '2999-12-31'

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Percentiles per source and arrival day (seconds)

-- COMMAND ----------

SELECT source, arrival_day, n, p50_s, p90_s, p95_s, p99_s, p999_s, max_s, min_s,
       negative_count, beyond_watermark_count, beyond_correction_count
FROM latelake_monitoring.lateness_stats
WHERE arrival_day BETWEEN CAST(:since AS DATE) AND CAST(:until AS DATE)
ORDER BY source, arrival_day

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Percentiles per source over all these days (seconds)
-- MAGIC The days' percentiles cannot be averaged; their KLL sketches (`lateness_sketch`, k = 200)
-- MAGIC merge. Exact up to 200 events (as the per-day figures), else within 1.33% of n in rank
-- MAGIC (Apache DataSketches, 99% confidence). `sketched_n` is below `n` (0, with null
-- MAGIC percentiles, when no day has one) when some days were profiled before the sketches were
-- MAGIC kept: profile those days again. A lake never profiled since then has no `lateness_sketch`
-- MAGIC column yet and this cell fails: run `latelake profile` once.

-- COMMAND ----------

WITH days AS (
  SELECT source, sum(n) AS n, collect_list(lateness_sketch) AS sketches
  FROM latelake_monitoring.lateness_stats
  WHERE arrival_day BETWEEN CAST(:since AS DATE) AND CAST(:until AS DATE)
  GROUP BY source
), merged AS (
  SELECT source, n,
         aggregate(slice(sketches, 2, greatest(size(sketches) - 1, 0)),
                   try_element_at(sketches, 1),
                   (a, x) -> kll_sketch_merge_double(a, x)) AS sketch
  FROM days
)
SELECT source, n, coalesce(kll_sketch_get_n_double(sketch), 0) AS sketched_n,
       kll_sketch_get_quantile_double(sketch, 0.5) AS p50_s,
       kll_sketch_get_quantile_double(sketch, 0.95) AS p95_s,
       kll_sketch_get_quantile_double(sketch, 0.99) AS p99_s
FROM merged
WHERE n > 0
ORDER BY source

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Per source and hour of arrival (seconds)
-- MAGIC When in the day events arrive late (a gateway's outage, a nightly upload): each day's
-- MAGIC hours (UTC) with arrivals, from `lateness_by_hour`. Percentiles from the hour's KLL
-- MAGIC sketch (exact up to 200 events, else within 1.33% of n in rank); hours merge as days do
-- MAGIC above. An hour of redeliveries only has n = 0 and no percentiles. Days profiled before
-- MAGIC the hours were kept have none (and a lake never profiled since has no column, so this
-- MAGIC cell fails): profile those days again.

-- COMMAND ----------

SELECT source, date_format(h.arrival_hour, 'yyyy-MM-dd HH:mm') AS arrival_hour, h.n,
       CASE WHEN h.n > 0 THEN kll_sketch_get_quantile_double(h.lateness_sketch, 0.5) END AS p50_s,
       CASE WHEN h.n > 0 THEN kll_sketch_get_quantile_double(h.lateness_sketch, 0.99) END AS p99_s,
       h.max_s, h.beyond_watermark_count, h.behind_watermark_count, h.redelivery_count
FROM (
  SELECT source, explode(lateness_by_hour) AS h
  FROM latelake_monitoring.lateness_stats
  WHERE arrival_day BETWEEN CAST(:since AS DATE) AND CAST(:until AS DATE)
)
ORDER BY source, h.arrival_hour

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Watermark advice
-- MAGIC For each coverage target, the delay that would have covered that share of events, next to
-- MAGIC the configured delay and what it left behind.

-- COMMAND ----------

SELECT *
FROM latelake_monitoring.watermark_advice
ORDER BY source, kind DESC, coverage

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## What each watermark delay would drop (the replay)
-- MAGIC Silver's stream replayed over bronze by Spark's rule (the watermark moves once per
-- MAGIC micro-batch; a row is dropped when its event time is at or behind the previous
-- MAGIC micro-batch's watermark). `configured` is silver's delay; with `batch_basis` =
-- MAGIC `recorded` (silver's own micro-batches) its `dropped_count` is what the stream dropped
-- MAGIC over these days. `recommended` is the smallest delay tried whose dropped share meets
-- MAGIC `lake.profiler.target-drop-share`. `gold_rows_to_correct`: gold rows (over every metric)
-- MAGIC holding a dropped row, which `correct` restates. `state_rows_peak`: the most event ids the
-- MAGIC dedup state holds. `watermark_lag_s`: how far the watermark
-- MAGIC trails the newest arrival (median).

-- COMMAND ----------

SELECT query_name, delay_s, configured, recommended, dropped_count, dropped_share,
       gold_rows_to_correct, state_rows_peak, watermark_lag_s, rows, micro_batches, batch_basis
FROM latelake_monitoring.watermark_replay
ORDER BY delay_s

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Rows dropped by the watermark, per streaming query

-- COMMAND ----------

SELECT query_name,
       count(*) AS micro_batches,
       sum(input_rows) AS input_rows,
       sum(rows_dropped_by_watermark) AS dropped_by_watermark,
       max(watermark) AS last_watermark
FROM latelake_monitoring.stream_progress
GROUP BY query_name
ORDER BY query_name

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Micro-batches that dropped rows

-- COMMAND ----------

SELECT query_name, batch_id, input_rows, rows_dropped_by_watermark, watermark
FROM latelake_monitoring.stream_progress
WHERE rows_dropped_by_watermark > 0
ORDER BY query_name, batch_id
