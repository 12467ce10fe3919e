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

  /**
   * A creation that finds the other creator's files there before its first commit waits for that
   * commit instead of failing (the race behind a CI failure of two first starts at once).
   */
  @Test
  void aCreationThatFindsAnotherCreatorsFilesWaitsForItsCommit() throws Exception {
    Path other = tmp.resolve("other");
    Files.createDirectories(other.resolve("_delta_log"));
    Files.writeString(other.resolve("part-00000-being-written.parquet"), "");
    var schema = new org.apache.spark.sql.types.StructType().add("id", "long");
    var creating =
        java.util.concurrent.CompletableFuture.runAsync(
            () ->
                DeltaTables.createIfNotExists(
                    spark, other.toString(), schema, List.of(), java.util.Map.of()));
    Thread.sleep(1_000);
    assertThat(creating).isNotDone();
    // The other creator's commit lands (its stray file gone, its table written).
    Files.delete(other.resolve("part-00000-being-written.parquet"));
    spark.range(2).write().format("delta").mode("append").save(other.toString());
    creating.get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(spark.read().format("delta").load(other.toString()).count()).isEqualTo(2);
  }

  @Test
  void aFolderThatNeverBecomesATableIsAnErrorNamingIt() throws IOException {
    Path plain = tmp.resolve("plain-files");
    Files.createDirectories(plain);
    Files.writeString(plain.resolve("notes.txt"), "not a table");
    var schema = new org.apache.spark.sql.types.StructType().add("id", "long");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                DeltaTables.createIfNotExists(
                    spark, plain.toString(), schema, List.of(), List.of(), java.util.Map.of(), 2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot create Delta table " + plain + ": [DELTA_");
    assertThat(Files.readString(plain.resolve("notes.txt"))).isEqualTo("not a table");
  }
}
