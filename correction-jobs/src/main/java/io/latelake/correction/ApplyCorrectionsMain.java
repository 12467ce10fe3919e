package io.latelake.correction;

import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.LatePolicy;
import io.latelake.core.metric.MetricSpec;
import io.latelake.correction.policy.ApplyCorrectionsJob;
import io.latelake.correction.shared.CorrectionConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code latelake apply-corrections}: applies staged corrections of {@code reconcile} metrics to
 * gold (approval = naming the runs with {@code --run-id}, or {@code --all}). spark-submit entry
 * point: {@code --class io.latelake.correction.ApplyCorrectionsMain}. Safe to re-run. Exit codes: 0
 * ok, 1 runtime failure, 2 bad usage or config.
 */
@Command(
    name = "apply-corrections",
    mixinStandardHelpOptions = true,
    description = "Apply approved staged corrections of reconcile metrics to gold.")
public final class ApplyCorrectionsMain extends CorrectionCommand<ApplyCorrectionsJob.Options> {
  private static final Logger LOG = LoggerFactory.getLogger(ApplyCorrectionsMain.class);
  private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9TZ:._-]{1,80}");

  @Option(
      names = "--metric",
      paramLabel = "NAME",
      required = true,
      description = "A metric with late-policy = reconcile.")
  String metricName;

  @Option(
      names = "--run-id",
      paramLabel = "RUN",
      description = "Apply the corrections staged by this correct run (repeatable).")
  List<String> runIds = new ArrayList<>();

  @Option(names = "--all", description = "Apply every staged, unapplied correction.")
  boolean all;

  public ApplyCorrectionsMain() {
    super("apply-corrections");
  }

  @Override
  protected ApplyCorrectionsJob.Options options(CorrectionConfig c) {
    MetricSpec m = c.metric(metricName);
    if (m.latePolicy() != LatePolicy.RECONCILE) {
      throw LakeConfigException.invalid(
          "--metric",
          metricName,
          "its late-policy is "
              + m.latePolicy().configName()
              + ", not reconcile: nothing is staged for it");
    }
    if (all == !runIds.isEmpty()) {
      throw new LakeConfigException("Invalid options: give --run-id RUN (repeatable) or --all");
    }
    for (String r : runIds) {
      if (!RUN_ID.matcher(r).matches()) {
        throw LakeConfigException.invalid("--run-id", r, "is not a run id");
      }
    }
    return new ApplyCorrectionsJob.Options(c, m, runIds);
  }

  @Override
  protected ExitCode run(JobContext context, ApplyCorrectionsJob.Options options) {
    ApplyCorrectionsJob.Result r = new ApplyCorrectionsJob(context, options).run();
    LOG.info("apply-corrections {}: {}", options.metric().name(), r.summary());
    r.report(figures());
    return r.exitCode();
  }

  public static void main(String[] args) {
    System.exit(Launcher.execute(new ApplyCorrectionsMain(), args));
  }
}
