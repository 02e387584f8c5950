package io.weir.config;

/**
 * Memory given to RocksDB when it is the state backend: the block cache and the write buffer
 * (memtable) sizes, in bytes; and what a checkpoint does with the write-back cache's writes since
 * the last preparation ({@link CachedWrites}).
 */
public record RocksDbConfig(long blockCacheBytes, long writeBufferBytes, CachedWrites cachedWrites) {

    /**
     * {@code carry}: a checkpoint takes the cache's unwritten entries along as one file, {@code
     * weir+cached-writes} (the shortest pause); {@code write-through}: they are written into RocksDB
     * at the barrier, and checkpoints stay readable by versions before that file existed (the way
     * back from an upgrade, docs/operations.md).
     */
    public enum CachedWrites {
        CARRY,
        WRITE_THROUGH
    }

    public RocksDbConfig {
        if (blockCacheBytes <= 0) {
            throw new IllegalArgumentException("rocksdb block-cache must be positive, was " + blockCacheBytes);
        }
        if (writeBufferBytes <= 0) {
            throw new IllegalArgumentException("rocksdb write-buffer must be positive, was " + writeBufferBytes);
        }
        java.util.Objects.requireNonNull(cachedWrites, "cachedWrites");
    }

    public RocksDbConfig(long blockCacheBytes, long writeBufferBytes) {
        this(blockCacheBytes, writeBufferBytes, CachedWrites.CARRY);
    }

    public static RocksDbConfig defaults() {
        return new RocksDbConfig(64L << 20, 32L << 20);
    }
}
