package io.latelake.core.config;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;

/**
 * Configuration or usage error, raised before any Spark work starts. The message names the key and
 * the offending value. Launchers turn it into exit code 2.
 */
public class LakeConfigException extends LatelakeException {
  public LakeConfigException(String message) {
    super(message, ExitCode.USAGE);
  }

  public LakeConfigException(String message, Throwable cause) {
    super(message, ExitCode.USAGE, cause);
  }

  /**
   * "Invalid value '&lt;v&gt;' for key '&lt;key&gt;': &lt;why&gt;". The value is shown as {@value
   * Secrets#MASK} when the key or the value is a secret ({@link Secrets}).
   *
   * @param key full config key, e.g. {@code lake.silver.watermark-delay}
   * @param value the value as the user wrote it
   * @param why what is wrong and what is expected
   * @return the exception
   */
  public static LakeConfigException invalid(String key, Object value, String why) {
    return new LakeConfigException(
        "Invalid value '"
            + Secrets.defaults().mask(key, value)
            + "' for key '"
            + key
            + "': "
            + why);
  }
}
