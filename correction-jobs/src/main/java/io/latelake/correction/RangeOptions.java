package io.latelake.correction;

import io.latelake.core.time.DateArgs;
import io.latelake.core.time.DayRange;
import io.latelake.correction.shared.CorrectionConfig;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Options of the range commands (rebuild, cascade, audit): metrics and a range of UTC event dates,
 * either {@code --from}/{@code --to} or a lookback of N days ending today.
 */
public final class RangeOptions {
  @Option(
      names = "--metric",
      paramLabel = "NAME",
      description = "Only this metric (repeatable). Default: all.")
  List<String> metrics = new ArrayList<>();

  @Option(
      names = "--from",
      paramLabel = "yyyy-MM-dd",
      description =
          "First event date (a day of lake.correction.rollup-time-zone for rebuild and "
              + "cascade; UTC for audit).")
  String from;

  @Option(names = "--to", paramLabel = "yyyy-MM-dd", description = "Last event date (as --from).")
  String to;

  @Option(
      names = "--lookback-days",
      paramLabel = "N",
      description = "The N event dates ending today (UTC). Default: lake.correction.lookback-days.")
  Integer lookbackDays;

  /**
   * @throws io.latelake.core.config.LakeConfigException on a bad date or combination
   */
  DayRange range(CorrectionConfig config) {
    return DateArgs.range(
        from, to, lookbackDays, config.lookbackDays(), LocalDate.now(ZoneOffset.UTC));
  }
}
