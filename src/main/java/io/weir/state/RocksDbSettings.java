package io.weir.state;

/**
 * Memory given to RocksDB: the block cache, shared by every task of the instance, and the write
 * buffer (memtable) of each task, in bytes.
 */
public record RocksDbSettings(long blockCacheBytes, long writeBufferBytes) {
    public RocksDbSettings {
        if (blockCacheBytes <= 0) {
            throw new IllegalArgumentException("rocksdb block cache must be positive, was " + blockCacheBytes);
        }
        if (writeBufferBytes <= 0) {
            throw new IllegalArgumentException("rocksdb write buffer must be positive, was " + writeBufferBytes);
        }
    }
}
