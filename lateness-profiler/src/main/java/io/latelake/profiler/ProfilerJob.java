package io.latelake.profiler;

import io.latelake.core.table.TableRegistry;
import io.latelake.core.time.DayRange;
import java.time.Clock;
import org.apache.spark.sql.SparkSession;

/**
 * What the profiler's jobs ({@link ProfileJob}, {@link ReportJob}) run on: the session, the
 * profiler config, the lake's tables and a validated range of UTC arrival days, with the clock that
 * stamps what they write.
 */
abstract class ProfilerJob {
  protected final SparkSession spark;
  protected final ProfilerConfig cfg;
  protected final TableRegistry tables;
  protected final DayRange range;
  protected final Clock clock;

  /**
   * @param range arrival days (validated)
   * @param clock gives the times the job writes ({@code computed_at}, {@code raised_at})
   */
  ProfilerJob(
      SparkSession spark, ProfilerConfig cfg, TableRegistry tables, DayRange range, Clock clock) {
    this.spark = spark;
    this.cfg = cfg;
    this.tables = tables;
    this.range = range;
    this.clock = clock;
  }
}
