package io.latelake.correction;

import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.time.DateArgs;
import io.latelake.correction.audit.AsOfJob;
import io.latelake.correction.shared.CorrectionConfig;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code latelake asof}: shows how {@code gold.<metric>} differed at a timestamp or version from
 * now ({@link AsOfJob}), one line per changed key: window, keys, before → after. spark-submit entry
 * point: {@code --class io.latelake.correction.AsOfMain}. Read only. Exit codes: 0 ok, 1 runtime
 * failure, 2 bad usage or config (bad timestamp or table version, or one outside the table's
 * history; unknown metric, missing table).
 */
@Command(
    name = "asof",
    mixinStandardHelpOptions = true,
    description = "Diff a gold table as of a timestamp or version against now.")
public final class AsOfMain extends CorrectionCommand<AsOfJob.Options> {
  @Option(names = "--metric", required = true, paramLabel = "NAME", description = "The metric.")
  String metricName;

  @Option(
      names = "--timestamp",
      paramLabel = "DATE|INSTANT",
      description =
          "Read gold as of this UTC date or instant: 2024-05-14, 2024-05-14T10:00:00Z or"
              + " 2024-05-14 10:00:00.123 (as DESCRIBE HISTORY prints a commit's time).")
  String timestamp;

  @Option(
      names = "--table-version",
      paramLabel = "N",
      description = "Read gold as of this Delta table version.")
  String version;

  @Option(
      names = "--limit",
      defaultValue = "50",
      paramLabel = "N",
      description = "Lines to show. Default: ${DEFAULT-VALUE}.")
  int limit;

  @Spec CommandSpec spec;

  public AsOfMain() {
    super("asof");
  }

  @Override
  protected AsOfJob.Options options(CorrectionConfig c) {
    if ((timestamp == null) == (version == null)) {
      throw new LakeConfigException("Invalid options: give --timestamp or --table-version (one)");
    }
    MetricSpec m = c.metric(metricName);
    if (limit < 1 || limit > 100_000) {
      throw LakeConfigException.invalid("--limit", limit, "must be between 1 and 100000");
    }
    Optional<Long> v = Optional.empty();
    if (version != null) {
      if (!version.matches("\\d{1,18}")) {
        throw LakeConfigException.invalid(
            "--table-version", version, "expected a version number >= 0");
      }
      v = Optional.of(Long.parseLong(version));
    }
    Optional<Instant> t =
        timestamp == null
            ? Optional.empty()
            : Optional.of(DateArgs.instant("--timestamp", timestamp));
    return new AsOfJob.Options(c, m, t, v, limit);
  }

  @Override
  protected ExitCode run(JobContext context, AsOfJob.Options options) {
    AsOfJob.Result r = new AsOfJob(context, options).run();
    PrintWriter out = spec.commandLine().getOut();
    out.println(r.summary());
    for (AsOfJob.KeyDiff row : r.rows()) {
      out.printf(
          "  %s %s: %s -> %s (delta %s); status %s -> %s; corrected_at %s -> %s%n",
          row.windowStart(),
          row.keys(),
          row.before() == null ? "(no row)" : row.before(),
          row.after() == null ? "(removed)" : row.after(),
          row.delta(),
          row.statusBefore(),
          row.statusAfter(),
          row.correctedAtBefore(),
          row.correctedAtAfter());
    }
    out.flush();
    return ExitCode.OK;
  }

  public static void main(String[] args) {
    System.exit(Launcher.execute(new AsOfMain(), args));
  }
}
