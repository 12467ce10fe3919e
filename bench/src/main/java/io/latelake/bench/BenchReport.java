package io.latelake.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a bench run prints and writes: the table of figures, its JSON, and the scratch folder. */
final class BenchReport {
  private static final Logger LOG = LoggerFactory.getLogger(BenchReport.class);

  private BenchReport() {}

  static String table(List<Figure> figures, SyntheticEvents data, String master, long warmUp) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "%nlatelake bench: %,d events (%d micro-batches), %s, median of the repeats%s%n",
            data.records(),
            data.sliceCount(),
            master,
            warmUp > 0
                ? String.format(Locale.ROOT, ", after an untimed warm-up of %,d events", warmUp)
                : ", no warm-up"));
    int width = Math.max(24, figures.stream().mapToInt(f -> f.name().length()).max().orElse(0));
    String fmt = "%-" + width + "s %10s %10s %8s %8s  %s%n";
    sb.append(
        String.format(
            Locale.ROOT, fmt, "figure", "ours", "reference", "ratio", "target", "result"));
    for (Figure f : figures) {
      String unit = f.unit().equals("s") ? " s" : "";
      sb.append(
          String.format(
              Locale.ROOT,
              fmt,
              f.name(),
              String.format(
                  Locale.ROOT, f.unit().equals("s") ? "%.2f%s" : "%.0f%s", f.ours(), unit),
              String.format(
                  Locale.ROOT, f.unit().equals("s") ? "%.2f%s" : "%.0f%s", f.reference(), unit),
              String.format(Locale.ROOT, "%.2f×", f.ratio()),
              f.targetText(),
              f.resultText()));
    }
    for (Figure f : figures) {
      sb.append(String.format(Locale.ROOT, "  %-" + width + "s %s%n", f.name(), f.note()));
    }
    return sb.toString();
  }

  static String json(
      List<Figure> figures, SyntheticEvents data, String master, String stamp, long warmUp) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "{\"run\":\"%s\",\"events\":%d,\"micro_batches\":%d,\"warm_up_events\":%d,"
                + "\"master\":\"%s\",\"figures\":[%n",
            stamp,
            data.records(),
            data.sliceCount(),
            warmUp,
            master));
    for (int i = 0; i < figures.size(); i++) {
      sb.append("  ").append(figures.get(i).json()).append(i + 1 < figures.size() ? ",\n" : "\n");
    }
    return sb.append("]}\n").toString();
  }

  static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  static void delete(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.warn("Cannot remove the bench's scratch folder {}: {}", dir, e.getMessage());
    }
  }
}
