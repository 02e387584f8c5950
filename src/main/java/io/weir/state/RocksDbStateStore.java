package io.weir.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's state in its own RocksDB under {@code <state dir>/<task>/db}.
 *
 * <p>The synchronous part of a snapshot captures the database into {@code checkpoints/<id>} without
 * flushing it ({@link RocksDbCheckpointDirs#capture}): hard links to the SST files, which RocksDB
 * never modifies — the copy-on-write capture — and to the write-ahead logs with their lengths at the barrier (a log
 * only grows), a copy of the MANIFEST's current length and of the small metadata files.
 * Processing goes on at once; the {@link RocksDbSnapshot} copies each log's prefix out of its link
 * and uploads from that directory. The write-ahead log is written but never
 * synced: state is never recovered from the local database, only from checkpoints; the log is
 * what a checkpoint holds of the memtables. The checkpoint directory of the latest completed
 * checkpoint is kept after close, as the source of local recovery when the database itself moved on.
 *
 * <p>Native handles (database, options, iterators) are released deterministically: {@link #close}
 * frees the database and this store's options, and scans read in batches with an iterator that is
 * closed before each batch returns, so an iterator abandoned halfway holds nothing native
 * ({@link RocksDbScan}).
 *
 * <p>Threading: the task thread does everything but {@link #checkpointCompleted}, which the
 * coordinator's thread calls; it touches only {@link SharedFiles} and old checkpoint directories.
 */
final class RocksDbStateStore implements StateStore {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbStateStore.class);
    /**
     * The file of a checkpoint that holds the writes still in the cache at its barrier. The '+' is
     * on purpose: versions before it refuse a file name with one ("not a RocksDB file name"), so an
     * older instance taking the task over in a rolling change fails over instead of restoring the
     * checkpoint without these writes.
     */
    static final String CACHED_WRITES = "weir+cached-writes";

    private final String task;
    private final String generation;
    private final RocksDB db;
    private final RocksDbCheckpointDirs checkpoints;
    /** The write-ahead log is on, never synced: a snapshot captures it instead of flushing. */
    private final WriteOptions writes = new WriteOptions();
    /** Ahead of a barrier: switch the memtable and let a background job write it. */
    private final FlushOptions earlyFlush =
            new FlushOptions().setWaitForFlush(false).setAllowWriteStall(true);

    private final SharedFiles shared;
    private final Consumer<RocksDbStateStore> onClose;
    private volatile long lastCompleted;
    /** RocksDB's size properties, sampled by the task thread at each snapshot; read by metrics. */
    private volatile Map<String, Long> sampled = Map.of();
    /** Set by the backend once it restored this store. */
    private volatile RestoreSizes restoreSizes = RestoreSizes.NONE;

    private boolean closed;

    private RocksDbStateStore(
            String task,
            String generation,
            Path taskDir,
            RocksDB db,
            SharedFiles shared,
            Consumer<RocksDbStateStore> onClose) {
        this.task = task;
        this.generation = generation;
        this.db = db;
        this.checkpoints = new RocksDbCheckpointDirs(task, taskDir, db);
        this.shared = shared;
        this.onClose = onClose;
    }

    /**
     * Opens the database in {@code taskDir/db}; {@code shared} are the files it already has stored. A
     * restored checkpoint's {@link #CACHED_WRITES} are written into it first, and the file removed.
     */
    static RocksDbStateStore open(
            String task,
            String generation,
            Path taskDir,
            Options options,
            SharedFiles shared,
            Consumer<RocksDbStateStore> onClose)
            throws IOException {
        Path dbDir = Files.createDirectories(taskDir.resolve("db"));
        RocksDB db;
        try {
            db = RocksDB.open(options, dbDir.toString());
        } catch (RocksDBException e) {
            throw new IOException("cannot open the RocksDB of " + task + " in " + dbDir + ": " + e.getMessage(), e);
        }
        RocksDbStateStore store = new RocksDbStateStore(task, generation, taskDir, db, shared, onClose);
        Path cached = dbDir.resolve(CACHED_WRITES);
        if (Files.exists(cached)) {
            try (WriteBatch batch = new WriteBatch(Files.readAllBytes(cached))) {
                db.write(store.writes, batch);
                Files.delete(cached);
            } catch (RocksDBException | IOException | RuntimeException e) {
                store.close();
                throw new IOException(
                        "cannot apply the cached writes of " + task + " from " + cached + ": " + e.getMessage(), e);
            }
        }
        return store;
    }

    String task() {
        return task;
    }

    @Override
    public byte[] get(byte[] key) {
        ensureOpen();
        try {
            return db.get(key);
        } catch (RocksDBException e) {
            throw failed("get", e);
        }
    }

    @Override
    public void put(byte[] key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("state values must not be null; delete the key instead");
        }
        ensureOpen();
        try {
            db.put(writes, key, value);
        } catch (RocksDBException e) {
            throw failed("put", e);
        }
    }

    /**
     * Writes many keys in one batch (a null value deletes its key), built on the heap and handed over
     * in one call ({@link WriteBatches}), as when the write-back cache writes its dirty keys through;
     * {@code size} is the batch's ({@link WriteBatches#size}), which the caller summed.
     */
    void writeAll(Iterable<? extends Map.Entry<byte[], byte[]>> entries, long size) {
        ensureOpen();
        try (WriteBatch batch = new WriteBatch(WriteBatches.serialize(entries, size))) {
            db.write(writes, batch);
        } catch (RocksDBException e) {
            throw failed("batch write", e);
        }
    }

    @Override
    public void delete(byte[] key) {
        ensureOpen();
        try {
            db.delete(writes, key);
        } catch (RocksDBException e) {
            throw failed("delete", e);
        }
    }

    @Override
    public Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix) {
        ensureOpen();
        return new RocksDbScan(this, db, prefix.clone(), prefix.clone());
    }

    @Override
    public Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix, byte[] from) {
        ensureOpen();
        return new RocksDbScan(
                this, db, prefix.clone(), Arrays.compareUnsigned(from, prefix) > 0 ? from.clone() : prefix.clone());
    }

    /**
     * Starts a flush of the memtable and returns at once: the writes up to now become an SST file
     * while the task goes on, and the barrier's capture copies only the log of the writes after
     * this (and links the rolled-over log of this memtable if its flush is still running).
     */
    @Override
    public void prepareSnapshot() {
        ensureOpen();
        try {
            // The log RocksDB rolls over here must hold all its writes: a later capture links it.
            db.flushWal(false);
            db.flush(earlyFlush);
        } catch (RocksDBException e) {
            if (e.getStatus() != null && e.getStatus().getCode() == Status.Code.TryAgain) {
                // Writes are held back until earlier flushes finish: this one was only a head start,
                // and the barrier copies a longer log instead.
                LOG.debug("{}: no early flush, RocksDB is busy: {}", task, e.getMessage());
                return;
            }
            throw new IllegalStateException("flushing the state of " + task + " failed: " + e.getMessage(), e);
        }
    }

    /** A RocksDB integer property of this store's database, as {@link RocksDbBackend#MEMTABLES}. */
    long property(String name) {
        ensureOpen();
        try {
            return db.getLongProperty(name);
        } catch (RocksDBException e) {
            throw new IllegalStateException("reading " + name + " of " + task + " failed: " + e.getMessage(), e);
        }
    }

    /** Holds RocksDB's flushes and compactions back; for tests of a capture while a flush is pending. */
    void pauseBackgroundWork() {
        try {
            db.pauseBackgroundWork();
        } catch (RocksDBException e) {
            throw failed("pause", e);
        }
    }

    /** Lets flushes and compactions run again after {@link #pauseBackgroundWork}; for tests. */
    void continueBackgroundWork() {
        try {
            db.continueBackgroundWork();
        } catch (RocksDBException e) {
            throw failed("continue", e);
        }
    }

    @Override
    public SnapshotPart snapshot(long checkpointId) {
        return snapshot(checkpointId, List.of());
    }

    /**
     * A snapshot of the database plus {@code cached}: writes a cache in front of this store has not
     * written through (a null value deletes its key), whose arrays nobody changes any more. They go
     * into the checkpoint directory as a serialized write batch ({@link #CACHED_WRITES}, written by
     * the uploader) instead of into RocksDB, which a restore writes after opening the database:
     * writing them through was most of the pause once the flush was gone (~12,500 keys: 16–43 ms in
     * the state-snapshot bench).
     */
    SnapshotPart snapshot(long checkpointId, List<Map.Entry<byte[], byte[]>> cached) {
        ensureOpen();
        Path dir = checkpoints.dir(checkpointId);
        try {
            long started = System.nanoTime();
            // No flush: what the memtables hold is in the write-ahead log, which the capture takes
            // up to here. A flush at the barrier was most of the pause, and its tail (waiting for
            // the preparation's flush and for compaction) went past 100 ms.
            db.flushWal(false);
            long walFlushed = System.nanoTime();
            sampled = Map.of(
                    RocksDbBackend.MEMTABLES,
                    db.getLongProperty(RocksDbBackend.MEMTABLES),
                    RocksDbBackend.LIVE_DATA,
                    db.getLongProperty(RocksDbBackend.LIVE_DATA),
                    RocksDbBackend.SST_FILES,
                    db.getLongProperty(RocksDbBackend.SST_FILES));
            LocalFiles.deleteTree(dir);
            Files.createDirectories(dir);
            long prepared = System.nanoTime();
            Map<String, Long> logs = checkpoints.capture(dir);
            long now = System.nanoTime();
            LOG.debug(
                    "{}: checkpoint {} synchronous part: {} µs (log flush {}, properties and directory {}, capture {}),"
                            + " logs {}, {} cached writes",
                    task,
                    checkpointId,
                    (now - started) / 1_000,
                    (walFlushed - started) / 1_000,
                    (prepared - walFlushed) / 1_000,
                    (now - prepared) / 1_000,
                    logs,
                    cached.size());
            return new RocksDbSnapshot(task, generation, checkpointId, dir, shared, logs, cached);
        } catch (RocksDBException | IOException e) {
            throw new IllegalStateException(
                    "snapshot " + checkpointId + " of " + task + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void checkpointCompleted(long checkpointId, StateHandle handle) {
        shared.completed(handle);
        lastCompleted = checkpointId;
        checkpoints.remove(id -> id < checkpointId);
    }

    void restoredFrom(RestoreSizes sizes) {
        restoreSizes = sizes;
    }

    @Override
    public RestoreSizes restoreSizes() {
        return restoreSizes;
    }

    @Override
    public Map<String, Long> sampledProperties() {
        return sampled;
    }

    @Override
    public long approximateEntries() {
        ensureOpen();
        try {
            return db.getLongProperty("rocksdb.estimate-num-keys");
        } catch (RocksDBException e) {
            throw failed("estimate-num-keys", e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            db.close();
        } finally {
            writes.close();
            earlyFlush.close();
            long keep = lastCompleted;
            checkpoints.remove(id -> id != keep);
            onClose.accept(this);
        }
    }

    /** Throws once closed (by the task or by the backend), so a late call never touches freed memory. */
    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the state of " + task + " is closed");
        }
    }

    IllegalStateException failed(String what, RocksDBException e) {
        return new IllegalStateException("RocksDB " + what + " failed for " + task + ": " + e.getMessage(), e);
    }
}
