package io.latelake.correction;

import com.typesafe.config.Config;
import io.latelake.core.cli.JobCommand;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.time.DayRange;
import java.util.List;
import picocli.CommandLine.Mixin;

/**
 * The shape shared by {@code rebuild}, {@code cascade} and {@code audit}: metrics and an
 * event-date range ({@code --from/--to} or {@code --lookback-days}), validated before Spark starts.
 */
abstract class RangeCommand extends JobCommand<RangeCommand.Prepared> {
  @Mixin
  RangeOptions range = new RangeOptions();

  /**
   * @param config the correction config
   * @param metrics the selected metrics
   * @param range the parsed event-date range
   */
  record Prepared(CorrectionConfig config, List<MetricSpec> metrics, DayRange range) {}

  /** @return the command name, e.g. {@code rebuild} */
  protected abstract String name();

  @Override
  protected final String appName() {
    return "latelake-" + name();
  }

  @Override
  protected final Prepared prepare(Config config) {
    TableRegistry.fromConfig(config);
    CorrectionConfig c = CorrectionConfig.fromConfig(config);
    return new Prepared(c, c.select(range.metrics), range.range(c));
  }
}
