package io.latelake.correction;

import io.latelake.core.ExitCode;
import io.latelake.core.job.ActionResult;
import io.latelake.core.job.JobContext;
import io.latelake.correction.shared.CorrectionAction;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.RangeSpec;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Mixin;

/**
 * The command shared by {@code rebuild}, {@code cascade} and {@code audit}: metrics and an
 * event-date range ({@code --from/--to} or {@code --lookback-days}), validated into a {@link
 * RangeSpec} before Spark starts; then the action runs, its summary is logged and its result
 * decides the exit code ({@link ActionResult#exitCode}).
 */
abstract class RangeCommand extends CorrectionCommand<RangeSpec> {
  private static final Logger LOG = LoggerFactory.getLogger(RangeCommand.class);

  @Mixin RangeOptions range = new RangeOptions();

  private final BiFunction<
          JobContext, RangeSpec, ? extends CorrectionAction<RangeSpec, ? extends ActionResult>>
      action;

  /**
   * @param name the command name, e.g. {@code rebuild}
   * @param action builds the action from the run's context and the validated range
   */
  RangeCommand(
      String name,
      BiFunction<
              JobContext, RangeSpec, ? extends CorrectionAction<RangeSpec, ? extends ActionResult>>
          action) {
    super(name);
    this.action = action;
  }

  @Override
  protected final RangeSpec options(CorrectionConfig c) {
    return new RangeSpec(c, c.select(range.metrics), range.range(c));
  }

  @Override
  protected final ExitCode run(JobContext context, RangeSpec spec) {
    ActionResult r = action.apply(context, spec).run();
    r.report(figures());
    LOG.info("{} {}..{}: {}", name(), spec.range().from(), spec.range().to(), r.summary());
    return r.exitCode();
  }
}
