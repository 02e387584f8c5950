package io.weir.state;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Where the asynchronous parts of snapshots go: a place that keeps files durably until deleted.
 * Both {@code write} methods return only once the file is durable, so a checkpoint that commits
 * after its writes returned can always be restored. File names are {@code task/...}: unique per
 * upload (a name is never written twice), so a store may key its content by name alone.
 *
 * <p>Threading: implementations are safe for concurrent use by uploader threads and the restoring
 * thread.
 */
public interface SnapshotStore extends AutoCloseable {
    StoredFile write(String name, byte[] content) throws IOException;

    /** Writes a local file, streaming it: large files are never held in memory whole. */
    StoredFile write(String name, Path file) throws IOException;

    /** Reads a file back, verifying its size and checksum; a mismatch is an IOException. */
    byte[] read(StoredFile file) throws IOException;

    /**
     * Downloads a file to {@code target} (created or replaced), streaming and verifying its size
     * and checksum; a mismatch is an IOException and leaves no target behind.
     */
    void download(StoredFile file, Path target) throws IOException;

    /**
     * Downloads each file to its target, as {@link #download} one by one would; a store may fetch
     * them together (the Kafka store reads their partitions at once instead of one fetch per file).
     * A failure is an IOException naming the file and leaves no target of an unfinished file behind.
     */
    default void downloadAll(Map<StoredFile, Path> files) throws IOException {
        for (Map.Entry<StoredFile, Path> e : files.entrySet()) {
            download(e.getKey(), e.getValue());
        }
    }

    void delete(StoredFile file) throws IOException;

    /**
     * The files present when the call started whose names {@code names} accepts, with enough
     * locations to {@link #delete} them. Size is what the store holds; the checksum is not known
     * (0). For finding orphans: this may read the whole store.
     */
    List<StoredFile> list(Predicate<String> names) throws IOException;

    @Override
    void close();
}
