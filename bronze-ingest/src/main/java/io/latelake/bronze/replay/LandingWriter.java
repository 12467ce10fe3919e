package io.latelake.bronze.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Writes slices as JSON-lines landing files, atomically: each file is written under a name that
 * starts with {@code _} (ignored by the file source) and then renamed to {@code
 * slice-NNNNNN.jsonl}, so the bronze stream never sees half a file.
 */
public final class LandingWriter {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path folder;

  public LandingWriter(Path folder) {
    this.folder = folder;
  }

  /**
   * @param index slice number (names the file)
   * @param slice events; each becomes one JSON object with string values
   * @return the landing file
   */
  public Path write(int index, List<CapturedEvents.Event> slice) {
    try {
      Files.createDirectories(folder);
      String name = String.format("slice-%06d.jsonl", index);
      Path tmp = folder.resolve("_" + name + ".tmp");
      try (BufferedWriter w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        for (CapturedEvents.Event e : slice) {
          w.write(JSON.writeValueAsString(e.fields()));
          w.write('\n');
        }
      }
      Path target = folder.resolve(name);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write landing file in " + folder, e);
    }
  }

  /** Writes raw lines as one landing file (for tests and bad-input replays). */
  public Path writeLines(String name, List<String> lines) {
    try {
      Files.createDirectories(folder);
      Path tmp = folder.resolve("_" + name + ".tmp");
      Files.write(tmp, lines, StandardCharsets.UTF_8);
      Path target = folder.resolve(name);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write landing file in " + folder, e);
    }
  }
}
