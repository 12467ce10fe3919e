package io.latelake.core.metric;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MetricDefinitionTest {
  static MetricSpec spec(Duration window, List<String> groupBy, Measure... measures) {
    return new MetricSpec("page_views_5m", window, groupBy, List.of(measures), LatePolicy.RESTATE);
  }

  static final Measure VIEWS = new Measure("views", Measure.Function.COUNT, Optional.empty());
  static final Measure TOTAL =
      new Measure("total", Measure.Function.SUM, Optional.of("duration_s"));
  static final Measure PEAK = new Measure("peak", Measure.Function.MAX, Optional.of("duration_s"));

  @Test
  void theCanonicalFormNamesWindowGroupByAndMeasuresInOrderAndParsesBack() {
    MetricDefinition d =
        MetricDefinition.of(spec(Duration.ofMinutes(5), List.of("page", "source"), VIEWS, TOTAL));
    assertThat(d.canonical())
        .isEqualTo(
            "window=PT5M; group-by=[page, source]; "
                + "measures=[views=count, total=sum(duration_s)]");
    assertThat(MetricDefinition.parse(d.canonical())).contains(d);
    MetricDefinition none = MetricDefinition.of(spec(Duration.ofDays(1), List.of(), VIEWS));
    assertThat(none.canonical()).isEqualTo("window=PT24H; group-by=[]; measures=[views=count]");
    assertThat(MetricDefinition.parse(none.canonical())).contains(none);
    assertThat(MetricDefinition.parse("window=5 minutes")).isEmpty();
    assertThat(MetricDefinition.parse(null)).isEmpty();
  }

  @Test
  void eachChangeIsNamed() {
    MetricDefinition built =
        MetricDefinition.of(spec(Duration.ofMinutes(5), List.of("page"), VIEWS, TOTAL));
    assertThat(built.changesFrom(built)).isEmpty();
    assertThat(
            MetricDefinition.of(spec(Duration.ofMinutes(5), List.of("page"), VIEWS, TOTAL, PEAK))
                .changesFrom(built))
        .containsExactly("measure added: peak=max(duration_s)");
    assertThat(
            MetricDefinition.of(spec(Duration.ofMinutes(10), List.of("page", "source"), VIEWS))
                .changesFrom(built))
        .containsExactly(
            "window PT5M -> PT10M",
            "group-by [page] -> [page, source]",
            "measure removed: total=sum(duration_s)");
    assertThat(
            MetricDefinition.of(
                    spec(
                        Duration.ofMinutes(5),
                        List.of("page"),
                        VIEWS,
                        new Measure("total", Measure.Function.MIN, Optional.of("duration_s"))))
                .changesFrom(built))
        .containsExactly("measure changed: total=sum(duration_s) -> " + "total=min(duration_s)");
    assertThat(
            MetricDefinition.of(spec(Duration.ofMinutes(5), List.of("page"), TOTAL, VIEWS))
                .changesFrom(built))
        .containsExactly("measures reordered: [views, total] -> " + "[total, views]");
  }

  @Test
  void comparableMeasuresNeedTheSameWindowGroupByFunctionAndColumn() {
    MetricDefinition built =
        MetricDefinition.of(spec(Duration.ofMinutes(5), List.of("page"), VIEWS, TOTAL));
    assertThat(
            MetricDefinition.of(spec(Duration.ofMinutes(5), List.of("page"), VIEWS, TOTAL, PEAK))
                .comparableMeasures(built))
        .containsExactly("views", "total");
    assertThat(
            MetricDefinition.of(
                    spec(
                        Duration.ofMinutes(5),
                        List.of("page"),
                        VIEWS,
                        new Measure("total", Measure.Function.MAX, Optional.of("duration_s"))))
                .comparableMeasures(built))
        .containsExactly("views");
    assertThat(
            MetricDefinition.of(spec(Duration.ofMinutes(10), List.of("page"), VIEWS, TOTAL))
                .comparableMeasures(built))
        .isEmpty();
  }
}
