package io.latelake.correction;

import com.typesafe.config.Config;
import io.latelake.core.cli.JobCommand;
import io.latelake.correction.shared.CorrectionConfig;

/**
 * A command of the correction path: {@code latelake <name>}, Spark application {@code
 * latelake-<name>}.
 *
 * @param <O> the validated options its action runs with
 */
abstract class CorrectionCommand<O> extends JobCommand<O> {
  private final String name;

  /**
   * @param name the command name, e.g. {@code correct}
   */
  CorrectionCommand(String name) {
    this.name = name;
  }

  /**
   * @return the command name
   */
  final String name() {
    return name;
  }

  @Override
  protected final String appName() {
    return "latelake-" + name;
  }

  /** Reads {@code lake.correction} and the metrics ({@link CorrectionConfig}), then the options. */
  @Override
  protected final O prepare(Config config) {
    return options(CorrectionConfig.fromConfig(config));
  }

  /**
   * @return the action's options from the command line and the correction config, validated before
   *     Spark starts
   * @throws io.latelake.core.config.LakeConfigException (exit 2) on a bad option
   */
  protected abstract O options(CorrectionConfig config);
}
