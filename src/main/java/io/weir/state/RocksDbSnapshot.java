package io.weir.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The asynchronous part of a RocksDB snapshot: copies the captured write-ahead logs' prefixes out of
 * their links and writes the cache's dirty entries of the barrier, then uploads the checkpoint directory (hard links to the database's SST files, the
 * logs, copies of MANIFEST, CURRENT and OPTIONS) to the snapshot store. An SST file that the task's latest completed checkpoint already
 * stored is referenced, not uploaded again (incremental); the logs and metadata files are uploaded
 * every time. The handle names
 * every file the checkpoint needs, shared or new, with size and checksum. Stored names are
 * {@code task/generation/checkpoint/localName}: unique per upload, and the local name comes back
 * at restore.
 *
 * <p>Threading: created on the task thread, {@link #write} runs once on an uploader thread and
 * reads only the checkpoint directory. Its log links are the live logs' files (RocksDB appends to
 * the newest while the task goes on), which is why only the recorded prefix is copied. A part
 * that is never written keeps its links, and with them those logs' disk space, until the next
 * completed checkpoint or the store's close removes its directory.
 */
final class RocksDbSnapshot implements SnapshotPart {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbSnapshot.class);
    /** The suffix of a captured write-ahead log's link, until its prefix is copied. */
    static final String LINK = ".link";

    private final String task;
    private final String generation;
    private final long checkpointId;
    private final Path dir;
    private final SharedFiles shared;
    private final Map<String, Long> logLengths;
    private final List<Map.Entry<byte[], byte[]>> cachedWrites;

    /**
     * @param logLengths the write-ahead logs of the capture, each linked in {@code dir} as
     *     {@code <name>.link}, with the length the checkpoint holds of it
     * @param cachedWrites the cache's dirty entries at the barrier (a null value deletes), written
     *     into {@code dir} as a serialized write batch, {@link RocksDbStateStore#CACHED_WRITES}
     */
    RocksDbSnapshot(
            String task,
            String generation,
            long checkpointId,
            Path dir,
            SharedFiles shared,
            Map<String, Long> logLengths,
            List<Map.Entry<byte[], byte[]>> cachedWrites) {
        this.task = task;
        this.generation = generation;
        this.checkpointId = checkpointId;
        this.dir = dir;
        this.shared = shared;
        this.logLengths = Map.copyOf(logLengths);
        this.cachedWrites = cachedWrites;
    }

    @Override
    public StateHandle write(SnapshotStore store, BooleanSupplier cancelled) throws IOException {
        // The logs first: each becomes the prefix the checkpoint holds, and its link goes.
        for (Map.Entry<String, Long> log : logLengths.entrySet()) {
            Path link = dir.resolve(log.getKey() + LINK);
            Path copy = dir.resolve(log.getKey());
            if (Files.exists(link)) { // else copied by an earlier attempt
                Files.deleteIfExists(copy);
                LocalFiles.copyPrefix(link, copy, log.getValue());
                Files.delete(link);
            }
        }
        if (!cachedWrites.isEmpty()) {
            Files.write(dir.resolve(RocksDbStateStore.CACHED_WRITES), WriteBatches.serialize(cachedWrites));
        }
        List<StoredFile> files = new ArrayList<>();
        long uploaded = 0;
        long reused = 0;
        for (Path file : files()) {
            if (cancelled.getAsBoolean()) {
                throw new CancellationException("snapshot " + checkpointId + " of " + task + " cancelled");
            }
            String local = file.getFileName().toString();
            long size = Files.size(file);
            StoredFile previous = SharedFiles.immutable(local) ? shared.reusable(local, size) : null;
            if (previous != null) {
                files.add(previous);
                reused += size;
            } else {
                files.add(store.write(task + "/" + generation + "/" + checkpointId + "/" + local, file));
                uploaded += size;
            }
        }
        LOG.debug(
                "{}: checkpoint {} uploaded {} bytes, reused {} bytes already stored",
                task,
                checkpointId,
                uploaded,
                reused);
        return new StateHandle(RocksDbBackend.NAME, files);
    }

    /** SST files first: the large uploads start early, the small metadata files follow. */
    private List<Path> files() throws IOException {
        try (Stream<Path> listed = Files.list(dir)) {
            return listed.filter(Files::isRegularFile)
                    .sorted(Comparator.comparing((Path p) ->
                                    !SharedFiles.immutable(p.getFileName().toString()))
                            .thenComparing(Path::getFileName))
                    .toList();
        }
    }
}
