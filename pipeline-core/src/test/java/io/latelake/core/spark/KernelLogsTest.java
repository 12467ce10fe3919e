package io.latelake.core.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.Test;

/**
 * Kernel's loggers after {@link KernelLogs#quiet} (the test logging configuration names neither).
 */
class KernelLogsTest {
  @Test
  void kernelLogsWarningsAndItsSnapshotManagerOnlyErrors() {
    KernelLogs.quiet();
    KernelLogs.quiet();
    assertThat(
            java.util.stream.Stream.of(
                    "io.delta.kernel.internal.snapshot.SnapshotManager",
                    "io.delta.kernel.internal.SnapshotImpl",
                    "io.delta.kernel.defaults.engine.DefaultEngine",
                    "io.latelake.core.spark.KernelLogs")
                .map(n -> n + " " + LogManager.getLogger(n).getLevel())
                .toList())
        .containsExactly(
            "io.delta.kernel.internal.snapshot.SnapshotManager " + Level.ERROR,
            "io.delta.kernel.internal.SnapshotImpl " + Level.WARN,
            "io.delta.kernel.defaults.engine.DefaultEngine " + Level.WARN,
            "io.latelake.core.spark.KernelLogs " + Level.INFO);
  }
}
