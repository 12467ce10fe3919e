package io.latelake.core.cli;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Runs a picocli command and turns every outcome into a documented exit code: 0 ok, 1 runtime
 * failure, 2 bad usage or config, 3 audit differences. Never exits 0 on failure.
 */
public final class Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(Launcher.class);

  private Launcher() {}

  /**
   * @param command a picocli {@code @Command} object whose {@code call()} returns an exit code
   * @param args command-line arguments
   * @return the process exit code
   */
  public static int execute(Object command, String... args) {
    return execute(command, null, null, args);
  }

  /**
   * As {@link #execute(Object, String...)}, writing the command's output and error text to the
   * given writers (null: standard output and error).
   */
  public static int execute(Object command, java.io.PrintWriter out, java.io.PrintWriter err,
      String... args) {
    CommandLine cli = new CommandLine(command);
    if (out != null) {
      cli.setOut(out);
    }
    if (err != null) {
      cli.setErr(err);
    }
    cli.setExecutionExceptionHandler((ex, line, parsed) -> {
      Throwable root = ex;
      while (!(root instanceof LatelakeException) && root.getCause() != null
          && root.getCause() != root) {
        root = root.getCause();
      }
      if (root instanceof LatelakeException le) {
        if (le.exitCode() == ExitCode.USAGE) {
          line.getErr().println("latelake: " + le.getMessage());
        } else {
          LOG.error("{} failed: {}", line.getCommandName(), le.getMessage(), le);
          line.getErr().println("latelake: " + le.getMessage());
        }
        return le.exitCode().code();
      }
      LOG.error("{} failed", line.getCommandName(), ex);
      line.getErr().println("latelake: " + line.getCommandName() + " failed: " + ex);
      return ExitCode.RUNTIME_FAILURE.code();
    });
    cli.setParameterExceptionHandler((ex, a) -> {
      ex.getCommandLine().getErr().println("latelake: " + ex.getMessage());
      ex.getCommandLine().usage(ex.getCommandLine().getErr());
      return ExitCode.USAGE.code();
    });
    return cli.execute(args);
  }
}
