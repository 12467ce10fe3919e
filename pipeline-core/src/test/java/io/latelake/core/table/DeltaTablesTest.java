package io.latelake.core.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.latelake.core.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaTablesTest extends SparkTestBase {
  @TempDir Path tmp;

  @Test
  void aTableAnotherProcessCreatedAfterAFirstLookIsSeen() throws IOException {
    Path made = tmp.resolve("made");
    spark.range(3).write().format("delta").save(made.toString());
    // Another process has created the log folder of its table, not yet its first commit.
    Path late = tmp.resolve("late");
    Files.createDirectories(late.resolve("_delta_log"));
    assertThat(DeltaTables.exists(spark, late.toString())).isFalse();
    // Its first commit lands: the files it writes appear (copied here from a table made alike).
    List<Path> files;
    try (Stream<Path> walk = Files.walk(made)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    for (Path f : files) {
      Path to = late.resolve(made.relativize(f));
      Files.createDirectories(to.getParent());
      Files.copy(f, to);
    }
    // Delta's own check still answers from the log it cached at the first look.
    assertThat(DeltaTable.isDeltaTable(spark, late.toString())).isFalse();
    assertThat(DeltaTables.exists(spark, late.toString())).isTrue();
    assertThat(DeltaTable.isDeltaTable(spark, late.toString())).isTrue();
    assertThat(DeltaTables.exists(spark, tmp.resolve("nothing").toString())).isFalse();
    Files.createDirectories(tmp.resolve("plain"));
    assertThat(DeltaTables.exists(spark, tmp.resolve("plain").toString())).isFalse();
  }
}
