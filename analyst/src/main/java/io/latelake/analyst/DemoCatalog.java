package io.latelake.analyst;

import com.typesafe.config.Config;
import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.catalog.CatalogRegister;
import io.latelake.core.metric.MetricSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * The demo's last step: registers the demo lake in the catalog (a session of its own, with the
 * local metastore) and prints the commands an analyst pastes next.
 */
public final class DemoCatalog {
  private DemoCatalog() {}

  /**
   * Registers the catalog unless {@code lake.catalog.enabled} is false, then prints a {@code
   * latelake sql} and a {@code latelake notebook run} line for this lake. Call with no other
   * session running (it creates and stops its own).
   *
   * @param configFile the {@code --config} the demo ran with, repeated in the printed lines unless
   *     it is the launcher's default {@code conf/local.conf}
   */
  public static void registerAndSuggest(PrintWriter out, Config config, Optional<Path> configFile) {
    CatalogConfig catalog = CatalogConfig.fromConfig(config);
    if (!catalog.enabled()) {
      out.println("catalog: not registered (lake.catalog.enabled = false)");
      out.flush();
      return;
    }
    SparkSession spark = AnalystSessions.create("latelake-demo-catalog", config);
    try {
      CatalogMain.print(out, new CatalogRegister(spark, catalog).run());
    } finally {
      spark.stop();
    }
    String abs = Path.of(catalog.tables().root()).toAbsolutePath().normalize().toString();
    // A plain path is a valid unquoted HOCON value; anything else is quoted for the shell too.
    String root =
        abs.matches("[A-Za-z0-9_./-]+") && !abs.contains("//")
            ? abs
            : "'\"" + abs.replace("'", "'\\''") + "\"'";
    String conf =
        configFile
            .filter(f -> !f.normalize().endsWith(Path.of("conf", "local.conf")))
            .map(f -> " --config " + f)
            .orElse("");
    List<MetricSpec> metrics = catalog.metrics();
    String metric = metrics.isEmpty() ? "<metric>" : metrics.get(0).name();
    out.println();
    out.println("Gold with the status of every window, and the gold overview notebook:");
    out.printf(
        "  scripts/latelake sql%s --set lake.root=%s \"SELECT * FROM %s.%s_status ORDER BY "
            + "window_start DESC, updated_at DESC LIMIT 20\"%n",
        conf, root, catalog.goldDb(), metric);
    out.printf(
        "  scripts/latelake notebook run notebooks/01_gold_overview.sql%s --set "
            + "lake.root=%s --param metric=%s%n",
        conf, root, metric);
    out.flush();
  }
}
