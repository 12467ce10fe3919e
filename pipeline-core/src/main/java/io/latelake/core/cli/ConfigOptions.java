package io.latelake.core.cli;

import com.typesafe.config.Config;
import io.latelake.core.config.ConfigLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The options every latelake command takes: a config file and repeatable {@code key=value}
 * overrides. Precedence: defaults &lt; {@code --config} &lt; {@code --set} (later wins).
 */
public final class ConfigOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "HOCON config file (default: built-in defaults only; scripts/latelake gives"
              + " conf/local.conf when no --config is given, and a --config replaces it).")
  Path configFile;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "Override one key, e.g. --set lake.silver.watermark-delay=\"5 minutes\". Repeatable.")
  List<String> overrides = new ArrayList<>();

  public ConfigOptions() {}

  public ConfigOptions(Path configFile, List<String> overrides) {
    this.configFile = configFile;
    this.overrides = new ArrayList<>(overrides);
  }

  /**
   * @return the effective, validated config
   * @throws io.latelake.core.config.LakeConfigException on any config error
   */
  public Config load() {
    return ConfigLoader.load(Optional.ofNullable(configFile), overrides);
  }

  public Optional<Path> configFile() {
    return Optional.ofNullable(configFile);
  }

  public List<String> overrides() {
    return List.copyOf(overrides);
  }
}
