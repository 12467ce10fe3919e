package io.latelake.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;

/**
 * Synthetic events with the phone data's schema ({@code conf/ooo-umts.conf}: {@code event_id},
 * {@code event_time}, {@code arrival_time}, {@code device_id}, {@code session}, {@code seq}, {@code
 * http_content_length}) as JSON lines. Event times advance at {@link #RATE_PER_S} events per second
 * of event time from {@link #START}; each event's lateness (arrival − event time) is drawn, seeded,
 * from the real lateness values of {@code data/ooo-iot-umts} ({@code lateness_ms}); about 1% of the
 * records are second copies of an earlier event (same id and event time, arriving later again by a
 * resampled lateness). Records are cut, in arrival order, into slices of equal size: one landing
 * file, one micro-batch each.
 */
public final class SyntheticEvents {
  /** Event time of the first event (UTC). */
  public static final Instant START = Instant.parse("2024-05-14T01:00:00Z");

  /** Events per second of event time. */
  public static final int RATE_PER_S = 200;

  /** Devices (the group-by column of the phone metric). */
  public static final int DEVICES = 50;

  /** Share of records that are duplicates of an earlier event. */
  public static final double DUPLICATE_SHARE = 0.01;

  /** One record. Times UTC. */
  public record Event(
      String id,
      Instant eventTime,
      Instant arrival,
      String device,
      String session,
      long seq,
      long contentLength) {
    String json() {
      return "{\"event_id\":\""
          + id
          + "\",\"event_time\":\""
          + eventTime
          + "\",\"arrival_time\":\""
          + arrival
          + "\",\"device_id\":\""
          + device
          + "\",\"session\":\""
          + session
          + "\",\"seq\":"
          + seq
          + ",\"http_content_length\":"
          + contentLength
          + "}";
    }
  }

  private final List<List<Event>> slices;
  private final List<Event> lateBatch;
  private final Duration eventTimeSpan;
  private final long records;

  private SyntheticEvents(
      List<List<Event>> slices, List<Event> lateBatch, Duration span, long records) {
    this.slices = slices;
    this.lateBatch = lateBatch;
    this.eventTimeSpan = span;
    this.records = records;
  }

  /**
   * @param events records to generate (duplicates included)
   * @param slices micro-batches (landing files) to cut them into, in arrival order
   * @param seed random seed
   * @param latenessMs real lateness values to resample, milliseconds (non-empty)
   * @param window the metric's window: the late batch targets about 2% of the windows
   */
  public static SyntheticEvents generate(
      long events, int slices, long seed, long[] latenessMs, Duration window) {
    if (events < 100 || slices < 1 || latenessMs.length == 0) {
      throw new IllegalArgumentException(
          "Invalid synthetic data request: events="
              + events
              + " (at least 100), slices="
              + slices
              + ", lateness values="
              + latenessMs.length);
    }
    Random rnd = new Random(seed);
    long duplicates = Math.round(events * DUPLICATE_SHARE);
    long unique = events - duplicates;
    List<Event> all = new ArrayList<>((int) events);
    long stepMicros = 1_000_000L / RATE_PER_S;
    for (long i = 0; i < unique; i++) {
      Instant t = START.plusNanos((i * stepMicros + rnd.nextInt((int) stepMicros)) * 1000L);
      int d = rnd.nextInt(DEVICES);
      all.add(
          new Event(
              "e-" + i,
              t,
              t.plusMillis(latenessMs[rnd.nextInt(latenessMs.length)]),
              "dev_" + d,
              "s-" + (i / 10_000),
              i,
              200 + rnd.nextInt(2000)));
    }
    for (long i = 0; i < duplicates; i++) {
      Event o = all.get(rnd.nextInt((int) unique));
      all.add(
          new Event(
              o.id(),
              o.eventTime(),
              o.arrival().plusMillis(latenessMs[rnd.nextInt(latenessMs.length)]),
              o.device(),
              o.session(),
              o.seq(),
              o.contentLength()));
    }
    all.sort(Comparator.comparing(Event::arrival).thenComparing(Event::id));
    List<List<Event>> cut = new ArrayList<>();
    int per = (int) Math.ceil(all.size() / (double) slices);
    for (int from = 0; from < all.size(); from += per) {
      cut.add(List.copyOf(all.subList(from, Math.min(all.size(), from + per))));
    }
    Duration span = Duration.ofNanos(unique * stepMicros * 1000L);
    // The late batch: 1% of the events, dated in about 2% of the windows (spread over the
    // first nine tenths of the span, so that they are all closed), arriving a minute after
    // the last record.
    long windows = Math.max(1, span.toMillis() / window.toMillis());
    long touched = Math.max(1, Math.round(windows * 0.02));
    Instant lateArrival = all.get(all.size() - 1).arrival().plusSeconds(60);
    List<Event> late = new ArrayList<>();
    long lateCount = Math.max(1, Math.round(events * 0.01));
    for (long i = 0; i < lateCount; i++) {
      long w = (i % touched) * Math.max(1, (windows * 9 / 10) / touched);
      Instant t = START.plusMillis(w * window.toMillis() + rnd.nextInt((int) window.toMillis()));
      late.add(
          new Event(
              "late-" + i,
              t,
              lateArrival,
              "dev_" + rnd.nextInt(DEVICES),
              "late",
              i,
              200 + rnd.nextInt(2000)));
    }
    return new SyntheticEvents(cut, late, span, events);
  }

  /**
   * Reads the {@code lateness_ms} column of the bundled phone data.
   *
   * @param csvGz {@code data/ooo-iot-umts/ooo_umts_events.csv.gz}
   * @return lateness values, milliseconds
   * @throws UncheckedIOException when the file cannot be read
   * @throws IllegalArgumentException when it has no {@code lateness_ms} column or no rows
   */
  public static long[] readLatenessMs(Path csvGz) {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(csvGz)), StandardCharsets.UTF_8))) {
      String[] header = r.readLine().split(",");
      int col = List.of(header).indexOf("lateness_ms");
      if (col < 0) {
        throw new IllegalArgumentException(
            "Cannot read lateness values: " + csvGz + " has no lateness_ms column");
      }
      List<Long> out = new ArrayList<>();
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        String[] f = line.split(",", -1);
        if (f.length > col && !f[col].isEmpty()) {
          out.add(Long.parseLong(f[col]));
        }
      }
      if (out.isEmpty()) {
        throw new IllegalArgumentException(
            "Cannot read lateness values: " + csvGz + " has no rows");
      }
      return out.stream().mapToLong(Long::longValue).toArray();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read lateness values from " + csvGz, e);
    }
  }

  /** Writes slice {@code i} (0-based) into {@code landing} as one JSON-lines file. */
  public void writeSlice(int i, Path landing) {
    write(slices.get(i), landing.resolve(String.format("slice-%05d.json", i + 1)));
  }

  /** Writes the late batch into {@code landing} as one JSON-lines file. */
  public void writeLateBatch(Path landing) {
    write(lateBatch, landing.resolve("late-batch.json"));
  }

  static void write(List<Event> events, Path file) {
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling("_" + file.getFileName() + ".tmp");
      try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        for (Event e : events) {
          w.write(e.json());
          w.write('\n');
        }
      }
      Files.move(tmp, file);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write landing file " + file, e);
    }
  }

  public int sliceCount() {
    return slices.size();
  }

  /**
   * @return records in the main data (duplicates included, late batch excluded)
   */
  public long records() {
    return records;
  }

  public List<Event> lateBatch() {
    return lateBatch;
  }

  /**
   * @return event time covered by the main data
   */
  public Duration eventTimeSpan() {
    return eventTimeSpan;
  }

  /**
   * @return arrival time of the last record of slice {@code i} (0-based)
   */
  public Instant sliceEnd(int i) {
    List<Event> s = slices.get(i);
    return s.get(s.size() - 1).arrival();
  }
}
