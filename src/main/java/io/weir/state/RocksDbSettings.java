package io.weir.state;

/**
 * Memory for RocksDB state: the block cache, shared by every task of the instance, and the write
 * buffer (memtable) of each task, in bytes (native memory); and the heap the tasks' write-back
 * caches share ({@link WriteBackCache}: hot keys read and written without crossing JNI), by
 * default a tenth of the JVM's maximum heap. With {@code carryCachedWrites} a snapshot takes the
 * caches' unwritten entries along as a file of the checkpoint instead of writing them into RocksDB
 * at the barrier (a shorter pause, but versions before that file cannot restore such checkpoints).
 */
public record RocksDbSettings(
        long blockCacheBytes, long writeBufferBytes, long heapCacheBytes, boolean carryCachedWrites) {
    public RocksDbSettings {
        if (blockCacheBytes <= 0) {
            throw new IllegalArgumentException("rocksdb block cache must be positive, was " + blockCacheBytes);
        }
        if (writeBufferBytes <= 0) {
            throw new IllegalArgumentException("rocksdb write buffer must be positive, was " + writeBufferBytes);
        }
        if (heapCacheBytes <= 0) {
            throw new IllegalArgumentException("the write-back caches' heap must be positive, was " + heapCacheBytes);
        }
    }

    public RocksDbSettings(long blockCacheBytes, long writeBufferBytes, long heapCacheBytes) {
        this(blockCacheBytes, writeBufferBytes, heapCacheBytes, true);
    }

    public RocksDbSettings(long blockCacheBytes, long writeBufferBytes) {
        this(blockCacheBytes, writeBufferBytes, defaultHeapCacheBytes());
    }

    /** A tenth of the JVM's maximum heap. */
    public static long defaultHeapCacheBytes() {
        return Runtime.getRuntime().maxMemory() / 10;
    }
}
