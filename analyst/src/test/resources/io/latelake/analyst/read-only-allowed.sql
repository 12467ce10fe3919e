-- Statements `latelake sql` and the notebooks run without --allow-writes (ReadOnlyGuardTest): the
-- guard must let each one pass. One statement a line; ${lake} is the test's lake.root.

-- Queries over catalog tables, with Spark's built-in functions.
SELECT 1
SELECT page, views FROM latelake_gold.page_5m WHERE views > 1 ORDER BY page LIMIT 10
SELECT upper(page), count(*), sum(views), percentile(views, 0.5) FROM latelake_gold.page_5m GROUP BY upper(page)
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY views) FROM latelake_gold.page_5m
SELECT input_file_name(), current_user(), current_database(), version()
SELECT CAST(views AS STRING) || '!', TRIM(BOTH ' ' FROM page), EXTRACT(YEAR FROM window_start), current_date FROM latelake_gold.page_5m
SELECT from_json('{"a":1}', 'a INT'), to_xml(named_struct('a', 1))
SELECT transform(array(1, 2), x -> x + 1), aggregate(array(1, 2), 0, (acc, x) -> acc + x)
SELECT row_number() OVER (PARTITION BY page ORDER BY window_start) FROM latelake_gold.page_5m
SELECT count(*) OVER w FROM latelake_gold.page_5m WINDOW w AS (PARTITION BY page)
WITH t AS (SELECT * FROM latelake_gold.page_5m) SELECT page FROM t WHERE views > (SELECT min(views) - 1 FROM latelake_gold.page_5m)
SELECT page FROM latelake_gold.page_5m a WHERE EXISTS (SELECT 1 FROM latelake_gold.corrections_log b WHERE b.metric = a.page)
SELECT * FROM latelake_gold.page_5m a, LATERAL (SELECT a.views + 1 AS v)
SELECT /*+ BROADCAST(b) */ a.page FROM latelake_gold.page_5m a JOIN latelake_gold.corrections_log b ON a.page = b.metric
SELECT page FROM latelake_gold.page_5m UNION SELECT metric FROM latelake_gold.corrections_log
SELECT * FROM latelake_gold.page_5m PIVOT (sum(views) FOR page IN ('/home', '/pricing'))
SELECT * FROM latelake_gold.page_5m TABLESAMPLE (50 PERCENT)
SELECT * FROM VALUES (1, 'a') AS t(x, y)
SELECT * FROM range(3)
SELECT * FROM explode(array(1, 2))
SELECT * FROM latelake_gold.page_5m LATERAL VIEW explode(array(1, 2)) t AS x
SELECT * FROM latelake_gold.page_5m VERSION AS OF 0
SELECT * FROM latelake_gold.page_5m TIMESTAMP AS OF current_timestamp()
SELECT * FROM IDENTIFIER('latelake_gold.' || 'page_5m')

-- Delta tables under lake.root, by path.
SELECT * FROM delta.`${lake}/gold/page_5m`
SELECT * FROM delta.`file:${lake}/gold/page_5m`
SELECT * FROM delta.`${lake}/gold/../gold/page_5m`
SELECT * FROM spark_catalog.delta.`${lake}/gold/page_5m`
SELECT * FROM delta.`${lake}/gold/page_5m` VERSION AS OF 0
SELECT * FROM IDENTIFIER('delta.`${lake}/gold/page_5m`')
DESCRIBE HISTORY delta.`${lake}/gold/page_5m`
DESCRIBE HISTORY '${lake}/gold/page_5m'
DESCRIBE DETAIL '${lake}/gold/page_5m'

-- SHOW and DESCRIBE.
SHOW TABLES
SHOW TABLES IN latelake_gold
SHOW TABLES LIKE 'page*'
SHOW TABLE EXTENDED IN latelake_gold LIKE 'page*'
SHOW DATABASES
SHOW SCHEMAS
SHOW NAMESPACES
SHOW VIEWS
SHOW VIEWS IN latelake_gold
SHOW FUNCTIONS
SHOW COLUMNS IN latelake_gold.page_5m
SHOW TBLPROPERTIES latelake_gold.page_5m
SHOW CREATE TABLE latelake_gold.page_5m
DESCRIBE TABLE latelake_gold.page_5m
DESCRIBE TABLE EXTENDED latelake_gold.page_5m
DESCRIBE latelake_gold.page_5m page
DESCRIBE DATABASE latelake_gold
DESCRIBE FUNCTION upper
DESCRIBE FUNCTION java_method
DESCRIBE HISTORY latelake_gold.page_5m
DESCRIBE DETAIL latelake_gold.page_5m
