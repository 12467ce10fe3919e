package io.latelake.core.event;

/**
 * Why a bronze row is not a valid event. Stored as text in bronze {@code error}; {@code null}
 * there means valid.
 */
public enum ErrorCode {
  /** The record is not a JSON object (bad JSON, an array, a scalar, an empty line). */
  MALFORMED,
  /** The event id field is absent, null or empty. */
  MISSING_EVENT_ID,
  /** The event time field is absent, null or empty. */
  MISSING_EVENT_TIME,
  /** The event time is present but cannot be read in the configured format. */
  INVALID_EVENT_TIME,
  /** A configured field is present but cannot be read as its type. */
  INVALID_FIELD,
  /** The enqueued time field (files source, payload-field mode) is missing or unreadable. */
  INVALID_ENQUEUED_TIME,
  /** The event time is later than the enqueued time by more than the skew tolerance. */
  FUTURE_EVENT_TIME
}
