package io.latelake.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.latelake.bronze.BronzeConfig;
import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Secrets;
import io.latelake.core.config.SparkConfOptions;
import io.latelake.core.event.EventSchema;
import io.latelake.core.metric.Metrics;
import io.latelake.core.metrics.Pushgateway;
import io.latelake.core.metrics.StreamMetrics;
import io.latelake.core.metrics.StreamMetricsPlan;
import io.latelake.core.spark.SparkSessions;
import io.latelake.core.streaming.SourceInputs;
import io.latelake.core.streaming.SourceWatermarks;
import io.latelake.core.table.TableRegistry;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.gold.GoldConfig;
import io.latelake.profiler.ProfilerConfig;
import io.latelake.silver.SilverConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Every key the shipped {@code conf/application.conf} declares (its name, default and doc: the one
 * place a key is declared, see {@code docs/configuration-reference.md}) has its typed check in the
 * jobs' config readers: a value of the wrong kind, given as a user gives it ({@code --set}), is
 * refused with {@link LakeConfigException} (exit 2) naming that key. A key no reader checks, or one
 * whose wrong value escapes as a raw Typesafe exception, fails this test; so does a key of the
 * reference page that the shipped file does not declare. No Spark session is made.
 */
class ConfigKeysTest {
  /** An event field for the metric to group by. */
  private static final String FIELD = "lake.event.fields=[{ name = page, type = string }]";

  /** One gold metric: the shipped config declares none, and the gold readers need one. */
  private static final String METRIC =
      "lake.gold.metrics.page_5m={ window = 5 minutes, group-by = [page],"
          + " measures = [{ name = views, function = count }] }";

  /**
   * Settings under which the keys read only in one mode are read: the Kafka source, listed sources
   * with idle timeouts, the auto watermark delays, the pushed metrics; the enqueued time from a
   * payload field. A key is checked in the first of these under which its wrong value is refused.
   */
  static final List<List<String>> MODES =
      List.of(
          List.of(FIELD, METRIC),
          List.of(
              FIELD,
              METRIC,
              "lake.bronze.source=kafka",
              "lake.sources=[a, b]",
              "lake.sources-idle-after=5 minutes",
              "lake.sources-idle-after-per-source={ b = 10 minutes }",
              "lake.silver.watermark-delay=auto",
              "lake.gold.watermark-delay=auto",
              "lake.metrics.streams=true",
              "lake.metrics.pushgateway=\"http://127.0.0.1:9091\""),
          List.of(FIELD, METRIC, "lake.bronze.files.enqueued-time=payload-field"));

  /** Every config reader of the jobs, as each job calls it before it starts Spark. */
  static void readAll(Config c) {
    TableRegistry.fromConfig(c);
    SparkSessions.shufflePartitions(c);
    SparkConfOptions.fromConfig(c);
    Secrets.fromConfig(c);
    EventSchema.fromConfig(c);
    Metrics.fromConfig(c);
    SourceInputs.fromConfig(c);
    SourceWatermarks.fromConfig(c);
    BronzeConfig.fromConfig(c);
    SilverConfig.fromConfig(c);
    GoldConfig.fromConfig(c);
    CorrectionConfig.fromConfig(c);
    ProfilerConfig.fromConfig(c);
    CatalogConfig.fromConfig(c);
    StreamMetrics.enabled(c);
    StreamMetricsPlan.fromConfig(c);
    Pushgateway.fromConfig(c);
  }

  @Test
  void everyModeIsValidAsShipped() {
    for (List<String> mode : MODES) {
      readAll(ConfigLoader.load(Optional.empty(), mode));
    }
  }

  @Test
  void everyDeclaredKeyRefusesAValueOfTheWrongKindNamingTheKey() throws IOException {
    Map<String, ConfigValue> declared = new TreeMap<>();
    for (var e : ConfigLoader.defaults().resolve().getConfig("lake").entrySet()) {
      declared.put("lake." + e.getKey(), e.getValue());
    }
    Config shipped = ConfigLoader.defaults().resolve();
    for (String objectKey : objectKeys(shipped)) {
      declared.keySet().removeIf(k -> k.startsWith(objectKey + "."));
      declared.put(objectKey, shipped.getValue(objectKey));
    }
    List<String> unchecked = new ArrayList<>();
    int checked = 0;
    for (var e : declared.entrySet()) {
      String key = e.getKey();
      String bad = wrongKind(e.getValue().valueType());
      boolean refused = false;
      List<String> seen = new ArrayList<>();
      for (List<String> mode : MODES) {
        List<String> sets = new ArrayList<>(mode);
        sets.removeIf(s -> s.startsWith(key + "=") || s.startsWith(key + "."));
        sets.add(key + "=" + bad);
        try {
          readAll(ConfigLoader.load(Optional.empty(), sets));
          seen.add("accepted");
        } catch (LakeConfigException ex) {
          if ((ex.getMessage().contains("'" + key + "'")
              || ex.getMessage().contains("'" + key + "."))) {
            refused = true;
            break;
          }
          seen.add("refused naming another key: " + ex.getMessage());
        } catch (RuntimeException ex) {
          seen.add("escaped as " + ex);
        }
      }
      if (refused) {
        checked++;
      } else {
        unchecked.add(key + " = " + bad + ": " + seen);
      }
    }
    assertEquals(List.of(), unchecked);
    assertEquals(declared.size(), checked);
    assertEquals(referenceKeys(), List.copyOf(declared.keySet()));
  }

  /**
   * @return the keys of the generated reference page, in its order (sorted)
   */
  private static List<String> referenceKeys() throws IOException {
    Path repo = Path.of(System.getProperty("latelake.repo", "..")).toAbsolutePath().normalize();
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(repo.resolve("docs/configuration-reference.md"))) {
      if (line.startsWith("| `lake.")) {
        out.add(line.substring(3, line.indexOf('`', 3)));
      }
    }
    return out;
  }

  /**
   * @return the keys whose value is an object of free names (options, metrics by name, per-source
   *     timeouts): checked as one key
   */
  private static List<String> objectKeys(Config shipped) {
    List<String> out = new ArrayList<>();
    for (String k :
        List.of(
            "lake.spark.conf",
            "lake.bronze.kafka.properties",
            "lake.gold.metrics",
            "lake.sources-idle-after-per-source")) {
      if (shipped.hasPath(k)) {
        out.add(k);
      }
    }
    return out;
  }

  /** A {@code --set} value of another kind than the shipped default's. */
  private static String wrongKind(ConfigValueType shipped) {
    return switch (shipped) {
      case OBJECT -> "5";
      case LIST -> "{ bad = 1 }";
      case NUMBER -> "\"many\"";
      case BOOLEAN -> "\"maybe\"";
      case STRING, NULL -> "{ bad = 1 }";
    };
  }
}
