package io.latelake.correction;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.JobCommand;
import io.latelake.core.job.JobContext;
import io.latelake.core.cli.Launcher;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metric.LatePolicy;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code latelake apply-corrections}: applies staged corrections of {@code reconcile} metrics to
 * gold (approval = naming the runs with {@code --run-id}, or {@code --all}). spark-submit entry
 * point: {@code --class io.latelake.correction.ApplyCorrectionsMain}. Safe to re-run. Exit codes:
 * 0 ok, 1 runtime failure, 2 bad usage or config.
 */
@Command(name = "apply-corrections", mixinStandardHelpOptions = true,
    description = "Apply approved staged corrections of reconcile metrics to gold.")
public final class ApplyCorrectionsMain extends JobCommand<ApplyCorrectionsMain.Prepared> {
  private static final Logger LOG = LoggerFactory.getLogger(ApplyCorrectionsMain.class);
  private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9TZ:._-]{1,80}");

  @Option(names = "--metric", paramLabel = "NAME", required = true,
      description = "A metric with late-policy = reconcile.")
  String metricName;

  @Option(names = "--run-id", paramLabel = "RUN",
      description = "Apply the corrections staged by this correct run (repeatable).")
  List<String> runIds = new ArrayList<>();

  @Option(names = "--all", description = "Apply every staged, unapplied correction.")
  boolean all;

  record Prepared(CorrectionConfig config, MetricSpec metric, List<String> runIds) {}

  public static void main(String[] args) {
    System.exit(Launcher.execute(new ApplyCorrectionsMain(), args));
  }

  @Override
  protected String appName() {
    return "latelake-apply-corrections";
  }

  @Override
  protected Prepared prepare(Config config) {
    CorrectionConfig c = CorrectionConfig.fromConfig(config);
    MetricSpec m = c.metric(metricName);
    if (m.latePolicy() != LatePolicy.RECONCILE) {
      throw LakeConfigException.invalid("--metric", metricName, "its late-policy is "
          + m.latePolicy().configName() + ", not reconcile: nothing is staged for it");
    }
    if (all == !runIds.isEmpty()) {
      throw new LakeConfigException("Invalid options: give --run-id RUN (repeatable) or --all");
    }
    for (String r : runIds) {
      if (!RUN_ID.matcher(r).matches()) {
        throw LakeConfigException.invalid("--run-id", r, "is not a run id");
      }
    }
    return new Prepared(c, m, List.copyOf(runIds));
  }

  @Override
  protected ExitCode run(JobContext context, Prepared p) {
    SparkSession spark = context.spark();
    long n = apply(spark, p.config(), context.tables(), p.metric(), p.runIds());
    LOG.info("apply-corrections {}: {} gold rows restated", p.metric().name(), n);
    return ExitCode.OK;
  }

  /**
   * @param runIds runs whose staged corrections are approved; empty: all
   * @return gold rows restated
   */
  public static long apply(SparkSession spark, CorrectionConfig config, TableRegistry tables,
      MetricSpec metric, List<String> runIds) {
    LakeReads.requireTable(spark, "apply-corrections", "gold." + metric.name(),
        tables.gold(metric.name()), "run `latelake gold` first");
    CorrectionTables t = new CorrectionTables(tables);
    t.createMonitoring(spark);
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    String runId = "apply-" + now.truncatedTo(ChronoUnit.SECONDS).toString().replace(":", "")
        + "-" + UUID.randomUUID().toString().substring(0, 8);
    return Reconcile.apply(spark, t, metric, runIds, runId, Timestamp.from(now), config);
  }
}
