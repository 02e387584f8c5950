package io.weir.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.HistogramType;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * The {@code rocksdb} backend: one RocksDB per task under {@code root/<task>}, all sharing one
 * block cache (so the memory bound is per instance, not per task) and one set of options. A task
 * with a checkpoint is restored by {@link RocksDbRestore} (downloading or reusing local files); a
 * task without one starts from an empty directory, since local files without a checkpoint belong
 * to no consistent cut. A checkpoint written by the memory backend is migrated: its entries are
 * loaded into the new database, since the key layout is the same for every backend.
 *
 * <p>Threading: {@link #open} from the thread that builds an execution, {@link #close} once at
 * the end; the map of open stores is concurrent because stores remove themselves when closed.
 */
public final class RocksDbBackend implements StateBackend {
    /** Memtable bytes at a snapshot: what the task wrote since the preparation's flush. */
    public static final String MEMTABLES = "rocksdb.cur-size-all-mem-tables";
    /** Live data in bytes, sampled at a snapshot. */
    public static final String LIVE_DATA = "rocksdb.estimate-live-data-size";
    /** SST files in bytes, sampled at a snapshot (the memtables not included). */
    public static final String SST_FILES = "rocksdb.total-sst-files-size";

    static final String NAME = "rocksdb";

    static {
        RocksDB.loadLibrary();
    }

    private final Path root;
    private final LRUCache cache;
    /** Tickers only (every histogram ignored): block-cache hits and misses for the metrics. */
    private final Statistics statistics = new Statistics(EnumSet.allOf(HistogramType.class));

    private boolean closed;
    private final BloomFilter filter;
    private final Options options;
    /**
     * The least any open task's write-back cache may hold however many tasks share the budget
     * ({@link RocksDbSettings#heapCacheBytes}): about 1,500 small entries.
     */
    static final long MIN_CACHE_BYTES_PER_TASK = 256 << 10;

    private final long heapCacheBytes;
    /** Dirty cache entries a snapshot carries along at most, serialized; 0: written through. */
    private final long maxCarriedBytes;

    private final Map<String, RocksDbStateStore> open = new ConcurrentHashMap<>();
    /** Tasks being opened: a standby copy in progress gives way to them. */
    private final Set<String> opening = ConcurrentHashMap.newKeySet();
    /** Per task: opening it and following it ({@link #follow}) take turns on its directory. */
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    /** The directory of a task's warm copy under its {@code checkpoints/} (not a checkpoint id). */
    static final String STANDBY = "standby";

    public RocksDbBackend(Path root, RocksDbSettings settings) throws IOException {
        this.root = Files.createDirectories(root);
        this.heapCacheBytes = settings.heapCacheBytes();
        this.maxCarriedBytes = settings.carryCachedWrites() ? WriteBackCache.MAX_CARRIED_BYTES : 0;
        this.cache = new LRUCache(settings.blockCacheBytes());
        this.filter = new BloomFilter(10);
        this.options = new Options()
                .setCreateIfMissing(true)
                .setWriteBufferSize(settings.writeBufferBytes())
                .setMaxWriteBufferNumber(3)
                // Every checkpoint flushes (once, at its preparation), and with updates spread over
                // the key space each flushed file spans all of it: compacting level 0 into level 1
                // rewrites the whole state. After 8 files instead of 4 that happens half as often,
                // and so does the upload of the rewritten files (state-snapshot bench, 1,000,000
                // keys, 10 % changed per checkpoint: mean upload 60.3 -> 32.7 MiB per checkpoint).
                .setLevel0FileNumCompactionTrigger(8)
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setLevelCompactionDynamicLevelBytes(true)
                .setMaxBackgroundJobs(2)
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
                .setKeepLogFileNum(2)
                // Unflushed writes are worthless after close: restores start from checkpoints.
                .setAvoidFlushDuringShutdown(true)
                // A checkpoint holds the write-ahead log instead of a flush (RocksDbCheckpointDirs
                // .capture): writes gather in the log writer's buffer (1 MiB, written out when
                // full) instead of a file write each, a snapshot or preparation pushes the rest to
                // the file, and a restore replays the log into the memtable without writing an SST.
                .setManualWalFlush(true)
                .setAvoidFlushDuringRecovery(true)
                .setStatistics(statistics)
                .setTableFormatConfig(new BlockBasedTableConfig()
                        .setBlockCache(cache)
                        .setFilterPolicy(filter)
                        .setBlockSize(16 * 1024)
                        .setCacheIndexAndFilterBlocks(true)
                        .setPinL0FilterAndIndexBlocksInCache(true));
    }

    /**
     * Whether {@code root}, a backend's directory, holds nothing from an earlier run (missing or
     * empty): then every restore downloads its files.
     */
    public static boolean holdsNothing(Path root) {
        try (Stream<Path> entries = Files.list(root)) {
            return entries.findAny().isEmpty();
        } catch (java.nio.file.NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public StateStore open(String task, String generation, RestorePoint from, SnapshotStore snapshots)
            throws IOException {
        if (!task.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("task name must be usable as a directory name, was '" + task + "'");
        }
        if (open.containsKey(task)) {
            throw new IllegalStateException("the state of " + task + " is still open; close it before reopening");
        }
        // A standby copy of this task (follow) stops at its next file and leaves the directory to us.
        opening.add(task);
        try {
            synchronized (lockOf(task)) {
                return openLocked(task, generation, from, snapshots);
            }
        } finally {
            opening.remove(task);
        }
    }

    private StateStore openLocked(String task, String generation, RestorePoint from, SnapshotStore snapshots)
            throws IOException {
        Path taskDir = root.resolve(task);
        List<StoredFile> restored = List.of();
        RestoreSizes sizes = RestoreSizes.NONE;
        boolean migrate = false;
        if (from == null || from.handle().files().isEmpty()) {
            LocalFiles.deleteTree(taskDir);
        } else if (from.handle().backend().equals(NAME)) {
            RocksDbRestore.Outcome outcome = RocksDbRestore.restore(taskDir, from, snapshots);
            sizes = new RestoreSizes(outcome.reusedBytes(), outcome.downloadedBytes());
            restored = from.handle().files();
        } else if (from.handle().backend().equals(MemoryStateStore.BACKEND)) {
            LocalFiles.deleteTree(taskDir);
            migrate = true;
            sizes = new RestoreSizes(
                    0,
                    from.handle().files().stream().mapToLong(StoredFile::size).sum());
        } else {
            throw new StateRestoreException(
                    from,
                    null,
                    "it was written by the unknown backend " + from.handle().backend(),
                    null);
        }
        RocksDbStateStore store = RocksDbStateStore.open(
                task, generation, taskDir, options, new SharedFiles(restored), s -> open.remove(s.task(), s));
        open.put(task, store);
        store.restoredFrom(sizes);
        if (migrate) {
            migrate(store, from, generation, snapshots);
        }
        // The open tasks share the budget: a task opened later makes every cache's share smaller.
        return new WriteBackCache(
                store,
                () -> Math.max(MIN_CACHE_BYTES_PER_TASK, heapCacheBytes / Math.max(1, open.size())),
                maxCarriedBytes);
    }

    private static void migrate(StateStore into, RestorePoint from, String generation, SnapshotStore snapshots)
            throws IOException {
        try {
            MemoryStateStore memory = MemoryStateStore.restore(from, generation, snapshots);
            for (Iterator<Map.Entry<byte[], byte[]>> it = memory.scan(new byte[0]); it.hasNext(); ) {
                Map.Entry<byte[], byte[]> e = it.next();
                into.put(e.getKey(), e.getValue());
            }
        } catch (IOException | RuntimeException e) {
            into.close();
            throw e;
        }
    }

    /**
     * Keeps a warm copy of a task this instance does not run: the files of checkpoint {@code at} in
     * {@code <task>/checkpoints/standby/}, where a later restore of the task finds them (local
     * recovery matches files by name, size and checksum). Downloads only what the copy lacks (SST
     * files never change, so a followed task costs what its checkpoints add: new SST files, and each
     * checkpoint's logs and cached writes) and deletes what
     * {@code at} no longer names. Does nothing while the task is open here; gives way, between two
     * files, to a restore of the task. Returns the bytes kept and downloaded.
     */
    public RestoreSizes follow(RestorePoint at, SnapshotStore snapshots) throws IOException {
        String task = at.task();
        if (!task.matches("[A-Za-z0-9._-]+") || !at.handle().backend().equals(NAME)) {
            return RestoreSizes.NONE;
        }
        synchronized (lockOf(task)) {
            if (open.containsKey(task) || opening.contains(task)) {
                return RestoreSizes.NONE;
            }
            Path dir = Files.createDirectories(standbyDir(task));
            Set<String> wanted = new HashSet<>();
            long kept = 0;
            long downloaded = 0;
            for (StoredFile f : at.handle().files()) {
                if (opening.contains(task)) {
                    return new RestoreSizes(kept, downloaded); // the rest is the restore's to fetch
                }
                String name = SharedFiles.localName(f);
                if (!RocksDbRestore.LOCAL_NAME.matcher(name).matches()) {
                    continue;
                }
                wanted.add(name);
                Path file = dir.resolve(name);
                // An SST file never changes: its name and size say it is there. The few others
                // (MANIFEST, OPTIONS, CURRENT, the logs) are small enough to check whole.
                if (Files.isRegularFile(file)
                        && Files.size(file) == f.size()
                        && (SharedFiles.immutable(name) || Crc32c.of(file) == f.crc32c())) {
                    kept += f.size();
                    continue;
                }
                Path partial = dir.resolve(name + ".part");
                snapshots.download(f, partial);
                Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                downloaded += f.size();
            }
            try (Stream<Path> files = Files.list(dir)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    if (!wanted.contains(p.getFileName().toString())) {
                        Files.deleteIfExists(p);
                    }
                }
            }
            return new RestoreSizes(kept, downloaded);
        }
    }

    /** Deletes the warm copies of {@code tasks} (not of those open here). */
    public void unfollow(Set<String> tasks) throws IOException {
        for (String task : tasks) {
            if (!task.matches("[A-Za-z0-9._-]+") || !Files.isDirectory(standbyDir(task))) {
                continue;
            }
            synchronized (lockOf(task)) {
                if (!open.containsKey(task) && !opening.contains(task)) {
                    LocalFiles.deleteTree(standbyDir(task));
                }
            }
        }
    }

    private Path standbyDir(String task) {
        return root.resolve(task).resolve("checkpoints").resolve(STANDBY);
    }

    private Object lockOf(String task) {
        return locks.computeIfAbsent(task, t -> new Object());
    }

    /** How many task stores are open; for tests of the life cycle. */
    int openStores() {
        return open.size();
    }

    /**
     * The shared block cache since start: lookups that hit and missed, and the bytes it holds now;
     * empty once closed. Thread-safe: metrics read it at scrape time.
     */
    public synchronized Optional<BlockCacheCounts> blockCache() {
        if (closed) {
            return Optional.empty();
        }
        return Optional.of(new BlockCacheCounts(
                statistics.getTickerCount(TickerType.BLOCK_CACHE_HIT),
                statistics.getTickerCount(TickerType.BLOCK_CACHE_MISS),
                cache.getUsage()));
    }

    /** Block-cache lookups that hit and missed since the backend opened, and the bytes cached now. */
    public record BlockCacheCounts(long hits, long misses, long usageBytes) {}

    /** Closes stores still open, then what they shared: the options and cache outlive every database. */
    @Override
    public synchronized void close() {
        closed = true;
        for (RocksDbStateStore s : List.copyOf(open.values())) {
            s.close();
        }
        options.close();
        statistics.close();
        filter.close();
        cache.close();
    }
}
