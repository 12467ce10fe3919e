package io.latelake.core.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** The split of a micro-batch's dropped rows per listed source ({@link SourceInputs}). */
class DroppedBySourceTest {
  private static final StructType COUNTS =
      new StructType()
          .add("a", DataTypes.LongType)
          .add("b", DataTypes.LongType)
          .add(SourceDrops.UNLISTED, DataTypes.LongType);

  private static Row counts(long a, long b, long unlisted) {
    return new GenericRowWithSchema(new Object[] {a, b, unlisted}, COUNTS);
  }

  @Test
  void withoutDuplicatesEachSourceLosesWhatDidNotComeOut() {
    assertThat(SourceDrops.droppedBySource(counts(5, 4, 0), counts(5, 1, 0), 3, 0))
        .contains(Map.of("a", 0L, "b", 3L));
    // rows of an unlisted source are a key of their own once there are some
    assertThat(SourceDrops.droppedBySource(counts(5, 4, 2), counts(4, 4, 1), 2, 0))
        .contains(Map.of("a", 1L, "b", 0L, SourceDrops.UNLISTED, 1L));
  }

  @Test
  void withDuplicatesOnlyOneLosingSourceIsSplitExactly() {
    // b lost 3 rows: 2 dropped by the watermark and 1 duplicate
    assertThat(SourceDrops.droppedBySource(counts(5, 4, 0), counts(5, 1, 0), 2, 1))
        .contains(Map.of("a", 0L, "b", 2L));
    // nothing dropped: zeros whatever the duplicates
    assertThat(SourceDrops.droppedBySource(counts(5, 4, 0), counts(4, 3, 0), 0, 2))
        .contains(Map.of("a", 0L, "b", 0L));
    // both lost rows and some were duplicates: which were dropped is not known
    assertThat(SourceDrops.droppedBySource(counts(5, 4, 0), counts(4, 3, 0), 1, 1)).isEmpty();
  }

  @Test
  void countsThatDoNotAddUpToWhatSparkRemovedAreNotSplit() {
    // a task run again counted b's rows twice on the way in: 3 lost, Spark removed 2
    assertThat(SourceDrops.droppedBySource(counts(5, 4, 0), counts(5, 1, 0), 2, 0)).isEmpty();
  }

  @Test
  void aQueryWithoutBothObservationsHasNoSplit() {
    assertThat(SourceDrops.droppedBySource(counts(5, 4, 0), null, 1, 0)).isEmpty();
    assertThat(SourceDrops.droppedBySource(null, null, 0, 0)).isEmpty();
  }
}
