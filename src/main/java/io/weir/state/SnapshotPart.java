package io.weir.state;

import java.io.IOException;
import java.util.function.BooleanSupplier;

/**
 * The asynchronous part of one task's snapshot: writes the captured version to a snapshot store.
 *
 * <p>Threading: created on the task thread, {@link #write} runs once on an uploader thread.
 */
public interface SnapshotPart {
    /**
     * Writes the captured state; returns the handle naming every file the checkpoint needs. Stops
     * early with {@link java.util.concurrent.CancellationException} once {@code cancelled} says so.
     */
    StateHandle write(SnapshotStore store, BooleanSupplier cancelled) throws IOException;
}
