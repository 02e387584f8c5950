package io.weir.app;

import java.util.function.LongSupplier;

/** How long each part of {@link Instance#start()} took, for its log line. */
final class StartTimes {
    private final LongSupplier clock;
    private final java.util.StringJoiner parts = new java.util.StringJoiner(", ");
    private long last;

    StartTimes(LongSupplier clock) {
        this.clock = clock;
        this.last = clock.getAsLong();
    }

    void mark(String part) {
        long now = clock.getAsLong();
        parts.add(part + " " + (now - last) + " ms");
        last = now;
    }

    @Override
    public String toString() {
        return parts.toString();
    }
}
