package io.latelake.core.job;

import io.latelake.core.table.TableRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.SparkSession;

/**
 * What every job run shares, built once per run by {@link io.latelake.core.cli.JobCommand} after
 * the config was validated: the live session, the lake's table paths, the clock and the run's
 * start.
 *
 * @param spark the live session
 * @param tables the lake's table paths and checkpoints ({@code lake.root})
 * @param clock the run's clock (UTC); tests pass a fixed one
 * @param startedAt when the run started, truncated to microseconds (Delta's timestamp precision)
 * @param runSuffix 8 random hex digits that make this run's ids unique
 * @param startChecks the start checks that have passed in this context (see {@link
 *     #firstCheck(Object)})
 */
public record JobContext(
    SparkSession spark,
    TableRegistry tables,
    Clock clock,
    Instant startedAt,
    String runSuffix,
    Set<Object> startChecks) {

  /** A context for a run starting now on {@code clock}. */
  public static JobContext start(SparkSession spark, TableRegistry tables, Clock clock) {
    return new JobContext(
        spark,
        tables,
        clock,
        clock.instant().truncatedTo(ChronoUnit.MICROS),
        UUID.randomUUID().toString().substring(0, 8),
        ConcurrentHashMap.newKeySet());
  }

  /** A context for a run starting now on the system UTC clock. */
  public static JobContext start(SparkSession spark, TableRegistry tables) {
    return start(spark, tables, Clock.systemUTC());
  }

  /**
   * Whether a start check (an output table's recorded definition, a checkpoint's source kind, ...)
   * still has to run in this context. A context whose jobs run many times with the same settings
   * (the lock-step fast path runs bronze, silver and gold once per step on one context) checks each
   * stream's start conditions before its first run only: nothing but its own runs changes them in
   * between. Other settings are another check.
   *
   * @param check what is checked with which settings, e.g. {@code List.of("output", queryName,
   *     config)} (compared with {@code equals}: a job's typed config is a record)
   * @return true the first time {@code check} is asked for in this context, false afterwards
   */
  public boolean firstCheck(Object check) {
    return startChecks.add(check);
  }

  /**
   * @param action the action's name, e.g. {@code correct}
   * @return {@code <action>-<start, seconds, no colons>-<suffix>}, e.g. {@code
   *     correct-2026-11-30T101500Z-1a2b3c4d}; stable for this run
   */
  public String runId(String action) {
    return action
        + "-"
        + startedAt.truncatedTo(ChronoUnit.SECONDS).toString().replace(":", "")
        + "-"
        + runSuffix;
  }
}
