package io.latelake.bronze.replay;

import io.latelake.core.config.LakeConfigException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * A captured dataset: CSV with a header row (optionally gzip-compressed), one event a row, with a
 * column holding each event's arrival (enqueued) time as ISO-8601 UTC.
 */
public final class CapturedEvents {
  /**
   * One captured event.
   *
   * @param arrival its arrival time (UTC)
   * @param fields the row's columns, in file order; empty cells are left out
   */
  public record Event(Instant arrival, Map<String, String> fields) {}

  private CapturedEvents() {}

  /**
   * Reads a captured dataset and sorts it by arrival time (stable: file order breaks ties).
   *
   * @param file a {@code .csv} or {@code .csv.gz} file
   * @param arrivalField the column with the arrival time
   * @return the events in arrival order
   * @throws LakeConfigException when the file is missing, has no such column, or a row's arrival
   *     time is not ISO-8601 (the message names the line)
   */
  public static List<Event> read(Path file, String arrivalField) {
    if (!Files.isRegularFile(file)) {
      throw new LakeConfigException("Cannot replay '" + file + "': no such file (--dataset)");
    }
    List<Event> events = new ArrayList<>();
    try (InputStream raw = Files.newInputStream(file);
        InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        CSVParser csv =
            CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(reader)) {
      if (!csv.getHeaderNames().contains(arrivalField)) {
        throw new LakeConfigException(
            "Cannot replay '"
                + file
                + "': no column '"
                + arrivalField
                + "' (--arrival-field); columns are "
                + csv.getHeaderNames());
      }
      for (CSVRecord r : csv) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String h : csv.getHeaderNames()) {
          String v = r.isSet(h) ? r.get(h) : "";
          if (!v.isEmpty()) {
            fields.put(h, v);
          }
        }
        String a = r.get(arrivalField);
        try {
          events.add(new Event(Instant.parse(a), fields));
        } catch (DateTimeParseException e) {
          throw new LakeConfigException(
              "Cannot replay '"
                  + file
                  + "': line "
                  + r.getRecordNumber()
                  + " has arrival time '"
                  + a
                  + "' in column '"
                  + arrivalField
                  + "', expected ISO-8601 UTC such as 2014-11-10T12:53:41.690Z");
        }
      }
    } catch (IOException e) {
      throw new LakeConfigException("Cannot read '" + file + "': " + e.getMessage(), e);
    }
    events.sort(Comparator.comparing(Event::arrival));
    return events;
  }
}
