package io.weir.state;

import java.io.IOException;

/**
 * Where the asynchronous parts of snapshots go: a place that keeps files durably until deleted.
 * {@link #write} returns only once the file is durable, so a checkpoint that commits after its
 * writes returned can always be restored.
 *
 * <p>Threading: implementations are safe for concurrent use by uploader threads and the restoring
 * thread.
 */
public interface SnapshotStore extends AutoCloseable {
    StoredFile write(String name, byte[] content) throws IOException;

    /** Reads a file back, verifying its size and checksum; a mismatch is an IOException. */
    byte[] read(StoredFile file) throws IOException;

    void delete(StoredFile file) throws IOException;

    @Override
    void close();
}
