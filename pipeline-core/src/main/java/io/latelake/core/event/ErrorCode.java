package io.latelake.core.event;

/**
 * Why a bronze row is not a valid event. Stored as text in bronze {@code error}; {@code null} there
 * means valid.
 */
public enum ErrorCode {
  /**
   * The record is not exactly one JSON object: bad JSON, an array or a scalar, an empty line, bytes
   * that are not UTF-8, a second value after the object ({@code {..}{..}}), or a key that occurs
   * twice in one object.
   */
  MALFORMED,
  /** The event id field is absent, null or blank. */
  MISSING_EVENT_ID,
  /**
   * The event id is not of the configured {@code lake.event.id-type}: a number, boolean, object or
   * array where a string is expected, or anything but a whole number where a long is.
   */
  INVALID_EVENT_ID,
  /** The event time field is absent, null or empty. */
  MISSING_EVENT_TIME,
  /** The event time is present but cannot be read in the configured format. */
  INVALID_EVENT_TIME,
  /**
   * The event time is earlier than {@code lake.event.min-event-time} (year 0001, negative epochs,
   * clocks that were never set): implausible, and it would sit behind any watermark.
   */
  EVENT_TIME_BEFORE_MIN,
  /** A configured field is present but cannot be read as its type. */
  INVALID_FIELD,
  /** The enqueued time field (files source, payload-field mode) is missing or unreadable. */
  INVALID_ENQUEUED_TIME,
  /** The event time is later than the enqueued time by more than the skew tolerance. */
  FUTURE_EVENT_TIME
}
