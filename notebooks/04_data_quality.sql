-- Databricks notebook source
-- MAGIC %md
-- MAGIC # Data quality
-- MAGIC
-- MAGIC What bronze received and what it could not use: every record is kept in
-- MAGIC `latelake.bronze_events`, with `error` null when valid and a reason code otherwise
-- MAGIC (`MALFORMED`, `MISSING_EVENT_ID`, `INVALID_EVENT_ID`, `MISSING_EVENT_TIME`,
-- MAGIC `INVALID_EVENT_TIME`, `EVENT_TIME_BEFORE_MIN`, `INVALID_FIELD`, `INVALID_ENQUEUED_TIME`,
-- MAGIC `FUTURE_EVENT_TIME`). Times are UTC.
-- MAGIC
-- MAGIC Parameters: `since` / `until` (ingest dates, UTC, inclusive).

-- COMMAND ----------

CREATE WIDGET TEXT since DEFAULT '1970-01-01';
CREATE WIDGET TEXT until DEFAULT '2999-12-31'

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Bronze rows by error reason and source

-- COMMAND ----------

SELECT source, coalesce(error, 'VALID') AS error, count(*) AS rows
FROM latelake.bronze_events
WHERE ingest_date BETWEEN CAST(:since AS DATE) AND CAST(:until AS DATE)
GROUP BY source, coalesce(error, 'VALID')
ORDER BY source, error

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Invalid records (first 50)

-- COMMAND ----------

SELECT ingested_at, source, error, error_detail, payload
FROM latelake.bronze_events
WHERE error IS NOT NULL
  AND ingest_date BETWEEN CAST(:since AS DATE) AND CAST(:until AS DATE)
ORDER BY ingested_at, error, payload
LIMIT 50

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Clock skew
-- MAGIC Records dated after they were enqueued (negative lateness) and those beyond the skew
-- MAGIC tolerance (`FUTURE_EVENT_TIME`, kept out of the stream).

-- COMMAND ----------

SELECT source,
       count_if(enqueued_time < event_time) AS negative_lateness_rows,
       count_if(error = 'FUTURE_EVENT_TIME') AS future_event_time_rows,
       min(unix_micros(enqueued_time) - unix_micros(event_time)) / 1e6 AS min_lateness_s
FROM latelake.bronze_events
WHERE event_time IS NOT NULL AND enqueued_time IS NOT NULL
  AND ingest_date BETWEEN CAST(:since AS DATE) AND CAST(:until AS DATE)
GROUP BY source
ORDER BY source

-- COMMAND ----------

-- MAGIC %md
-- MAGIC ## Duplicates
-- MAGIC Valid bronze rows ingested in the period, distinct event ids among them (the copies beyond
-- MAGIC one are duplicates), and the rows silver kept of those ingested in the period (silver keeps
-- MAGIC bronze's `ingested_at`; it also leaves out rows behind its watermark, which the correction
-- MAGIC path restates from bronze).

-- COMMAND ----------

SELECT b.valid_rows, b.distinct_event_ids, b.valid_rows - b.distinct_event_ids AS duplicate_copies,
       s.silver_rows, b.valid_rows - s.silver_rows AS not_in_silver
FROM (SELECT count(*) AS valid_rows, count(DISTINCT event_id) AS distinct_event_ids
      FROM latelake.bronze_events
      WHERE error IS NULL
        AND ingest_date BETWEEN CAST(:since AS DATE) AND CAST(:until AS DATE)) b
CROSS JOIN (SELECT count(*) AS silver_rows
            FROM latelake.silver_events
            WHERE CAST(ingested_at AS DATE) BETWEEN CAST(:since AS DATE) AND CAST(:until AS DATE)) s
