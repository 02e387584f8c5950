package io.weir.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The asynchronous part of a RocksDB snapshot: uploads a native checkpoint directory (hard links
 * to the database's SST files plus copies of MANIFEST, CURRENT and OPTIONS) to the snapshot store.
 * An SST file that the task's latest completed checkpoint already stored is referenced, not
 * uploaded again (incremental); the small metadata files are uploaded every time. The handle names
 * every file the checkpoint needs, shared or new, with size and checksum. Stored names are
 * {@code task/generation/checkpoint/localName}: unique per upload, and the local name comes back
 * at restore.
 *
 * <p>Threading: created on the task thread, {@link #write} runs once on an uploader thread and
 * reads only the checkpoint directory, never the live database.
 */
final class RocksDbSnapshot implements SnapshotPart {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbSnapshot.class);

    private final String task;
    private final String generation;
    private final long checkpointId;
    private final Path dir;
    private final SharedFiles shared;

    RocksDbSnapshot(String task, String generation, long checkpointId, Path dir, SharedFiles shared) {
        this.task = task;
        this.generation = generation;
        this.checkpointId = checkpointId;
        this.dir = dir;
        this.shared = shared;
    }

    @Override
    public StateHandle write(SnapshotStore store, BooleanSupplier cancelled) throws IOException {
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
