package io.latelake.profiler;

import io.latelake.core.job.ActionResult;
import io.latelake.core.job.BatchAction;
import io.latelake.core.job.JobContext;
import io.latelake.core.time.DayRange;
import java.time.Clock;

/**
 * A profiler action ({@link ProfileJob}, {@link ReportJob}): a {@link BatchAction} over a validated
 * range of UTC arrival days, stamping what it writes ({@code computed_at}, {@code raised_at}) with
 * the run's clock.
 *
 * @param <R> the result record
 */
public abstract class ProfilerJob<R extends ActionResult>
    extends BatchAction<ProfilerJob.Options, R> {
  /**
   * @param config the profiler config
   * @param range arrival days (validated)
   */
  public record Options(ProfilerConfig config, DayRange range) {}

  protected final ProfilerConfig cfg;
  protected final DayRange range;
  protected final Clock clock;

  /**
   * @param action the action's name ({@code profile}, {@code report}): the prefix of its run id
   */
  ProfilerJob(String action, JobContext context, Options options) {
    super(action, context, options);
    this.cfg = options.config();
    this.range = options.range();
    this.clock = context.clock();
  }
}
