package io.weir.app;

import io.weir.state.RocksDbSettings;
import java.nio.file.Path;

/**
 * Where an instance keeps its state: the backend holding it while running, the local state
 * directory ({@code <dir>/<application>/<instance-id>/<task>} for RocksDB, so instances sharing a
 * disk never share a database), where snapshots go, how many completed checkpoints each task keeps,
 * and RocksDB's memory.
 */
public record StateSettings(
        Backend backend, Path dir, SnapshotStoreKind snapshots, Path snapshotDir, int retain, RocksDbSettings rocksdb) {

    /** Where state is held while running. */
    public enum Backend {
        MEMORY,
        ROCKSDB
    }

    /** Where the asynchronous parts of snapshots go. */
    public enum SnapshotStoreKind {
        KAFKA,
        FILESYSTEM
    }

    public StateSettings {
        if (retain < 1) {
            throw new IllegalArgumentException("retain must be at least 1, was " + retain);
        }
    }
}
