package io.latelake.profiler;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.udf;
import static org.apache.spark.sql.functions.unix_micros;
import static org.apache.spark.sql.functions.when;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;

/**
 * Gold windows with their expected completeness: "this window is ~97% complete".
 *
 * <p>Adds to the rows of {@code gold.<metric>} ({@code window_start}, {@code window_end}, group-by
 * columns, measures, {@code updated_at}, {@code corrected_at}, ...): {@code age_s} double (now −
 * window_end, seconds), {@code expected_completeness} double in [0, 1] ({@link
 * LatenessCdf#windowCompleteness} of the source's distribution in {@code monitoring.lateness_cdf}),
 * and {@code status} when gold has none yet: {@code restated} (corrected_at set), {@code settled}
 * (age ≥ correction horizon), else {@code provisional}. When gold already carries a {@code status}
 * column (the correction path's), it is kept as is.
 */
public final class CompletenessView {
  private CompletenessView() {}

  /**
   * Pure: the gold rows with {@code age_s}, {@code expected_completeness} and {@code status}.
   *
   * @param gold rows of {@code gold.<metric>}
   * @param cdf the lateness distribution to apply
   * @param now the time the view is read for (UTC)
   * @param correctionHorizon the horizon after which a window counts as settled
   */
  public static Dataset<Row> over(
      Dataset<Row> gold, LatenessCdf cdf, Instant now, Duration correctionHorizon) {
    UserDefinedFunction completeness =
        udf(
            (UDF2<Double, Double, Double>) (age, window) -> cdf.windowCompleteness(age, window),
            DataTypes.DoubleType);
    Column age = lit(Timestamp.from(now)).cast(DataTypes.TimestampType);
    Column ageS = unix_micros(age).minus(unix_micros(col("window_end"))).divide(1e6);
    Column windowS =
        unix_micros(col("window_end")).minus(unix_micros(col("window_start"))).divide(1e6);
    Dataset<Row> out =
        gold.withColumn("age_s", ageS)
            .withColumn("expected_completeness", completeness.apply(col("age_s"), windowS));
    if (!Arrays.asList(gold.columns()).contains("status")) {
      Column corrected =
          Arrays.asList(gold.columns()).contains("corrected_at")
              ? col("corrected_at").isNotNull()
              : lit(false);
      out =
          out.withColumn(
              "status",
              when(corrected, lit("restated"))
                  .when(col("age_s").geq(correctionHorizon.toNanos() / 1e9), lit("settled"))
                  .otherwise(lit("provisional")));
    }
    return out;
  }

  /**
   * @param source a source name of {@code monitoring.lateness_cdf}
   * @return its distribution
   * @throws LatelakeException (exit 2) when the table or the source is missing
   */
  public static LatenessCdf cdf(SparkSession spark, TableRegistry tables, String source) {
    String path = tables.monitoring("lateness_cdf");
    if (!DeltaTables.exists(spark, path)) {
      throw new LatelakeException(
          "Cannot estimate completeness: no table at '" + path + "'; run `latelake profile` first",
          ExitCode.USAGE);
    }
    List<Row> rows =
        spark
            .read()
            .format("delta")
            .load(path)
            .filter(col("source").equalTo(source))
            .collectAsList();
    if (rows.isEmpty()) {
      throw new LatelakeException(
          "Cannot estimate completeness: no lateness distribution for "
              + "source '"
              + source
              + "' in "
              + path,
          ExitCode.USAGE);
    }
    return LatenessCdf.fromRows(rows);
  }

  /**
   * Registers the temp view {@code <metric>_completeness} over {@code gold.<metric>} for SQL
   * readers of this session (dashboards query it like the gold table).
   *
   * @return the view's name
   */
  public static String register(
      SparkSession spark,
      TableRegistry tables,
      String metric,
      String source,
      Instant now,
      Duration correctionHorizon) {
    Dataset<Row> gold = spark.read().format("delta").load(tables.gold(metric));
    String view = metric + "_completeness";
    over(gold, cdf(spark, tables, source), now, correctionHorizon).createOrReplaceTempView(view);
    return view;
  }
}
