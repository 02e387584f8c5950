package io.weir.element;

/**
 * The cut of checkpoint {@code checkpointId} in one channel: every record before it belongs to the
 * checkpoint's state, every record after it to the next epoch.
 */
public record Barrier(long checkpointId) implements Element {
    public Barrier {
        if (checkpointId <= 0) {
            throw new IllegalArgumentException("checkpoint id must be positive, was " + checkpointId);
        }
    }
}
