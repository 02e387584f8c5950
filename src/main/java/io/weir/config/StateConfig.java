package io.weir.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where operator state lives: the {@code backend} holding it while running (in memory or in
 * RocksDB under {@code dir}), where snapshots go ({@code kafka} topics, or the {@code filesystem}
 * under {@code snapshotDir}, which that choice requires), how many snapshots are retained, and
 * the RocksDB memory settings. Relative directories are relative to the working directory.
 */
public record StateConfig(
        Backend backend,
        Path dir,
        SnapshotStore snapshots,
        Optional<Path> snapshotDir,
        int retain,
        RocksDbConfig rocksdb) {

    /** Where state is held while the job runs. */
    public enum Backend {
        MEMORY,
        ROCKSDB
    }

    /** Where snapshots of the state are written. */
    public enum SnapshotStore {
        KAFKA,
        FILESYSTEM
    }

    public StateConfig {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(snapshots, "snapshots");
        Objects.requireNonNull(snapshotDir, "snapshotDir");
        Objects.requireNonNull(rocksdb, "rocksdb");
        if (snapshots == SnapshotStore.FILESYSTEM && snapshotDir.isEmpty()) {
            throw new IllegalArgumentException("filesystem snapshots need a snapshot-dir");
        }
        if (retain < 1) {
            throw new IllegalArgumentException("state retain must be at least 1, was " + retain);
        }
    }

    /** The state directory used when none is configured: {@code weir} under java.io.tmpdir. */
    public static Path defaultDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "weir");
    }

    public static StateConfig defaults() {
        return new StateConfig(
                Backend.ROCKSDB, defaultDir(), SnapshotStore.KAFKA, Optional.empty(), 3, RocksDbConfig.defaults());
    }
}
