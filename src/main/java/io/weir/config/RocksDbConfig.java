package io.weir.config;

/**
 * Memory given to RocksDB when it is the state backend: the block cache and the write buffer
 * (memtable) sizes, in bytes.
 */
public record RocksDbConfig(long blockCacheBytes, long writeBufferBytes) {

    public RocksDbConfig {
        if (blockCacheBytes <= 0) {
            throw new IllegalArgumentException("rocksdb block-cache must be positive, was " + blockCacheBytes);
        }
        if (writeBufferBytes <= 0) {
            throw new IllegalArgumentException("rocksdb write-buffer must be positive, was " + writeBufferBytes);
        }
    }

    public static RocksDbConfig defaults() {
        return new RocksDbConfig(64L << 20, 32L << 20);
    }
}
