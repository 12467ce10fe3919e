package io.latelake.analyst;

import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.catalog.CatalogRegister;
import io.latelake.core.job.BatchAction;
import io.latelake.core.job.JobContext;

/**
 * {@code latelake catalog register}'s work as a batch action: {@link CatalogRegister} with column
 * comments, under the Spark job description {@code catalog-<start>-<suffix>: register tables and
 * views}.
 */
final class RegisterAction extends BatchAction<CatalogConfig, CatalogRegister.Result> {
  RegisterAction(JobContext context, CatalogConfig options) {
    super("catalog", context, options);
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when {@code lake.catalog.enabled}
   *     is false
   * @throws io.latelake.core.catalog.CatalogException (exit 2) when a name is registered at another
   *     location
   */
  @Override
  public CatalogRegister.Result run() {
    return step("register tables and views", () -> new CatalogRegister(spark, options).run());
  }
}
