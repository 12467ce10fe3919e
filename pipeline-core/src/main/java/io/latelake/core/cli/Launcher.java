package io.latelake.core.cli;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;
import io.latelake.core.config.Secrets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Runs a picocli command and turns every outcome into a documented exit code: 0 ok, 1 runtime
 * failure, 2 bad usage or config, 3 audit differences, 143 a command stopped by SIGTERM (a batch
 * command's {@link BatchStop}, the streams' own stop). What a command throws once a signal
 * (SIGTERM, SIGINT, SIGHUP) began the JVM's shutdown is the stop's consequence: logged at DEBUG,
 * not reported as a failure. Never exits 0 on failure. Error text never shows a configured secret
 * value ({@link Secrets#redact}).
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
  public static int execute(
      Object command, java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
    // which signal stops the command, if one does (see the execution exception handler)
    BatchStop.watchSignals();
    if (org.apache.hadoop.util.ShutdownHookManager.get().isShutdownInProgress()) {
      return ExitCode.STOPPED.code(); // a signal came while the JVM started: nothing runs
    }
    CommandLine cli = new CommandLine(command);
    if (out != null) {
      cli.setOut(out);
    }
    if (err != null) {
      cli.setErr(err);
    }
    cli.setExecutionExceptionHandler(
        (ex, line, parsed) -> {
          if (BatchStop.stopped()
              || (BatchStop.signalled()
                  && org.apache.hadoop.util.ShutdownHookManager.get().isShutdownInProgress())) {
            // SIGTERM: the stop cancelled the command's jobs (or stopped its streams) and said so
            // in one line; what the cancellation threw is its consequence, not a fault. The JVM
            // exits with 143. (A shutdown without a signal, e.g. Spark's exit after an
            // OutOfMemoryError, is reported below.)
            LOG.debug("{} ended by the stop", line.getCommandName(), ex);
            return ExitCode.STOPPED.code();
          }
          Throwable root = ex;
          while (!(root instanceof LatelakeException)
              && root.getCause() != null
              && root.getCause() != root) {
            root = root.getCause();
          }
          // A failure raised by Spark or Kafka may quote a configured secret: never print it.
          boolean reveals = Secrets.revealsSecret(ex);
          boolean usage = root instanceof LatelakeException u && u.exitCode() == ExitCode.USAGE;
          var known =
              usage
                  ? java.util.Optional.<String>empty()
                  : DamagedDeltaLog.describe(ex).or(() -> StorageFault.describe(ex));
          if (known.isPresent()) {
            // A damaged log or a storage fault: one line saying what and what to do; the stack
            // at DEBUG.
            LOG.error("{} failed: {}", line.getCommandName(), Secrets.redact(known.get()));
            if (!reveals) {
              LOG.debug("{} failed", line.getCommandName(), ex);
            }
            line.getErr()
                .println(
                    "latelake: "
                        + line.getCommandName()
                        + " failed: "
                        + Secrets.redact(known.get()));
            return ExitCode.RUNTIME_FAILURE.code();
          }
          if (root instanceof LatelakeException le) {
            String message = Secrets.redact(le.getMessage());
            if (le.exitCode() == ExitCode.USAGE) {
              line.getErr().println("latelake: " + message);
            } else {
              if (reveals) {
                LOG.error(
                    "{} failed: {} (stack trace withheld: it quotes a secret)",
                    line.getCommandName(),
                    message);
              } else {
                LOG.error("{} failed: {}", line.getCommandName(), message, le);
              }
              line.getErr().println("latelake: " + message);
            }
            return le.exitCode().code();
          }
          if (reveals) {
            LOG.error(
                "{} failed: {} (stack trace withheld: it quotes a secret)",
                line.getCommandName(),
                Secrets.redact(String.valueOf(ex)));
          } else {
            LOG.error("{} failed", line.getCommandName(), ex);
          }
          line.getErr()
              .println(
                  "latelake: "
                      + line.getCommandName()
                      + " failed: "
                      + Secrets.redact(String.valueOf(ex)));
          return ExitCode.RUNTIME_FAILURE.code();
        });
    cli.setParameterExceptionHandler(
        (ex, a) -> {
          // The error and where the usage is: the usage itself would bury the error.
          CommandLine at = ex.getCommandLine();
          if (ex instanceof CommandLine.UnmatchedArgumentException u
              && !at.getSubcommands().isEmpty()
              && !u.getUnmatched().isEmpty()
              && !u.getUnmatched().get(0).startsWith("-")) {
            // a mistyped command: name it alone (not the arguments after it, e.g. the launcher's
            // --config) and the closest command, by picocli's similarity of names
            java.util.List<String> closest = u.getSuggestions();
            at.getErr()
                .println(
                    "latelake: no command '"
                        + Secrets.redact(u.getUnmatched().get(0))
                        + "'"
                        + (closest.isEmpty() ? "" : "; did you mean '" + closest.get(0) + "'?"));
            at.getErr()
                .println(
                    "See '" + at.getCommandSpec().qualifiedName() + " --help' for the commands.");
            return ExitCode.USAGE.code();
          }
          at.getErr().println("latelake: " + Secrets.redact(ex.getMessage()));
          at.getErr().println("See '" + at.getCommandSpec().qualifiedName() + " --help'.");
          return ExitCode.USAGE.code();
        });
    return cli.execute(args);
  }
}
