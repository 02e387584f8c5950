package io.weir.state;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's state in its own RocksDB under {@code <state dir>/<task>/db}.
 *
 * <p>The synchronous part of a snapshot captures the database into {@code checkpoints/<id>} without
 * flushing it ({@link #capture}): hard links to the SST files, which RocksDB never modifies — the
 * copy-on-write capture — and to the write-ahead logs with their lengths at the barrier (a log
 * only grows), a copy of the MANIFEST's current length and of the small metadata files.
 * Processing goes on at once; the {@link RocksDbSnapshot} copies each log's prefix out of its link
 * and uploads from that directory. The write-ahead log is written but never
 * synced: state is never recovered from the local database, only from checkpoints; the log is
 * what a checkpoint holds of the memtables. The checkpoint directory of the latest completed
 * checkpoint is kept after close, as the source of local recovery when the database itself moved on.
 *
 * <p>Native handles (database, options, iterators) are released deterministically: {@link #close}
 * frees the database and this store's options, and scans read in batches with an iterator that is
 * closed before each batch returns, so an iterator abandoned halfway holds nothing native.
 *
 * <p>Threading: the task thread does everything but {@link #checkpointCompleted}, which the
 * coordinator's thread calls; it touches only {@link SharedFiles} and old checkpoint directories.
 */
final class RocksDbStateStore implements StateStore {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbStateStore.class);
    private static final int SCAN_BATCH = 256;
    /**
     * The file of a checkpoint that holds the writes still in the cache at its barrier. The '+' is
     * on purpose: versions before it refuse a file name with one ("not a RocksDB file name"), so an
     * older instance taking the task over in a rolling change fails over instead of restoring the
     * checkpoint without these writes.
     */
    static final String CACHED_WRITES = "weir+cached-writes";

    private static final java.util.regex.Pattern LOG_FILE = java.util.regex.Pattern.compile("[0-9]{1,18}\\.log");

    private final String task;
    private final String generation;
    private final Path taskDir;
    private final RocksDB db;
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
        this.taskDir = taskDir;
        this.db = db;
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
        return new Scan(prefix.clone(), prefix.clone());
    }

    @Override
    public Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix, byte[] from) {
        ensureOpen();
        return new Scan(prefix.clone(), Arrays.compareUnsigned(from, prefix) > 0 ? from.clone() : prefix.clone());
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
        Path dir = checkpointDir(checkpointId);
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
            Map<String, Long> logs = capture(dir);
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
    private Map<String, Long> capture(Path dir) throws RocksDBException, IOException {
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

    @Override
    public void checkpointCompleted(long checkpointId, StateHandle handle) {
        shared.completed(handle);
        lastCompleted = checkpointId;
        removeCheckpointDirs(id -> id < checkpointId);
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
            removeCheckpointDirs(id -> id != keep);
            onClose.accept(this);
        }
    }

    private Path checkpointDir(long checkpointId) {
        return taskDir.resolve("checkpoints").resolve(Long.toString(checkpointId));
    }

    /** Deletes the checkpoint directories whose id {@code remove} accepts. */
    private void removeCheckpointDirs(java.util.function.LongPredicate remove) {
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

    /** Throws once closed (by the task or by the backend), so a late call never touches freed memory. */
    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the state of " + task + " is closed");
        }
    }

    private IllegalStateException failed(String what, RocksDBException e) {
        return new IllegalStateException("RocksDB " + what + " failed for " + task + ": " + e.getMessage(), e);
    }

    /** Reads {@link #SCAN_BATCH} entries at a time, each batch with a fresh iterator closed at once. */
    private final class Scan implements Iterator<Map.Entry<byte[], byte[]>> {
        private final byte[] prefix;
        private final byte[] start;
        private final ArrayDeque<Map.Entry<byte[], byte[]>> batch = new ArrayDeque<>();
        private byte[] lastKey;
        private boolean exhausted;

        Scan(byte[] prefix, byte[] start) {
            this.prefix = prefix;
            this.start = start;
        }

        @Override
        public boolean hasNext() {
            if (batch.isEmpty() && !exhausted) {
                fill();
            }
            return !batch.isEmpty();
        }

        @Override
        public Map.Entry<byte[], byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return batch.pollFirst();
        }

        private void fill() {
            ensureOpen();
            // The upper bound stops the iterator at the prefix's end: without it, a seek into a
            // prefix with no live key steps over every deleted key after it (expired join records,
            // fired timers) until it finds a live one, however far away.
            byte[] end = Bytes.prefixEnd(prefix);
            try (Slice bound = end == null ? null : new Slice(end);
                    ReadOptions options =
                            bound == null ? new ReadOptions() : new ReadOptions().setIterateUpperBound(bound);
                    RocksIterator it = db.newIterator(options)) {
                if (lastKey == null) {
                    it.seek(start);
                } else {
                    it.seek(lastKey);
                    if (it.isValid() && Arrays.equals(it.key(), lastKey)) {
                        it.next();
                    }
                }
                while (it.isValid() && batch.size() < SCAN_BATCH && startsWithPrefix(it.key())) {
                    byte[] key = it.key();
                    batch.addLast(new AbstractMap.SimpleImmutableEntry<>(key, it.value()));
                    lastKey = key;
                    it.next();
                }
                exhausted = batch.size() < SCAN_BATCH;
                it.status();
            } catch (RocksDBException e) {
                throw failed("scan", e);
            }
        }

        private boolean startsWithPrefix(byte[] key) {
            return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
        }
    }
}
