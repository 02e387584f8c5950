package io.weir.state;

/**
 * Timers of the current key, in event time (fired when the watermark passes them) or processing
 * time (fired when the clock passes them). Timers are state: snapshotted and restored with it, and
 * one key has at most one timer per domain and timestamp.
 */
public interface Timers {
    void registerEventTime(long timestamp);

    void deleteEventTime(long timestamp);

    void registerProcessingTime(long timestamp);

    void deleteProcessingTime(long timestamp);
}
