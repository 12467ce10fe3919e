package io.latelake.correction.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.ExitCode;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The audit's one log line per metric and its exit code, for each way a range can turn out. */
class AuditSummaryTest {
  private static final Instant WM = Instant.parse("2024-05-14T10:20:00Z");

  private static AuditJob.Result result(AuditJob.MetricResult... metrics) {
    return new AuditJob.Result("audit-1", List.of(metrics));
  }

  @Test
  void comparedWindowsAreCountedWithTheirDifferences() {
    AuditJob.Result r = result(new AuditJob.MetricResult("page_5m", WM, 4, 1, 1));
    assertThat(r.summary())
        .isEqualTo(
            "page_5m: 1 of 4 published closed windows differ from the recompute (1 beyond"
                + " tolerance), watermark 2024-05-14T10:20:00Z");
    assertThat(r.exitCode()).isEqualTo(ExitCode.AUDIT_DIFFERENCES);
  }

  @Test
  void aRangeWithoutWindowsOnEitherSideSaysNothingWasCompared() {
    AuditJob.Result r = result(new AuditJob.MetricResult("page_5m", WM, 0, 0, 0));
    assertThat(r.summary())
        .isEqualTo(
            "page_5m: no published closed window in this range, nothing compared, watermark"
                + " 2024-05-14T10:20:00Z");
    assertThat(r.exitCode()).isEqualTo(ExitCode.OK);
  }

  @Test
  void windowsGoldLostAreDifferencesNotNothingCompared() {
    AuditJob.Result r = result(new AuditJob.MetricResult("page_5m", WM, 0, 3, 3));
    assertThat(r.summary())
        .isEqualTo(
            "page_5m: no published closed window in this range, but the recompute from bronze has"
                + " 3 (3 beyond tolerance), watermark 2024-05-14T10:20:00Z");
    assertThat(r.exitCode()).isEqualTo(ExitCode.AUDIT_DIFFERENCES);
  }

  @Test
  void aMetricWithoutAWatermarkSaysNoneYet() {
    AuditJob.Result r =
        result(
            new AuditJob.MetricResult("page_5m", null, 0, 0, 0),
            new AuditJob.MetricResult("page_1h", WM, 2, 0, 0));
    assertThat(r.summary())
        .isEqualTo(
            "page_5m: 0 of 0 published closed windows differ from the recompute (0 beyond"
                + " tolerance), watermark none yet; page_1h: 0 of 2 published closed windows differ"
                + " from the recompute (0 beyond tolerance), watermark 2024-05-14T10:20:00Z");
    assertThat(r.exitCode()).isEqualTo(ExitCode.OK);
  }
}
