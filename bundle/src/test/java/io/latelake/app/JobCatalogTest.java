package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import io.latelake.analyst.AnalystSessions;
import io.latelake.bronze.BronzeMain;
import io.latelake.core.cli.Launcher;
import io.latelake.gold.GoldMain;
import io.latelake.silver.SilverMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs with {@code lake.catalog.enabled} register the tables they create (the local Hive metastore
 * on Derby in the temp lake, as {@code scripts/latelake} runs them): bronze, silver and gold as
 * their commands run them, then read by name from a new session; a second bronze run writes through
 * the registered table and registers nothing again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JobCatalogTest {
  @TempDir static Path tmp;
  LakeFixture f;
  Path conf;

  @BeforeAll
  void lake() throws IOException {
    System.setProperty("spark.master", "local[2]");
    System.setProperty("spark.ui.enabled", "false");
    f = new LakeFixture(tmp.resolve("lake"));
    conf = tmp.resolve("lake.conf");
    Files.writeString(
        conf,
        ConfigFactory.empty()
            .withValue("lake", f.config.getValue("lake"))
            .root()
            .render(ConfigRenderOptions.concise()));
  }

  int run(Object command) {
    return Launcher.execute(command, "--config", conf.toString());
  }

  /** Runs {@code query} on a new session with the lake's catalog, then stops it. */
  <T> T read(Function<SparkSession, T> query) {
    SparkSession spark = AnalystSessions.create("job-catalog-test", f.config);
    try {
      return query.apply(spark);
    } finally {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
  }

  static List<String> strings(SparkSession spark, String sql) {
    return spark.sql(sql).as(Encoders.STRING()).collectAsList().stream().sorted().toList();
  }

  static List<String> catalog(SparkSession spark) {
    List<String> out = new java.util.ArrayList<>();
    for (List<String> db :
        List.of(
            List.of("bronze", "latelake"),
            List.of("gold", "latelake_gold"),
            List.of("monitoring", "latelake_monitoring"))) {
      spark
          .sql("SHOW TABLES IN " + db.get(1))
          .selectExpr("tableName")
          .as(Encoders.STRING())
          .collectAsList()
          .forEach(t -> out.add(db.get(0) + " " + t));
    }
    return out.stream().sorted().toList();
  }

  static List<String> history(SparkSession spark, String table) {
    return spark
        .sql("DESCRIBE HISTORY " + table)
        .selectExpr("concat_ws(' ', version, operation)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  static List<String> entry(SparkSession spark, String table) {
    return spark
        .sql("DESCRIBE TABLE EXTENDED " + table)
        .where("col_name IN ('Location', 'Created Time', 'Comment')")
        .selectExpr("concat_ws(' ', col_name, data_type)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  @Test
  @Order(1)
  void bronzeSilverAndGoldRegisterWhatTheyCreate() {
    f.land(
        LakeFixture.event("a", "2024-05-14T10:01:00Z", "2024-05-14T10:01:01Z", "/home", 1),
        LakeFixture.event("b", "2024-05-14T10:02:00Z", "2024-05-14T10:02:01Z", "/home", 2),
        LakeFixture.event("c", "2024-05-14T10:07:00Z", "2024-05-14T10:07:01Z", "/pricing", 4));

    assertThat(run(new BronzeMain())).isZero();
    assertThat(run(new SilverMain())).isZero();
    assertThat(run(new GoldMain())).isZero();

    read(
        spark -> {
          assertThat(catalog(spark))
              .containsExactly(
                  "bronze bronze_events",
                  "bronze silver_events",
                  "gold page_5m",
                  "gold page_5m_status",
                  "monitoring stream_progress");
          assertThat(
                  strings(
                      spark,
                      "SELECT concat_ws(' ', page, date_format(window_start, "
                          + "'HH:mm'), events, value_sum, status) FROM latelake_gold.page_5m_status"))
              .containsExactly("/home 10:00 2 3 provisional", "/pricing 10:05 1 4 provisional");
          assertThat(strings(spark, "SELECT CAST(count(*) AS STRING) FROM latelake.silver_events"))
              .containsExactly("3");
          // Registering is catalog work only: no Delta commit beyond the job's own.
          assertThat(history(spark, "latelake.bronze_events"))
              .containsExactly("0 CREATE TABLE", "1 WRITE");
          return null;
        });
  }

  @Test
  @Order(2)
  void aSecondRunWritesThroughTheRegisteredTableAndRegistersNothingAgain() {
    List<String> before = read(spark -> entry(spark, "latelake.bronze_events"));
    f.land(LakeFixture.event("d", "2024-05-14T10:08:00Z", "2024-05-14T10:08:01Z", "/home", 8));

    assertThat(run(new BronzeMain())).isZero();

    read(
        spark -> {
          assertThat(
                  strings(
                      spark,
                      "SELECT concat_ws(' ', event_id, page) FROM " + "latelake.bronze_events"))
              .containsExactly("a /home", "b /home", "c /pricing", "d /home");
          assertThat(entry(spark, "latelake.bronze_events")).isEqualTo(before);
          assertThat(catalog(spark))
              .containsExactly(
                  "bronze bronze_events",
                  "bronze silver_events",
                  "gold page_5m",
                  "gold page_5m_status",
                  "monitoring stream_progress");
          assertThat(history(spark, "latelake.bronze_events"))
              .containsExactly("0 CREATE TABLE", "1 WRITE", "2 WRITE");
          return null;
        });
  }
}
