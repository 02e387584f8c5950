package io.weir.state;

/**
 * Timers of the current key, in event time (fired when the watermark passes them) or processing
 * time (fired when the clock passes them). Timers are state: snapshotted and restored with it, and
 * one key has at most one timer per domain and timestamp. A processing-time timer fires on the
 * first check of the clock after its time; the task checks every 10 ms while it runs.
 */
public interface Timers {
    void registerEventTime(long timestamp);

    void deleteEventTime(long timestamp);

    void registerProcessingTime(long timestamp);

    void deleteProcessingTime(long timestamp);
}
