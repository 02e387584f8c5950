package io.weir.bench.jmh;

import io.weir.state.FileSnapshotStore;
import io.weir.state.RocksDbBackend;
import io.weir.state.RocksDbSettings;
import io.weir.state.StateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rocksdb.RocksDB;

/**
 * A keyed state's read-modify-write, as an aggregate does per record: through a task's store (the
 * write-back cache in front of RocksDB, its dirty keys written through every {@value #PREPARE_EVERY}
 * updates as at a checkpoint's first step; {@code cache=default}) against the baseline of the same store with the
 * smallest cache a task gets ({@code cache=smallest}: ~1,500 entries, so nearly every read and write crosses into RocksDB):
 * same RocksDB settings, same code path. Keys uniformly random over {@code keys} users; the default
 * cache is a tenth of the heap shared by the instance's tasks (here 200 MB for one task). The early
 * flush of each preparation puts a small file into level 0 that spans the whole key space, so with
 * a large key space compaction soon runs all the time: the baseline slows for the first ~10 s after
 * the load (12 → 30–140 µs per update with 1,000,000 keys), hence the long warm-up.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgs = {"-Xmx2g", "-XX:+UseParallelGC"})
public class StateBench {
    private static final int PREPARE_EVERY = 1 << 17;
    private static final int SEQUENCE = 1 << 20;

    @Param({"10000", "1000000"})
    public int keys;

    /** The store's write-back cache: the default (a tenth of the heap), or the baseline's smallest. */
    @Param({"default", "smallest"})
    public String cache;

    private Path dir;
    private RocksDbBackend backend;
    private StateStore store;
    private byte[][] keyBytes;
    private int[] sequence;
    private int i;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("weir-state-bench");
        RocksDB.loadLibrary();
        backend = new RocksDbBackend(
                dir.resolve("state"),
                cache.equals("default")
                        ? new RocksDbSettings(64 << 20, 32 << 20)
                        : new RocksDbSettings(64 << 20, 32 << 20, 1));
        store = backend.open("bench-0", "g", null, new FileSnapshotStore(dir.resolve("snapshots")));
        keyBytes = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            // A value state's key: the state's name, then the record key's bytes.
            keyBytes[k] = ("aggregate\u0000u" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            byte[] value = row(0);
            store.putPoint(keyBytes[k], value);
        }
        store.prepareSnapshot();
        Random random = new Random(42);
        sequence = new int[SEQUENCE];
        for (int s = 0; s < SEQUENCE; s++) {
            sequence[s] = random.nextInt(keys);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        store.close();
        backend.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A row of the size the example job's accumulators take (three longs, ~12 bytes). */
    private static byte[] row(long count) {
        byte[] b = new byte[12];
        for (int k = 0; k < 8; k++) {
            b[k] = (byte) (count >>> (8 * k));
        }
        return b;
    }

    private static byte[] modified(byte[] old) {
        byte[] b = old.clone();
        b[0]++;
        return b;
    }

    /** One update as an aggregate makes it: read the key's value, write the changed value back. */
    @Benchmark
    public byte[] readModifyWrite() {
        byte[] key = keyBytes[sequence[i++ & (SEQUENCE - 1)]];
        byte[] next = modified(store.get(key));
        store.putPoint(key, next);
        if ((i & (PREPARE_EVERY - 1)) == 0) {
            store.prepareSnapshot();
        }
        return next;
    }
}
