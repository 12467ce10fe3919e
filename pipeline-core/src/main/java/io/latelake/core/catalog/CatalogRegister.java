package io.latelake.core.catalog;

import io.latelake.core.catalog.FoundTables.Found;
import io.latelake.core.metric.MetricSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * Registers every latelake table that exists under {@code lake.root} as an external Delta table in
 * the session's catalog ({@code CREATE TABLE IF NOT EXISTS ... USING delta LOCATION ...}, with a
 * table comment), sets the comments of known columns, and creates one persistent view {@code <gold
 * db>.<metric>_status} per configured metric ({@link StatusViews}).
 *
 * <p>{@code latelake catalog register} runs it, and every job with {@code lake.catalog.enabled}
 * ({@link JobCatalog}, without column comments).
 *
 * <p>Idempotent: a table already registered at the same location is left alone, a column whose
 * comment is already set is not altered (a comment is a metadata-only Delta commit, written once),
 * a view whose text is unchanged is not replaced. A name registered at another location is an error
 * (exit 2).
 */
public final class CatalogRegister {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogRegister.class);

  private final SparkSession spark;
  private final CatalogConfig config;
  private final boolean fromJob;
  private final CatalogViews views;

  /** The registration of {@code latelake catalog register}: tables, column comments, views. */
  public CatalogRegister(SparkSession spark, CatalogConfig config) {
    this(spark, config, false);
  }

  private CatalogRegister(SparkSession spark, CatalogConfig config, boolean fromJob) {
    this.spark = spark;
    this.config = config;
    this.fromJob = fromJob;
    this.views = new CatalogViews(spark, config);
  }

  /**
   * The registration a job runs ({@link JobCatalog}): tables and views as {@code catalog register}
   * does, but no column comments (a comment is a Delta metadata commit, which would conflict with a
   * stream appending to the table at the same time: they are left to {@code catalog register}), and
   * a metric without a gold table yet is no warning.
   */
  public static CatalogRegister forJob(SparkSession spark, CatalogConfig config) {
    return new CatalogRegister(spark, config, true);
  }

  /**
   * @param tablesCreated tables newly registered
   * @param tablesUnchanged tables already registered at their location
   * @param commentsSet column comments written
   * @param viewsCreated views created or replaced (their text changed)
   * @param viewsUnchanged views whose text was already current
   * @param names every registered table and view, qualified, sorted
   */
  public record Result(
      int tablesCreated,
      int tablesUnchanged,
      int commentsSet,
      int viewsCreated,
      int viewsUnchanged,
      List<String> names)
      implements io.latelake.core.job.ActionResult {
    @Override
    public String summary() {
      return "catalog: "
          + tablesCreated
          + " tables registered, "
          + tablesUnchanged
          + " already registered, "
          + commentsSet
          + " column comments set, "
          + viewsCreated
          + " views created or replaced, "
          + viewsUnchanged
          + " unchanged";
    }
  }

  /**
   * @return what was registered
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when {@code lake.catalog.enabled}
   *     is false
   * @throws CatalogException (exit 2) when a name is registered at another location
   */
  public Result run() {
    if (!config.enabled()) {
      throw new io.latelake.core.config.LakeConfigException(
          "Cannot register the catalog: lake.catalog.enabled is false");
    }
    List<Found> found = new FoundTables(spark, config).discover();
    int created = 0;
    int unchanged = 0;
    int comments = 0;
    List<String> names = new ArrayList<>();
    for (String db : List.of(config.bronzeDb(), config.goldDb(), config.monitoringDb())) {
      spark.sql(
          "CREATE DATABASE IF NOT EXISTS "
              + Sql.ident(db)
              + " COMMENT "
              + Sql.literal("latelake tables under " + config.tables().root()));
    }
    for (Found f : found) {
      if (registerTable(f)) {
        created++;
      } else {
        unchanged++;
      }
      if (!fromJob) {
        comments += commentColumns(f);
      }
      names.add(f.db() + "." + f.table());
    }
    int viewsCreated = 0;
    int viewsUnchanged = 0;
    for (MetricSpec m : config.metrics()) {
      Optional<Found> gold =
          found.stream()
              .filter(f -> f.db().equals(config.goldDb()) && f.table().equals(m.name()))
              .findFirst();
      if (gold.isEmpty()) {
        if (fromJob) {
          LOG.debug(
              "No view {}.{}_status: gold.{} has no table yet",
              config.goldDb(),
              m.name(),
              m.name());
        } else {
          LOG.warn(
              "No view {}.{}_status: gold.{} has no table yet",
              config.goldDb(),
              m.name(),
              m.name());
        }
        continue;
      }
      if (views.status(m, FoundTables.monitoring(found, config))) {
        viewsCreated++;
      } else {
        viewsUnchanged++;
      }
      names.add(config.goldDb() + "." + m.name() + "_status");
    }
    if (!config.sources().listed().isEmpty()
        && found.stream().anyMatch(f -> f.table().equals("bronze_events"))) {
      if (views.sources(FoundTables.monitoring(found, config))) {
        viewsCreated++;
      } else {
        viewsUnchanged++;
      }
      names.add(config.monitoringDb() + "." + SourcesView.NAME);
    }
    names.sort(null);
    // The command prints this on stdout; a job logs it when it registered something.
    boolean changed = created + comments + viewsCreated > 0;
    String summary =
        "Catalog: {} tables registered, {} already there, {} column comments set, "
            + "{} views created or replaced, {} unchanged";
    if (fromJob && changed) {
      LOG.info(summary, created, unchanged, comments, viewsCreated, viewsUnchanged);
    } else {
      LOG.debug(summary, created, unchanged, comments, viewsCreated, viewsUnchanged);
    }
    return new Result(created, unchanged, comments, viewsCreated, viewsUnchanged, names);
  }

  /**
   * @return true when the table was newly registered
   */
  private boolean registerTable(Found f) {
    Optional<CatalogTable> existing = metadata(f.db(), f.table());
    if (existing.isPresent()) {
      String location = existing.get().location().toString();
      if (!new Path(location).equals(new Path(f.path()))) {
        throw new CatalogException(
            "Cannot register "
                + f.db()
                + "."
                + f.table()
                + " at '"
                + f.path()
                + "': the name is registered at '"
                + location
                + "' (another lake.root?)");
      }
      return false;
    }
    String comment =
        ColumnDocs.TABLES.getOrDefault(
            f.table(),
            f.db().equals(config.goldDb())
                ? "Gold metric "
                    + f.table()
                    + ": windowed measures "
                    + "(window_start, window_end in UTC), merged by the stream and corrections"
                : "latelake table " + f.table());
    spark.sql(
        "CREATE TABLE IF NOT EXISTS "
            + CatalogConfig.qualified(f.db(), f.table())
            + " USING delta LOCATION "
            + Sql.literal(f.path())
            + " COMMENT "
            + Sql.literal(comment));
    LOG.debug("Registered {}.{} at {}", f.db(), f.table(), f.path());
    return true;
  }

  /**
   * Sets the comment of known columns that have none, in one {@code ALTER TABLE} (one metadata-only
   * Delta commit; nothing when every comment is set).
   *
   * @return comments written
   */
  private int commentColumns(Found f) {
    String table = CatalogConfig.qualified(f.db(), f.table());
    StructType schema = spark.table(table).schema();
    List<String> changes = new ArrayList<>();
    for (StructField field : schema.fields()) {
      Optional<String> doc = ColumnDocs.column(field.name());
      if (doc.isPresent() && field.getComment().isEmpty()) {
        changes.add(Sql.ident(field.name()) + " COMMENT " + Sql.literal(doc.get()));
      }
    }
    if (!changes.isEmpty()) {
      spark.sql("ALTER TABLE " + table + " ALTER COLUMN " + String.join(", ", changes));
      LOG.debug("Commented {} columns of {}", changes.size(), table);
    }
    return changes.size();
  }

  private Optional<CatalogTable> metadata(String db, String table) {
    return metadata(spark, db, table);
  }

  /**
   * @return the catalog entry of {@code db.table}, empty when there is none
   */
  static Optional<CatalogTable> metadata(SparkSession spark, String db, String table) {
    TableIdentifier id = new TableIdentifier(table, Option.apply(db));
    if (!spark.sessionState().catalog().tableExists(id)) {
      return Optional.empty();
    }
    try {
      return Optional.of(spark.sessionState().catalog().getTableMetadata(id));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot read the catalog entry of " + db + "." + table, e);
    }
  }
}
