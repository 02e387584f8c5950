package io.weir.state;

import static io.weir.state.StateStoreContract.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks are opened and closed on every assignment, revocation and failover: the RocksDB backend
 * must give back every native handle each time. Open file descriptors are the visible part (every
 * SST, log and lock file a database holds is one).
 */
class RocksDbNativeResourcesTest {
    private static final RocksDbSettings SMALL = new RocksDbSettings(8 << 20, 1 << 20);
    /** Descriptors the JVM may open meanwhile for its own reasons (class loading, test reports). */
    private static final long SLACK = 4;

    @TempDir
    Path dir;

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    /** One task's life: open (restored if there is a checkpoint), work, checkpoint, half a scan, close. */
    private static RestorePoint live(
            RocksDbBackend backend, SnapshotStore snapshots, String task, RestorePoint from, int round)
            throws IOException {
        try (StateStore store = backend.open(task, "g" + round, from, snapshots)) {
            for (int i = 0; i < 200; i++) {
                store.put(bytes("k" + i), bytes("round " + round));
            }
            StateHandle h = store.snapshot(round).write(snapshots, () -> false);
            store.checkpointCompleted(round, h);
            Iterator<Map.Entry<byte[], byte[]>> abandoned = store.scan(bytes("k"));
            abandoned.next();
            return new RestorePoint(task, round, h);
        }
    }

    @Test
    void openingAndClosingManyTasksLeaksNoFileDescriptors() throws IOException {
        SnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        try (RocksDbBackend warmUp = new RocksDbBackend(dir.resolve("warm-up"), SMALL)) {
            live(warmUp, snapshots, "warm-0", null, 1); // loads the library and starts RocksDB's thread pools
        }
        long before = openDescriptors();
        try (RocksDbBackend backend = new RocksDbBackend(dir.resolve("state"), SMALL)) {
            List<RestorePoint> points = new ArrayList<>();
            for (int t = 0; t < 60; t++) {
                points.add(live(backend, snapshots, "job-" + t, null, 1));
            }
            for (int t = 0; t < 60; t++) {
                live(backend, snapshots, "job-" + t, points.get(t), 2); // a failover: restored in place
            }
            assertEquals(0, backend.openStores());
        }
        long after = openDescriptors();
        assertTrue(after <= before + SLACK, "open descriptors went from " + before + " to " + after);
    }

    @Test
    void closingTheBackendClosesTheStoresStillOpen() throws IOException {
        SnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        try (RocksDbBackend warmUp = new RocksDbBackend(dir.resolve("warm-up"), SMALL)) {
            live(warmUp, snapshots, "warm-0", null, 1);
        }
        long before = openDescriptors();
        RocksDbBackend backend = new RocksDbBackend(dir.resolve("state"), SMALL);
        List<StateStore> stores = new ArrayList<>();
        for (int t = 0; t < 20; t++) {
            StateStore s = backend.open("job-" + t, "g", null, snapshots);
            s.put(bytes("k"), bytes("v"));
            stores.add(s);
        }
        backend.close();
        long after = openDescriptors();
        assertTrue(after <= before + SLACK, "open descriptors went from " + before + " to " + after);
        // A late call fails in Java instead of touching freed native memory.
        assertThrows(IllegalStateException.class, () -> stores.get(0).get(bytes("k")));
    }
}
