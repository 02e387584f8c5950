package io.weir.state;

import java.io.IOException;

/**
 * Creates the {@link StateStore} of a task, empty or restored from the handle of its latest
 * completed checkpoint. One backend serves every task of an instance and owns what they share (for
 * RocksDB: the block cache and the options); closing it closes any store still open.
 *
 * <p>Threading: {@link #open} is called by the thread that builds an execution; stores are then
 * owned by their task threads; {@link #close} is called once, after the last execution stopped.
 */
public interface StateBackend extends AutoCloseable {
    /** The backend name written into state handles. */
    String name();

    /**
     * Opens the store of {@code task}: empty when {@code from} is null, else restored from it.
     * {@code generation} is unique per call and starts every file name the store writes
     * ({@code task/generation/...}), so files of an earlier store of the task are told apart from
     * this one's. An unreadable checkpoint is a {@link StateRestoreException}, never an empty store.
     */
    StateStore open(String task, String generation, RestorePoint from, SnapshotStore snapshots) throws IOException;

    @Override
    void close();
}
