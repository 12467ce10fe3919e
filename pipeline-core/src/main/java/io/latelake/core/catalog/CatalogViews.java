package io.latelake.core.catalog;

import io.latelake.core.metric.MetricSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The views {@link CatalogRegister} keeps: {@code <gold db>.<metric>_status} ({@link StatusViews})
 * and {@code <monitoring db>.sources_status} ({@link SourcesView}). A view is replaced only when
 * its query changed.
 */
final class CatalogViews {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogRegister.class);

  private final SparkSession spark;
  private final CatalogConfig config;

  CatalogViews(SparkSession spark, CatalogConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /**
   * @param monitoringTables the tables found in the monitoring database
   * @return true when the view {@code <monitoring db>.sources_status} was created or replaced
   */
  boolean sources(Set<String> monitoringTables) {
    return createOrReplace(
        config.monitoringDb(),
        SourcesView.NAME,
        "",
        "Per source listed in lake.sources: its last arrival, how long it has been quiet on the"
            + " arrival clock, whether its idle timeout has passed and the rows silver dropped"
            + " behind its watermark; live over bronze and stream_progress",
        SourcesView.query(
            config.sources(),
            CatalogConfig.qualified(config.bronzeDb(), "bronze_events"),
            droppedBySource(monitoringTables)));
  }

  /**
   * @return the registered stream_progress when it has the column dropped_by_source (a lake whose
   *     streams have not written since the column was added has none yet)
   */
  private Optional<String> droppedBySource(Set<String> monitoringTables) {
    String progress = CatalogConfig.qualified(config.monitoringDb(), "stream_progress");
    return monitoringTables.contains("stream_progress")
            && List.of(spark.table(progress).columns()).contains("dropped_by_source")
        ? Optional.of(progress)
        : Optional.empty();
  }

  /**
   * @param monitoringTables the tables found in the monitoring database
   * @return true when the view {@code <gold db>.<metric>_status} was created or replaced
   */
  boolean status(MetricSpec m, Set<String> monitoringTables) {
    String goldTable = CatalogConfig.qualified(config.goldDb(), m.name());
    List<String> columns = List.of(spark.table(goldTable).columns());
    String query =
        StatusViews.query(
            m,
            config.horizon(),
            goldTable,
            name -> CatalogConfig.qualified(config.monitoringDb(), name),
            columns,
            monitoringTables.contains("corrections_log"),
            monitoringTables.contains("stream_progress"),
            monitoringTables.contains("lateness_cdf"));
    List<String> cols = new ArrayList<>();
    for (String c : columns) {
      cols.add(
          Sql.ident(c) + ColumnDocs.column(c).map(d -> " COMMENT " + Sql.literal(d)).orElse(""));
    }
    for (String c : StatusViews.EXTRA_COLUMNS) {
      cols.add(Sql.ident(c) + " COMMENT " + Sql.literal(ColumnDocs.COLUMNS.get(c)));
    }
    return createOrReplace(
        config.goldDb(),
        m.name() + "_status",
        " (" + String.join(", ", cols) + ")",
        "gold."
            + m.name()
            + " with the status of every row (provisional / settled / restated), its expected"
            + " completeness and its last restatement; live over the tables",
        query);
  }

  /**
   * @param columns the view's column list with comments (with its parentheses), or empty
   * @return true when the view was created or replaced (false: it exists with this query)
   */
  private boolean createOrReplace(
      String db, String view, String columns, String comment, String query) {
    Optional<CatalogTable> existing = CatalogRegister.metadata(spark, db, view);
    if (existing.isPresent()
        && existing.get().viewText().isDefined()
        && existing.get().viewText().get().trim().equals(query.trim())) {
      return false;
    }
    spark.sql(
        "CREATE OR REPLACE VIEW "
            + CatalogConfig.qualified(db, view)
            + columns
            + " COMMENT "
            + Sql.literal(comment)
            + " AS "
            + query);
    LOG.debug("Created view {}.{}", db, view);
    return true;
  }
}
