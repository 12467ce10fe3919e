package io.latelake.analyst;

import io.latelake.core.ExitCode;
import io.latelake.core.job.ActionResult;
import io.latelake.core.job.BatchAction;
import io.latelake.core.job.JobContext;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code latelake notebook run}'s work as a batch action: the notebook's cells run in order ({@link
 * NotebookRunner}; each cell's Spark jobs under the description {@code notebook-<start>-<suffix>:
 * run cells, <name> cell <i>}), then the HTML page is written.
 */
final class NotebookAction extends BatchAction<NotebookAction.Options, NotebookAction.Result> {
  /**
   * @param notebook the parsed notebook
   * @param params {@code --param} values
   * @param output the HTML page to write
   * @param maxRows rows shown per cell
   * @param guard what a cell may do
   */
  record Options(
      Notebook notebook,
      Map<String, String> params,
      Path output,
      int maxRows,
      ReadOnlyGuard guard) {}

  /**
   * @param run every cell's result
   * @param page the page written
   */
  record Result(NotebookRunner.Result run, Path page) implements ActionResult {
    @Override
    public String summary() {
      return "notebook "
          + run.notebook().name()
          + ": "
          + run.cells().size()
          + " cells, "
          + run.failed()
          + " failed; page: "
          + page.toAbsolutePath();
    }

    /**
     * @return {@link ExitCode#RUNTIME_FAILURE} when a cell failed or was refused
     */
    @Override
    public ExitCode exitCode() {
      return run.failed() == 0 ? ExitCode.OK : ExitCode.RUNTIME_FAILURE;
    }
  }

  NotebookAction(JobContext context, Options options) {
    super("notebook", context, options);
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when a given parameter is not
   *     declared by the notebook
   */
  @Override
  public Result run() {
    NotebookRunner.Result r =
        step(
            "run cells",
            () ->
                new NotebookRunner(spark, options.maxRows(), options.guard())
                    .run(options.notebook(), options.params()));
    perform(
        "write " + options.output(),
        () -> NotebookMain.write(options.output(), NotebookRunner.html(r)));
    return new Result(r, options.output());
  }
}
