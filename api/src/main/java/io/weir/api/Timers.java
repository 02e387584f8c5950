package io.weir.api;

/**
 * A processor's timers for the key being handled. A timer fires once, to
 * {@link Processor#onTimer}, with that key: an event-time timer when the watermark reaches its
 * time, a processing-time timer when the clock does (checked every few milliseconds). Timers are
 * state: they are checkpointed with the task and fire after a restore. A key has at most one timer
 * per domain and time, so registering the same time again changes nothing.
 */
public interface Timers {
    /** Fires when event time (the watermark) reaches {@code timestamp}. */
    void registerEventTime(long timestamp);

    /** Fires when the processing-time clock reaches {@code timestamp}. */
    void registerProcessingTime(long timestamp);

    /** Removes the current key's event-time timer at {@code timestamp}, if any. */
    void deleteEventTime(long timestamp);

    /** Removes the current key's processing-time timer at {@code timestamp}, if any. */
    void deleteProcessingTime(long timestamp);
}
