package io.latelake.analyst;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import io.latelake.core.catalog.CatalogSessions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local Hive metastore's settings for a lake whose root does not exist yet. */
class CatalogSessionsTest {
  /**
   * Derby writes its log under the root when the session opens the metastore; without the folder it
   * printed its boot banner and a FileNotFoundException to stderr on a new lake's first run.
   */
  @Test
  void aNewLakesRootExistsBeforeDerbyWritesItsLog(@TempDir Path tmp) {
    String master = System.getProperty("spark.master");
    System.setProperty("spark.master", "local[2]");
    try {
      Path root = tmp.resolve("new-lake");
      Config config = CatalogSessions.withCatalog(AnalystLake.config(root));
      assertThat(root).isDirectory().isEmptyDirectory();
      assertThat(
              config
                  .getConfig("lake.spark.conf")
                  .root()
                  .get("spark.sql.catalogImplementation")
                  .unwrapped())
          .isEqualTo("hive");
    } finally {
      if (master == null) {
        System.clearProperty("spark.master");
      } else {
        System.setProperty("spark.master", master);
      }
    }
  }
}
