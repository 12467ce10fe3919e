package io.latelake.core.streaming;

/**
 * What one run of a streaming query did, summed over its micro-batches (no-data batches included).
 *
 * @param queryName the query's name
 * @param batches micro-batches run
 * @param inputRows rows read
 * @param droppedByWatermark rows dropped by the watermark in stateful operators
 * @param watermark the last reported watermark, ISO-8601 UTC, or empty text when none
 */
public record StreamSummary(
    String queryName, long batches, long inputRows, long droppedByWatermark, String watermark) {}
