-- Statements `latelake sql` and the notebooks refuse without --allow-writes (ReadOnlyGuardTest).
-- One statement a line: [what the refusal names] statement. The guard must refuse each one with
-- exit code 2 and a message holding the bracketed text. ${lake} is the test's lake.root. Lines
-- starting with "--" are comments.

-- Reflection: reflect, java_method, try_reflect, wherever an expression can stand.
[function 'java_method'] SELECT java_method('org.apache.hadoop.fs.FileUtil', 'chmod', '${lake}/gold', '000')
[function 'java_method'] SELECT java_method('org.apache.hadoop.fs.FileUtil', 'symLink', '/etc/passwd', '${lake}/gold/passwd')
[function 'reflect'] SELECT reflect('java.lang.System', 'setProperty', 'latelake.sandbox', 'breached')
[function 'reflect'] SELECT reflect('java.lang.System', 'exit', 0)
[function 'try_reflect'] SELECT try_reflect('java.lang.System', 'exit', 0)
[function 'JAVA_METHOD'] SELECT JAVA_METHOD('java.lang.Runtime', 'getRuntime')
[function 'Reflect'] SELECT Reflect('java.lang.Thread', 'sleep', 100000L)
[function 'java_method'] SELECT `java_method`('java.lang.System', 'exit', 0)
[function 'reflect'] SELECT upper(reflect('java.lang.System', 'getProperty', 'user.home'))
[function 'reflect'] SELECT page FROM latelake_gold.page_5m WHERE reflect('java.lang.System', 'getenv', 'HOME') IS NOT NULL
[function 'java_method'] SELECT count(*) FROM latelake_gold.page_5m GROUP BY java_method('java.util.UUID', 'randomUUID')
[function 'reflect'] SELECT * FROM latelake_gold.page_5m ORDER BY reflect('java.lang.System', 'nanoTime')
[function 'reflect'] SELECT max(reflect('java.lang.System', 'getProperty', 'user.home')) FROM latelake_gold.page_5m
[function 'java_method'] SELECT page FROM latelake_gold.page_5m GROUP BY page HAVING max(java_method('java.lang.Math', 'random')) > 0
[function 'java_method'] SELECT count(*) FILTER (WHERE java_method('java.lang.Math', 'random') > 0) FROM latelake_gold.page_5m
[function 'reflect'] WITH c AS (SELECT reflect('java.lang.System', 'exit', 0) AS x) SELECT * FROM c
[function 'java_method'] SELECT * FROM latelake_gold.page_5m WHERE views > (SELECT java_method('java.lang.Math', 'random'))
[function 'reflect'] SELECT * FROM latelake_gold.page_5m WHERE EXISTS (SELECT 1 WHERE reflect('java.lang.System', 'exit', 0) IS NULL)
[function 'reflect'] SELECT * FROM latelake_gold.page_5m WHERE page IN (SELECT reflect('java.lang.System', 'getenv', 'PATH'))
[function 'java_method'] SELECT transform(array(1, 2), x -> java_method('java.lang.Math', 'abs', x))
[function 'java_method'] SELECT aggregate(array(1), 0, (acc, x) -> acc + java_method('java.lang.Math', 'abs', x))
[function 'java_method'] SELECT row_number() OVER (PARTITION BY java_method('java.lang.Math', 'random') ORDER BY page) FROM latelake_gold.page_5m
[function 'reflect'] SELECT count(*) OVER w FROM latelake_gold.page_5m WINDOW w AS (PARTITION BY reflect('java.lang.System', 'exit', 0))
[function 'reflect'] SELECT * FROM latelake_gold.page_5m LATERAL VIEW explode(array(reflect('java.lang.System', 'exit', 0))) t AS x
[function 'java_method'] SELECT * FROM latelake_gold.page_5m LATERAL VIEW java_method('java.lang.System', 'exit', 0) t AS x
[function 'java_method'] SELECT * FROM latelake_gold.page_5m a, LATERAL (SELECT java_method('java.lang.System', 'exit', 0) AS x) b
[function 'reflect'] SELECT * FROM VALUES (reflect('java.lang.System', 'exit', 0)) AS t(x)
[function 'reflect'] SELECT page FROM latelake_gold.page_5m UNION ALL SELECT reflect('java.lang.System', 'exit', 0)
[function 'java_method'] SELECT CASE WHEN views > 0 THEN java_method('java.lang.System', 'exit', 0) END FROM latelake_gold.page_5m
[function 'try_reflect'] SELECT coalesce(NULL, try_reflect('java.lang.System', 'getenv', 'HOME'))
[function 'java_method'] SELECT /*+ REPARTITION(java_method('java.lang.Math', 'random')) */ * FROM latelake_gold.page_5m
[function 'reflect'] SELECT * FROM latelake_gold.page_5m a JOIN latelake_gold.corrections_log b ON reflect('java.lang.System', 'exit', 0) = b.metric
[function 'java_method'] SELECT * FROM latelake_gold.page_5m PIVOT (max(java_method('java.lang.Math', 'random')) FOR page IN ('/home'))
[function 'reflect'] SELECT * FROM latelake_gold.page_5m TIMESTAMP AS OF reflect('java.lang.System', 'currentTimeMillis')
[function 'java_method'] SELECT * FROM latelake_gold.page_5m LIMIT java_method('java.lang.Math', 'abs', 1)
[function 'java_method'] SELECT * FROM range(java_method('java.lang.Math', 'abs', 3))
[function 'reflect'] SELECT * FROM explode(array(reflect('java.lang.System', 'exit', 0)))
[function 'java_method'] SELECT IDENTIFIER('java_method')('java.lang.System', 'exit', 0)
[function 'reflect'] SELECT IDENTIFIER('re' || 'flect')('java.lang.System', 'exit', 0)
[function 'system.builtin.reflect'] SELECT system.builtin.reflect('java.lang.System', 'exit', 0)
[function 'builtin.java_method'] SELECT builtin.java_method('java.lang.System', 'exit', 0)

-- File access through built-in functions.
[function 'from_protobuf'] SELECT from_protobuf(X'00', 'Event', '/etc/passwd')
[function 'to_protobuf'] SELECT to_protobuf(named_struct('a', 1), 'Event', '/etc/passwd')
[function 'from_xml'] SELECT from_xml('<a>1</a>', 'a INT', map('rowValidationXSDPath', '/etc/passwd'))
[function 'schema_of_xml'] SELECT schema_of_xml('<a>1</a>', map('rowValidationXSDPath', '/etc/passwd'))

-- Functions that are not Spark built-ins: temporary, persistent (Hive, catalog) and user-defined.
[function 'shout'] SELECT shout(page) FROM latelake_gold.page_5m
[function 'latelake_gold.shout'] SELECT latelake_gold.shout(page) FROM latelake_gold.page_5m
[function 'spark_catalog.latelake_gold.exec'] SELECT spark_catalog.latelake_gold.exec('rm -rf /')
[function 'my_udaf'] SELECT my_udaf(views) FROM latelake_gold.page_5m
[function 'my_udtf'] SELECT * FROM latelake_gold.page_5m LATERAL VIEW my_udtf(page) t AS x
[table function 'my_table_function'] SELECT * FROM my_table_function(1)
[table function 'table_changes'] SELECT * FROM table_changes('latelake_gold.page_5m', 0)
[table function 'table_changes_by_path'] SELECT * FROM table_changes_by_path('/etc', 0)
[table function 'read_files'] SELECT * FROM read_files('/etc/passwd')
[table function 'python_worker_logs'] SELECT * FROM python_worker_logs()
[function 'xpath_string'] SELECT xpath_string('<!DOCTYPE a SYSTEM "http://127.0.0.1:9/x"><a/>', 'a')
[function 'xpath_int'] SELECT xpath_int('<!DOCTYPE a SYSTEM "file:///etc/passwd"><a/>', 'a')
[function 'from_avro'] SELECT from_avro(X'00', '"int"', map('avroSchemaUrl', 'file:///etc/passwd'))
[function 'schema_of_avro'] SELECT schema_of_avro('"int"', map('avroSchemaUrl', 'file:///etc/passwd'))
[table function 'table_changes'] SELECT * FROM IDENTIFIER('table_changes')('latelake_gold.page_5m', 0)
[function 'shout'] DESCRIBE FUNCTION shout
[function 'latelake_gold.shout'] DESCRIBE FUNCTION latelake_gold.shout

-- Creating functions, adding code or files to the session.
[CreateFunction] CREATE TEMPORARY FUNCTION shout AS 'com.example.Shout'
[CreateFunction] CREATE FUNCTION latelake_gold.shout AS 'com.example.Shout' USING JAR '/tmp/evil.jar'
[CreateFunction] CREATE OR REPLACE TEMPORARY FUNCTION exec AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFReflect'
[CreateUserDefinedFunction] CREATE FUNCTION latelake_gold.plus_one(x INT) RETURNS INT RETURN x + 1
[CreateSQLFunctionCommand] CREATE TEMPORARY FUNCTION plus_one(x INT) RETURNS INT RETURN x + 1
[DropFunction] DROP FUNCTION latelake_gold.shout
[DropFunction] DROP TEMPORARY FUNCTION shout
[RefreshFunction] REFRESH FUNCTION latelake_gold.shout
[AddJarsCommand] ADD JAR /tmp/evil.jar
[AddJarsCommand] ADD JAR 'ivy://org.example:evil:1.0'
[AddFilesCommand] ADD FILE /etc/passwd
[AddArchivesCommand] ADD ARCHIVE /tmp/evil.zip
[ListJarsCommand] LIST JAR
[ListFilesCommand] LIST FILE

-- Session settings, variables, catalogs, dynamic SQL.
[SetCommand] SET spark.sql.shuffle.partitions = 3
[SetCommand] SET spark.sql.runSQLOnFiles = true
[SetCommand] SET spark.sql.legacy.allowUntypedScalaUDF = true
[SetCommand] SET -v
[SetCommand] SET
[SetCommand] SET TIME ZONE 'America/New_York'
[SetCommand] SET TIME ZONE LOCAL
[ResetCommand] RESET
[ResetCommand] RESET spark.sql.shuffle.partitions
[SetVariable] SET VAR x = 1
[SetVariable] SET VARIABLE x = 1
[CreateVariable] DECLARE VARIABLE x INT DEFAULT 1
[DropVariable] DROP TEMPORARY VARIABLE x
[SetCatalogAndNamespace] USE latelake_gold
[SetNamespaceCommand] USE DATABASE latelake_gold
[SetCatalogCommand] SET CATALOG spark_catalog
[UnresolvedExecuteImmediate] EXECUTE IMMEDIATE 'SELECT 1'
[UnresolvedExecuteImmediate] EXECUTE IMMEDIATE 'DROP TABLE latelake_gold.page_5m'
[Call] CALL system.evil()
[ExplainCommand] EXPLAIN SELECT 1
[ExplainCommand] EXPLAIN EXTENDED SELECT reflect('java.lang.System', 'exit', 0)
[DescribeQueryCommand] DESCRIBE QUERY SELECT reflect('java.lang.System', 'exit', 0)

-- Caches and refreshes.
[CacheTable] CACHE TABLE latelake_gold.page_5m
[CacheTableAsSelect] CACHE LAZY TABLE passwd AS SELECT * FROM text.`/etc/passwd`
[UncacheTable] UNCACHE TABLE latelake_gold.page_5m
[ClearCacheCommand] CLEAR CACHE
[RefreshTable] REFRESH TABLE latelake_gold.page_5m
[RefreshResource] REFRESH '/etc'

-- Writes and DDL: Spark's.
[InsertIntoStatement] INSERT INTO latelake_gold.page_5m SELECT * FROM latelake_gold.page_5m
[InsertIntoStatement] INSERT OVERWRITE TABLE latelake_gold.page_5m SELECT * FROM latelake_gold.page_5m
[InsertIntoStatement] INSERT INTO delta.`${lake}/gold/page_5m` SELECT * FROM latelake_gold.page_5m
[InsertIntoStatement] WITH s AS (SELECT * FROM latelake_gold.page_5m) INSERT INTO latelake_gold.page_5m SELECT * FROM s
[InsertIntoDir] INSERT OVERWRITE DIRECTORY '/tmp/out' USING parquet SELECT 1
[InsertIntoDir] INSERT OVERWRITE LOCAL DIRECTORY '/tmp/out' USING json SELECT * FROM latelake_gold.page_5m
[MergeIntoTable] MERGE INTO latelake_gold.page_5m t USING latelake_gold.page_5m s ON t.page = s.page WHEN MATCHED THEN UPDATE SET views = 0
[MergeIntoTable] MERGE INTO latelake_gold.page_5m t USING latelake_gold.page_5m s ON t.page = s.page WHEN MATCHED THEN DELETE
[DeleteFromTable] DELETE FROM latelake_gold.page_5m WHERE views > 0
[UpdateTable] UPDATE latelake_gold.page_5m SET views = 0
[CreateTable] CREATE TABLE latelake_gold.x (a INT) USING delta
[CreateTable] CREATE TABLE latelake_gold.passwd (line STRING) USING text LOCATION '/etc'
[CreateTableAsSelect] CREATE TABLE latelake_gold.x USING delta AS SELECT 1 AS a
[CreateTableLikeCommand] CREATE TABLE latelake_gold.x LIKE latelake_gold.page_5m
[ReplaceTableAsSelect] CREATE OR REPLACE TABLE latelake_gold.page_5m USING delta AS SELECT 1 AS a
[ReplaceTable] REPLACE TABLE latelake_gold.page_5m (a INT) USING delta
[CreateView] CREATE VIEW latelake_gold.v AS SELECT 1 AS a
[CreateView] CREATE OR REPLACE VIEW latelake_gold.page_5m_status AS SELECT reflect('java.lang.System', 'exit', 0) AS x
[CreateViewCommand] CREATE TEMPORARY VIEW v AS SELECT 1 AS a
[CreateViewCommand] CREATE GLOBAL TEMPORARY VIEW v AS SELECT 1 AS a
[CreateTempViewUsing] CREATE TEMPORARY VIEW passwd USING text OPTIONS (path '/etc/passwd')
[CreateTempViewUsing] CREATE TEMPORARY TABLE passwd USING text OPTIONS (path '/etc/passwd')
[AlterViewAs] ALTER VIEW latelake_gold.page_5m_status AS SELECT 1 AS a
[DropView] DROP VIEW latelake_gold.page_5m_status
[DropTable] DROP TABLE latelake_gold.page_5m
[DropTable] DROP TABLE IF EXISTS latelake_gold.x PURGE
[DropNamespace] DROP DATABASE latelake_gold CASCADE
[CreateNamespace] CREATE DATABASE evil
[CreateNamespace] CREATE SCHEMA evil LOCATION '/etc'
[SetNamespaceProperties] ALTER DATABASE latelake_gold SET DBPROPERTIES ('a' = 'b')
[CommentOnNamespace] COMMENT ON DATABASE latelake_gold IS 'x'
[SetTableProperties] ALTER TABLE latelake_gold.page_5m SET TBLPROPERTIES ('a' = 'b')
[UnsetTableProperties] ALTER TABLE latelake_gold.page_5m UNSET TBLPROPERTIES ('a')
[AddColumns] ALTER TABLE latelake_gold.page_5m ADD COLUMNS (c INT)
[DropColumns] ALTER TABLE latelake_gold.page_5m DROP COLUMN views
[RenameTable] ALTER TABLE latelake_gold.page_5m RENAME TO latelake_gold.y
[RenameColumn] ALTER TABLE latelake_gold.page_5m RENAME COLUMN views TO v
[AlterColumn] ALTER TABLE latelake_gold.page_5m ALTER COLUMN views COMMENT 'x'
[SetTableLocation] ALTER TABLE latelake_gold.page_5m SET LOCATION '/etc'
[AddPartitions] ALTER TABLE latelake_gold.page_5m ADD PARTITION (page = 'x')
[DropPartitions] ALTER TABLE latelake_gold.page_5m DROP PARTITION (page = 'x')
[CommentOnTable] COMMENT ON TABLE latelake_gold.page_5m IS 'x'
[TruncateTable] TRUNCATE TABLE latelake_gold.page_5m
[AnalyzeTable] ANALYZE TABLE latelake_gold.page_5m COMPUTE STATISTICS
[AnalyzeTables] ANALYZE TABLES IN latelake_gold COMPUTE STATISTICS
[RepairTable] MSCK REPAIR TABLE latelake_gold.page_5m
[LoadData] LOAD DATA LOCAL INPATH '/etc/passwd' INTO TABLE latelake_gold.page_5m

-- Writes and DDL: Delta's.
[OptimizeTableCommand] OPTIMIZE latelake_gold.page_5m
[OptimizeTableCommand] OPTIMIZE latelake_gold.page_5m ZORDER BY (page)
[OptimizeTableCommand] OPTIMIZE '${lake}/gold/page_5m'
[VacuumTableCommand] VACUUM latelake_gold.page_5m
[VacuumTableCommand] VACUUM latelake_gold.page_5m RETAIN 0 HOURS
[VacuumTableCommand] VACUUM '${lake}/gold/page_5m'
[RestoreTableStatement] RESTORE TABLE latelake_gold.page_5m TO VERSION AS OF 0
[RestoreTableStatement] RESTORE TABLE latelake_gold.page_5m TO TIMESTAMP AS OF '2024-05-14 10:00:00'
[ConvertToDeltaCommand] CONVERT TO DELTA parquet.`/tmp/x`
[CloneTableStatement] CREATE TABLE latelake_gold.c SHALLOW CLONE latelake_gold.page_5m
[DeltaGenerateCommand] GENERATE symlink_format_manifest FOR TABLE latelake_gold.page_5m
[DeltaReorgTable] REORG TABLE latelake_gold.page_5m APPLY (PURGE)
[AlterTableDropFeature] ALTER TABLE latelake_gold.page_5m DROP FEATURE deletionVectors
[AddConstraint] ALTER TABLE latelake_gold.page_5m ADD CONSTRAINT positive CHECK (views > 0)

-- Reads by path: every format but Delta, and Delta outside lake.root.
[text.`/etc/passwd` by path] SELECT * FROM text.`/etc/passwd`
[csv.`/etc/passwd` by path] SELECT * FROM csv.`/etc/passwd`
[json.`/etc/passwd` by path] SELECT * FROM json.`/etc/passwd`
[xml.`/etc/passwd` by path] SELECT * FROM xml.`/etc/passwd`
[parquet.`${lake}/gold/page_5m` by path] SELECT * FROM parquet.`${lake}/gold/page_5m`
[orc.`/tmp` by path] SELECT * FROM orc.`/tmp`
[avro.`/tmp` by path] SELECT * FROM avro.`/tmp`
[binaryFile.`/etc` by path] SELECT * FROM binaryFile.`/etc`
[iceberg.`/tmp/x` by path] SELECT * FROM iceberg.`/tmp/x`
[TEXT.`/etc/passwd` by path] SELECT * FROM TEXT.`/etc/passwd`
[text.`/etc/passwd` by path] SELECT * FROM `text`.`/etc/passwd`
[text.`file:///etc/passwd` by path] SELECT * FROM text.`file:///etc/passwd`
[text.passwd by path] SELECT * FROM text.passwd
[`/etc/passwd` by path] SELECT * FROM `org.apache.spark.sql.execution.datasources.text.TextFileFormat`.`/etc/passwd`
[`/etc/passwd` by path] SELECT * FROM `com.databricks.spark.csv`.`/etc/passwd`
[spark_catalog.csv.`/etc/passwd` by path] SELECT * FROM spark_catalog.csv.`/etc/passwd`
[it reads `/etc/passwd` by path] SELECT * FROM `/etc/passwd`
[csv.`/etc/passwd` by path] SELECT * FROM latelake_gold.page_5m a JOIN csv.`/etc/passwd` b ON true
[text.`/etc/passwd` by path] WITH p AS (SELECT * FROM text.`/etc/passwd`) SELECT * FROM p
[text.`/etc/passwd` by path] SELECT (SELECT count(*) FROM text.`/etc/passwd`)
[text.`/etc/passwd` by path] SELECT * FROM latelake_gold.page_5m WHERE page IN (SELECT value FROM text.`/etc/passwd`)
[parquet.`/tmp` by path] SELECT * FROM latelake_gold.page_5m UNION ALL SELECT * FROM parquet.`/tmp`
[text.`/etc/passwd` by path] SELECT * FROM latelake_gold.page_5m a, LATERAL (SELECT * FROM text.`/etc/passwd`) b
[csv.`/etc/passwd` by path] DESCRIBE TABLE csv.`/etc/passwd`
[json.`/etc/passwd` by path] SHOW COLUMNS IN json.`/etc/passwd`
[delta.`/etc`, which is not under lake.root] SELECT * FROM delta.`/etc`
[delta.`/tmp`, which is not under lake.root] SELECT * FROM delta.`/tmp`
[delta.`/etc`, which is not under lake.root] SELECT * FROM delta.`/etc` VERSION AS OF 0
[spark_catalog.delta.`/etc`, which is not under lake.root] SELECT * FROM spark_catalog.delta.`/etc`
[delta.`${lake}/../outside`, which is not under lake.root] SELECT * FROM delta.`${lake}/../outside`
[delta.`${lake}/gold/../../outside`, which is not under lake.root] SELECT * FROM delta.`${lake}/gold/../../outside`
[delta.`${lake}_evil/gold`, which is not under lake.root] SELECT * FROM delta.`${lake}_evil/gold`
[delta.`file:/etc`, which is not under lake.root] SELECT * FROM delta.`file:/etc`
[delta.`hdfs://namenode${lake}/gold/page_5m`, which is not under lake.root] SELECT * FROM delta.`hdfs://namenode${lake}/gold/page_5m`
[delta.`s3a://bucket/lake`, which is not under lake.root] SELECT * FROM delta.`s3a://bucket/lake`
[delta.`gold/page_5m`, which is not an absolute path] SELECT * FROM delta.`gold/page_5m`
['/etc', which is not under lake.root] DESCRIBE HISTORY '/etc'
[delta.`/etc`, which is not under lake.root] DESCRIBE HISTORY delta.`/etc`
['/etc', which is not under lake.root] DESCRIBE DETAIL '/etc'
[delta.`/etc`, which is not under lake.root] DESCRIBE DETAIL delta.`/etc`
[the option 'path' on latelake_gold.page_5m] SELECT * FROM latelake_gold.page_5m WITH ('path' = '/etc')
[the option 'rowvalidationxsdpath' on latelake_gold.page_5m] SELECT * FROM latelake_gold.page_5m WITH ('rowValidationXSDPath' = '/etc/passwd')
[bınaryfile] SELECT path, CAST(content AS STRING) FROM `bınaryfile`.`..` WITH ('recursiveFileLookup'='true')
[cſv] SELECT * FROM `cſv`.`.`
[jſon] SELECT * FROM `jſon`.`conf`

-- IDENTIFIER(...): a constant name is checked as if written out; anything else is refused.
[text.`/etc/passwd` by path] SELECT * FROM IDENTIFIER('text.`/etc/passwd`')
[delta.`/etc`, which is not under lake.root] SELECT * FROM IDENTIFIER('delta.`' || '/etc' || '`')
[IDENTIFIER(...) is not allowed] SELECT * FROM IDENTIFIER(concat('text.', '`/etc/passwd`'))
[IDENTIFIER(...) is not allowed] SELECT IDENTIFIER(lower('REFLECT'))('java.lang.System', 'exit', 0)
