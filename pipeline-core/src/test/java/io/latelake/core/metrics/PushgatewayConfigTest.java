package io.latelake.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code lake.metrics}: off by default, a bad URL refused before Spark starts, the text format. */
class PushgatewayConfigTest {
  @Test
  void offByDefaultAndABadUrlIsRefused() {
    assertThat(Pushgateway.fromConfig(ConfigLoader.load(Optional.empty(), List.of()))).isEmpty();
    assertThat(
            Pushgateway.fromConfig(
                ConfigLoader.load(
                    Optional.empty(),
                    List.of("lake.metrics.pushgateway=\"http://127.0.0.1:9091/\""))))
        .isPresent();
    assertThatThrownBy(
            () ->
                Pushgateway.fromConfig(
                    ConfigLoader.load(
                        Optional.empty(), List.of("lake.metrics.pushgateway=\"127.0.0.1:9091\""))))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '127.0.0.1:9091' for key 'lake.metrics.pushgateway': expected a URL "
                + "such as http://127.0.0.1:9091");
  }

  @Test
  void figuresAreWrittenInPrometheusTextFormat() {
    RunFigures f =
        new RunFigures()
            .gauge("latelake_rows_restated", "Rows restated.", 7, "metric", "page_5m")
            .gauge("latelake_rows_restated", "Rows restated.", 0, "metric", "a\"b")
            .gauge("latelake_profile_alerts", "Alerts.", 2);
    assertThat(Pushgateway.text(f))
        .isEqualTo(
            "# HELP latelake_profile_alerts Alerts.\n"
                + "# TYPE latelake_profile_alerts gauge\n"
                + "latelake_profile_alerts 2.0\n"
                + "# HELP latelake_rows_restated Rows restated.\n"
                + "# TYPE latelake_rows_restated gauge\n"
                + "latelake_rows_restated{metric=\"a\\\"b\"} 0.0\n"
                + "latelake_rows_restated{metric=\"page_5m\"} 7.0\n");
  }
}
