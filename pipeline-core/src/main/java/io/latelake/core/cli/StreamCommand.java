package io.latelake.core.cli;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.job.JobContext;
import io.latelake.core.streaming.StreamingJob;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The {@code main} of a streaming job: its typed config from the config (validated before Spark
 * starts), then the job on a live session; exit 0 when the streams end (available-now), 143 on
 * SIGTERM, 1 when a stream fails, 2 on bad usage or config (see {@link JobCommand}). The Spark
 * application is named {@code latelake-<command name>}.
 *
 * @param <C> the job's typed config
 */
public abstract class StreamCommand<C> extends JobCommand<C> {
  private final Function<Config, C> prepare;
  private final BiFunction<JobContext, C, ? extends StreamingJob<C>> job;

  /**
   * @param prepare the typed config from the effective config; throws {@link
   *     io.latelake.core.config.LakeConfigException} on a bad value
   * @param job the job for a run's context and config
   */
  protected StreamCommand(
      Function<Config, C> prepare, BiFunction<JobContext, C, ? extends StreamingJob<C>> job) {
    this.prepare = prepare;
    this.job = job;
  }

  @Override
  protected final boolean stopsItselfOnSigterm() {
    return true;
  }

  @Override
  protected final C prepare(Config config) {
    return prepare.apply(config);
  }

  @Override
  protected final ExitCode run(JobContext context, C prepared) {
    job.apply(context, prepared).run();
    return ExitCode.OK;
  }
}
