package io.latelake.core.config;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;

/**
 * A configuration or usage error (exit 2, nothing is read or written): a config key or command
 * option with a value latelake refuses, checked before Spark starts; or one that contradicts what
 * the lake records (a changed metric definition, a checkpoint built for other listed sources),
 * checked on the session before any stream or job starts. The message names the key or option and
 * the offending value. See {@link io.latelake.core.LatelakeException} for the catalogue of errors.
 */
public class LakeConfigException extends LatelakeException {
  public LakeConfigException(String message) {
    super(message, ExitCode.USAGE);
  }

  public LakeConfigException(String message, Throwable cause) {
    super(message, ExitCode.USAGE, cause);
  }

  /**
   * "Invalid value '&lt;v&gt;' for key '&lt;key&gt;': &lt;why&gt;", or "... for option
   * '&lt;--name&gt;': ..." when {@code key} is a command option (it starts with {@code --}). The
   * value is shown as {@value Secrets#MASK} when the key or the value is a secret ({@link
   * Secrets}).
   *
   * @param key full config key, e.g. {@code lake.silver.watermark-delay}, or a command option, e.g.
   *     {@code --from}
   * @param value the value as the user wrote it
   * @param why what is wrong and what is expected
   * @return the exception
   */
  public static LakeConfigException invalid(String key, Object value, String why) {
    return new LakeConfigException(
        "Invalid value '"
            + Secrets.defaults().mask(key, value)
            + (key.startsWith("--") ? "' for option '" : "' for key '")
            + key
            + "': "
            + why);
  }
}
