package io.weir.dataflow;

/**
 * How the tasks of a stage learn event time.
 *
 * <p>A stage that reads a source computes it: each input partition's watermark is the highest
 * timestamp read from it minus {@code maxOutOfOrdernessMs}; a partition that delivered nothing for
 * {@code idleAfterMs} of processing time (0: never) stops holding the task back until it delivers
 * again. A stage that reads a repartition topic ({@code fromUpstream}) takes it from the watermark
 * markers the upstream tasks write into every partition of that topic. A stage whose records go on
 * to a stage that needs event time writes such markers into {@code markerTopic} (null: none).
 *
 * @param timestamps the record's event time from its content, or null for the Kafka timestamp
 */
public record Watermarks(
        TimestampAssigner timestamps,
        long maxOutOfOrdernessMs,
        long idleAfterMs,
        boolean fromUpstream,
        String markerTopic) {
    /** Stream time: the Kafka timestamps, no disorder allowed for, never idle, no markers. */
    public static final Watermarks STREAM_TIME = new Watermarks(null, 0, 0, false, null);

    public Watermarks {
        if (maxOutOfOrdernessMs < 0 || idleAfterMs < 0) {
            throw new IllegalArgumentException("max-out-of-orderness and idle-after must not be negative");
        }
    }
}
