package io.latelake.profiler;

import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a {@link ProfileJob} run logs. */
final class ProfileLog {
  private static final Logger LOG = LoggerFactory.getLogger(ProfileJob.class);

  private ProfileLog() {}

  /**
   * One line per source over the range (a long history must not print a line per day: the per-day
   * figures are in {@code monitoring.lateness_stats}), then the advice, the watermark replay and
   * the alerts.
   */
  static void log(List<Row> stats, List<Row> advice, List<Row> alerts, List<Row> replay) {
    Map<String, List<Row>> bySource = new java.util.TreeMap<>();
    for (Row r : stats) {
      bySource.computeIfAbsent(r.getAs("source"), k -> new java.util.ArrayList<>()).add(r);
    }
    bySource.forEach(ProfileLog::logSource);
    for (Row r : advice) {
      LOG.info(
          "advice {} {}: covering {}% of events needs {} s; {} events ({}%) are later than the "
              + "{} s {}",
          r.getAs("source"),
          r.getAs("kind"),
          r.<Double>getAs("coverage") * 100,
          r.getAs("advised_delay_s"),
          r.getAs("configured_beyond_count"),
          String.format(
              java.util.Locale.ROOT, "%.4f", r.<Double>getAs("configured_beyond_share") * 100),
          r.getAs("configured_delay_s"),
          "watermark".equals(r.getAs("kind"))
              ? "watermark delay (lateness above it, not rows dropped: see the watermark replay)"
              : "correction horizon (they restate settled windows)");
    }
    if (!replay.isEmpty()) {
      StringBuilder drops = new StringBuilder();
      Object configured = null;
      Object recommended = "none";
      for (Row r : replay) {
        drops.append(drops.length() == 0 ? "" : ", ");
        drops
            .append(r.<Double>getAs("delay_s"))
            .append(" s: ")
            .append(r.<Long>getAs("dropped_count"));
        if (r.<Boolean>getAs("configured")) {
          configured = r.getAs("delay_s");
        }
        if (r.<Boolean>getAs("recommended")) {
          recommended = r.getAs("delay_s") + " s";
        }
      }
      Row first = replay.get(0);
      LOG.info(
          "watermark replay {} over {} micro-batches ({}), rows dropped of {} by delay: {}; "
              + "configured {} s, recommended {} (target {}% dropped); per delay in "
              + "monitoring.watermark_replay",
          first.getAs("query_name"),
          first.getAs("micro_batches"),
          first.getAs("batch_basis"),
          first.getAs("rows"),
          drops,
          configured,
          recommended,
          first.<Double>getAs("target_drop_share") * 100);
    }
    for (Row r : alerts) {
      LOG.warn("ALERT {}: {}", r.getAs("rule"), r.getAs("message"));
    }
  }

  private static void logSource(String source, List<Row> days) {
    long n = 0;
    long beyond = 0;
    long createTime = 0;
    long redeliveries = 0;
    Row worst = null; // the day with the highest p99
    Number max = null;
    for (Row r : days) {
      n += r.<Long>getAs("n");
      beyond += r.<Long>getAs("beyond_watermark_count");
      createTime += r.<Long>getAs("create_time_count");
      redeliveries += r.<Long>getAs("redelivery_count");
      Number p99 = r.getAs("p99_s");
      if (p99 != null
          && (worst == null || p99.doubleValue() > ((Number) worst.getAs("p99_s")).doubleValue())) {
        worst = r;
      }
      Number m = r.getAs("max_s");
      if (m != null && (max == null || m.doubleValue() > max.doubleValue())) {
        max = m;
      }
    }
    LOG.info(
        "lateness {} over {} arrival day(s): n={}, highest p99={} s (on {}, p50={} s, p95={} s), "
            + "max={} s, beyond watermark={}; per day in monitoring.lateness_stats",
        source,
        days.size(),
        n,
        worst == null ? null : worst.getAs("p99_s"),
        worst == null ? null : worst.getAs("arrival_day"),
        worst == null ? null : worst.getAs("p50_s"),
        worst == null ? null : worst.getAs("p95_s"),
        max,
        beyond);
    if (createTime > 0) {
      LOG.warn(
          "lateness {}: {} events carry Kafka CreateTime timestamps (the producer's clock, not "
              + "arrival): counted apart, left out of the figures",
          source,
          createTime);
    }
    if (redeliveries > 0) {
      LOG.info(
          "lateness {}: {} redelivered copies counted apart, not as events", source, redeliveries);
    }
  }
}
