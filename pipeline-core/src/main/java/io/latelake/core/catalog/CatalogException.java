package io.latelake.core.catalog;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;

/**
 * A table cannot be registered under its name: the name is registered in the catalog at another
 * path, e.g. by a lake with another {@code lake.root} (exit 2, nothing is changed).
 */
public final class CatalogException extends LatelakeException {
  /**
   * @param message the whole message, naming both paths
   */
  public CatalogException(String message) {
    super(message, ExitCode.USAGE);
  }
}
