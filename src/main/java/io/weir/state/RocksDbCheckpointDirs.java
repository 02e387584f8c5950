package io.weir.state;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RocksDB store's local checkpoint directories, {@code <task>/checkpoints/<id>}: the capture of
 * the database into one without flushing it (hard links to the SST files and write-ahead logs,
 * what a snapshot reuses) and the removal of those no longer needed. The database belongs to the
 * {@link RocksDbStateStore}, which closes it; this only reads it.
 *
 * <p>Threading: the task thread captures; old directories are removed on the coordinator's thread
 * ({@link RocksDbStateStore#checkpointCompleted}) and by the store's close.
 */
final class RocksDbCheckpointDirs {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbStateStore.class);

    private static final java.util.regex.Pattern LOG_FILE = java.util.regex.Pattern.compile("[0-9]{1,18}\\.log");

    private final String task;
    private final Path taskDir;
    private final RocksDB db;

    RocksDbCheckpointDirs(String task, Path taskDir, RocksDB db) {
        this.task = task;
        this.taskDir = taskDir;
        this.db = db;
    }

    Path dir(long checkpointId) {
        return taskDir.resolve("checkpoints").resolve(Long.toString(checkpointId));
    }

    /**
     * Captures the database as it is into {@code dir} without flushing it, as RocksDB's own
     * checkpoint does when told not to flush: with file deletions held off, hard links to the live
     * SST files, the MANIFEST copied up to its length now, the OPTIONS file, a CURRENT naming the
     * MANIFEST, and each write-ahead log linked as {@code <name>.link} with its length now. Opening
     * the directory replays the logs into the memtable. A log may still grow (the one being
     * written), but never changes below that length: the uploader copies that prefix from the link ({@link RocksDbSnapshot}), so the pause
     * links instead of copying the writes since the preparation (~12 MB: 17–32 ms). Returns the logs'
     * lengths by name.
     */
    Map<String, Long> capture(Path dir) throws RocksDBException, IOException {
        Path dbDir = taskDir.resolve("db");
        db.disableFileDeletions();
        try {
            // Read before the live files: a log below this number is not needed by the MANIFEST
            // about to be captured either (the number only grows), so it is left out.
            long minLog = db.getLongProperty("rocksdb.min-log-number-to-keep");
            RocksDB.LiveFiles live = db.getLiveFiles(false);
            String manifest = null;
            for (String listed : live.files) {
                String name = Path.of(listed).getFileName().toString();
                if (name.equals("CURRENT")) {
                    continue; // written below: the live one may name a newer MANIFEST by now
                } else if (name.startsWith("MANIFEST-")) {
                    LocalFiles.copyPrefix(dbDir.resolve(name), dir.resolve(name), live.manifestFileSize);
                    manifest = name;
                } else if (SharedFiles.immutable(name)) {
                    LocalFiles.linkOrCopy(dbDir.resolve(name), dir.resolve(name));
                } else {
                    Files.copy(dbDir.resolve(name), dir.resolve(name));
                }
            }
            if (manifest == null) {
                throw new IOException("RocksDB listed no MANIFEST among its live files " + live.files);
            }
            Files.writeString(dir.resolve("CURRENT"), manifest + "\n", StandardCharsets.US_ASCII);
            // The logs from the directory, not RocksDB's getSortedWalFiles, which reads each log's
            // first record (a preparation's write-through is one record of megabytes). A log whose
            // memtable was flushed meanwhile is still here (deletions are off); a restore skips it.
            Map<String, Long> logLengths = new java.util.TreeMap<>();
            try (Stream<Path> files = Files.list(dbDir)) {
                for (Path log : (Iterable<Path>) files::iterator) {
                    String name = log.getFileName().toString();
                    boolean needed = LOG_FILE.matcher(name).matches()
                            && Long.parseLong(name.substring(0, name.length() - 4)) >= minLog;
                    long length = needed ? Files.size(log) : 0;
                    if (length > 0) { // an empty log holds nothing to replay
                        LocalFiles.linkOrCopy(log, dir.resolve(name + RocksDbSnapshot.LINK));
                        logLengths.put(name, length);
                    }
                }
            }
            return logLengths;
        } finally {
            db.enableFileDeletions();
        }
    }

    /** Deletes the checkpoint directories whose id {@code remove} accepts. */
    void remove(java.util.function.LongPredicate remove) {
        Path root = taskDir.resolve("checkpoints");
        if (!Files.isDirectory(root)) {
            return;
        }
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                String name = d.getFileName().toString();
                if (name.chars().allMatch(Character::isDigit) && remove.test(Long.parseLong(name))) {
                    LocalFiles.deleteTree(d);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Left-over directories cost only disk; the next restore of the task removes them.
            LOG.debug("{}: could not remove old checkpoint directories: {}", task, e.toString());
        }
    }
}
