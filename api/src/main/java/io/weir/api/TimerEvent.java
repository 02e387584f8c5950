package io.weir.api;

/** A timer that fired: its time, its domain and the key it was registered for. */
public interface TimerEvent {
    /** Which clock a timer follows. */
    enum Domain {
        /** The watermark: the time of the records. */
        EVENT_TIME,
        /** The runtime's clock. */
        PROCESSING_TIME
    }

    /** The time the timer was registered for, in milliseconds since the epoch. */
    long timestamp();

    /** Whether it followed event time or processing time. */
    Domain domain();

    /** The key the timer was registered for, decoded as {@link Record#key()} is; null for no key. */
    Object key();
}
