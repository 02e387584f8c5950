package io.weir.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds a task's database directory from the files its checkpoint names. Each file is taken
 * from the local disk when a file of that name with the same size and CRC32C is there (local
 * recovery: the live database or a kept checkpoint directory of this task), else downloaded from
 * the snapshot store. The files are gathered in {@code restoring/} and only then replace
 * {@code db/}, so a restore that fails halfway leaves nothing that looks like a database. A file
 * that can be neither found nor downloaded intact fails the restore with a
 * {@link StateRestoreException} naming task, checkpoint and file.
 *
 * <p>Threading: runs on the thread that opens the task, before the task's store exists.
 */
final class RocksDbRestore {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbRestore.class);
    /** RocksDB's file names and {@link RocksDbStateStore#CACHED_WRITES}: nothing that leaves the directory. */
    static final Pattern LOCAL_NAME = Pattern.compile("[A-Za-z0-9._+-]+");

    /** What a restore did, for the log and for tests. */
    record Outcome(int reused, long reusedBytes, int downloaded, long downloadedBytes) {}

    private RocksDbRestore() {}

    static Outcome restore(Path taskDir, RestorePoint from, SnapshotStore snapshots) throws IOException {
        long started = System.nanoTime();
        Path target = taskDir.resolve("restoring");
        LocalFiles.deleteTree(target);
        Files.createDirectories(target);
        Map<String, List<Path>> local = localCandidates(taskDir);
        int reused = 0;
        int downloaded = 0;
        long reusedBytes = 0;
        long downloadedBytes = 0;
        Map<StoredFile, Path> toDownload = new java.util.LinkedHashMap<>();
        for (StoredFile f : from.handle().files()) {
            String name = SharedFiles.localName(f);
            if (!LOCAL_NAME.matcher(name).matches()) {
                throw new StateRestoreException(from, f.name(), "not a RocksDB file name", null);
            }
            Path dst = target.resolve(name);
            Path match = matching(local.getOrDefault(name, List.of()), f);
            if (match != null) {
                // Only immutable files are linked: RocksDB may append to a MANIFEST it opens.
                if (SharedFiles.immutable(name)) {
                    LocalFiles.linkOrCopy(match, dst);
                } else {
                    Files.copy(match, dst);
                }
                reused++;
                reusedBytes += f.size();
            } else {
                if (toDownload.putIfAbsent(f, dst) == null) {
                    downloaded++;
                    downloadedBytes += f.size();
                }
            }
        }
        try {
            snapshots.downloadAll(toDownload);
        } catch (IOException e) {
            throw new StateRestoreException(from, null, e.getMessage(), e);
        }
        LocalFiles.deleteTree(taskDir.resolve("db"));
        LocalFiles.deleteTree(taskDir.resolve("checkpoints"));
        Files.move(target, taskDir.resolve("db"));
        Outcome outcome = new Outcome(reused, reusedBytes, downloaded, downloadedBytes);
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (reused > 0) {
            LOG.info(
                    "{}: local recovery of checkpoint {}: reused {} local files ({} bytes), downloaded {} ({} bytes)"
                            + " in {} ms",
                    from.task(),
                    from.checkpointId(),
                    reused,
                    reusedBytes,
                    downloaded,
                    downloadedBytes,
                    millis);
        } else {
            LOG.info(
                    "{}: restored checkpoint {} by downloading {} files ({} bytes) in {} ms",
                    from.task(),
                    from.checkpointId(),
                    downloaded,
                    downloadedBytes,
                    millis);
        }
        return outcome;
    }

    /** Files in the live database and the kept checkpoint directories, by name. */
    private static Map<String, List<Path>> localCandidates(Path taskDir) throws IOException {
        List<Path> dirs = new ArrayList<>();
        dirs.add(taskDir.resolve("db"));
        Path checkpoints = taskDir.resolve("checkpoints");
        if (Files.isDirectory(checkpoints)) {
            try (Stream<Path> s = Files.list(checkpoints)) {
                s.filter(Files::isDirectory).forEach(dirs::add);
            }
        }
        Map<String, List<Path>> byName = new HashMap<>();
        for (Path dir : dirs) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(Files::isRegularFile)
                        .forEach(p -> byName.computeIfAbsent(p.getFileName().toString(), n -> new ArrayList<>())
                                .add(p));
            }
        }
        return byName;
    }

    private static Path matching(List<Path> candidates, StoredFile f) throws IOException {
        for (Path p : candidates) {
            if (Files.size(p) == f.size() && Crc32c.of(p) == f.crc32c()) {
                return p;
            }
        }
        return null;
    }
}
