package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weir.fixtures.MemorySnapshotStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;

/**
 * The copy-on-write memory store against a reference {@link TreeMap}: random puts, deletes,
 * snapshots, late writes of snapshot parts (in any order, some cancelled) and restores. After every
 * step the store reads exactly like the model; every written snapshot restores to the model as it
 * was when the snapshot was taken.
 */
class MemoryStateStoreProperties {
    /** Keys of up to two bytes over an alphabet at the edges of signed and unsigned order. */
    private static final List<byte[]> KEYS = keys();

    private static final HexFormat HEX = HexFormat.of();

    sealed interface Op {}

    record Put(int key, byte[] value) implements Op {
        @Override
        public String toString() {
            return "Put(" + HEX.formatHex(KEYS.get(key)) + "=" + HEX.formatHex(value) + ")";
        }
    }

    record Delete(int key) implements Op {
        @Override
        public String toString() {
            return "Delete(" + HEX.formatHex(KEYS.get(key)) + ")";
        }
    }

    record Snapshot() implements Op {}

    /** Writes one of the snapshot parts not written yet (the pick-th, modulo their number). */
    record Write(int pick) implements Op {}

    /** Runs one unwritten part with its cancel flag set. */
    record Cancel(int pick) implements Op {}

    /** Replaces the store by a restore of one of the written snapshots. */
    record Restore(int pick) implements Op {}

    @Property(tries = 1000, seed = "7301")
    void theStoreAlwaysReadsLikeTheModelAndEverySnapshotRestoresItsMoment(@ForAll("operations") List<Op> ops)
            throws Exception {
        MemorySnapshotStore files = new MemorySnapshotStore();
        MemoryStateStore store = new MemoryStateStore("t-0");
        TreeMap<byte[], byte[]> model = newModel();
        List<Pending> unwritten = new ArrayList<>();
        List<Written> written = new ArrayList<>();
        long nextId = 1;
        for (Op op : ops) {
            if (op instanceof Put p) {
                store.put(KEYS.get(p.key()), p.value());
                model.put(KEYS.get(p.key()), p.value());
            } else if (op instanceof Delete d) {
                store.delete(KEYS.get(d.key()));
                model.remove(KEYS.get(d.key()));
            } else if (op instanceof Snapshot) {
                long id = nextId++;
                unwritten.add(new Pending(id, store.snapshot(id), copy(model)));
            } else if (op instanceof Write w && !unwritten.isEmpty()) {
                Pending p = unwritten.remove(w.pick() % unwritten.size());
                StateHandle handle = p.part().write(files, () -> false);
                Written done = new Written(p.id(), handle, p.expected());
                assertRestores(done, files);
                written.add(done);
            } else if (op instanceof Cancel c && !unwritten.isEmpty()) {
                Pending p = unwritten.remove(c.pick() % unwritten.size());
                assertThrows(CancellationException.class, () -> p.part().write(files, () -> true));
            } else if (op instanceof Restore r && !written.isEmpty()) {
                Written w = written.get(r.pick() % written.size());
                store = MemoryStateStore.restore(new RestorePoint("t-0", 1, w.handle()), "restored", files);
                model = copy(w.expected());
            }
            assertReadsLike(model, store);
        }
        for (Written w : written) {
            assertRestores(w, files);
        }
        // Parts of a store that was replaced by a restore still write their own moment.
        for (Pending p : unwritten) {
            assertRestores(new Written(p.id(), p.part().write(files, () -> false), p.expected()), files);
        }
    }

    private record Pending(long id, SnapshotPart part, TreeMap<byte[], byte[]> expected) {}

    private record Written(long id, StateHandle handle, TreeMap<byte[], byte[]> expected) {}

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMaxSize(3);
        Arbitrary<Integer> keys = Arbitraries.integers().between(0, KEYS.size() - 1);
        Arbitrary<Integer> picks = Arbitraries.integers().between(0, 7);
        Arbitrary<Op> op = Combinators.combine(
                        Arbitraries.integers().between(0, 19).withDistribution(RandomDistribution.uniform()),
                        keys,
                        values,
                        picks)
                .as((kind, key, value, pick) -> {
                    if (kind < 8) {
                        return new Put(key, value);
                    } else if (kind < 12) {
                        return new Delete(key);
                    } else if (kind < 15) {
                        return new Snapshot();
                    } else if (kind < 18) {
                        return new Write(pick);
                    } else if (kind < 19) {
                        return new Restore(pick);
                    }
                    return new Cancel(pick);
                });
        return op.list().ofMaxSize(80);
    }

    private static void assertRestores(Written w, MemorySnapshotStore files) throws Exception {
        assertReadsLike(
                w.expected(),
                MemoryStateStore.restore(new RestorePoint("t-0", 1, w.handle()), "restored", files),
                "snapshot " + w.id());
    }

    private static void assertReadsLike(TreeMap<byte[], byte[]> model, StateStore store) {
        assertReadsLike(model, store, "live store");
    }

    private static void assertReadsLike(TreeMap<byte[], byte[]> model, StateStore store, String what) {
        assertEquals(render(model.entrySet().iterator()), render(store.scan(new byte[0])), what + ": full scan");
        for (byte[] prefix : KEYS) {
            byte[] end = Bytes.prefixEnd(prefix);
            Map<byte[], byte[]> range =
                    end == null ? model.tailMap(prefix, true) : model.subMap(prefix, true, end, false);
            assertEquals(
                    render(range.entrySet().iterator()),
                    render(store.scan(prefix)),
                    what + ": scan of " + HEX.formatHex(prefix));
        }
        for (byte[] key : KEYS) {
            byte[] expected = model.get(key);
            byte[] actual = store.get(key);
            if (expected == null) {
                assertEquals(null, actual, what + ": get " + HEX.formatHex(key));
            } else {
                assertArrayEquals(expected, actual, what + ": get " + HEX.formatHex(key));
            }
        }
    }

    private static List<String> render(Iterator<Map.Entry<byte[], byte[]>> entries) {
        List<String> out = new ArrayList<>();
        entries.forEachRemaining(e -> out.add(HEX.formatHex(e.getKey()) + "=" + HEX.formatHex(e.getValue())));
        return out;
    }

    private static TreeMap<byte[], byte[]> newModel() {
        return new TreeMap<>(Arrays::compareUnsigned);
    }

    private static TreeMap<byte[], byte[]> copy(TreeMap<byte[], byte[]> model) {
        TreeMap<byte[], byte[]> copy = newModel();
        model.forEach((k, v) -> copy.put(k, v.clone()));
        return copy;
    }

    private static List<byte[]> keys() {
        byte[] alphabet = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFF};
        List<byte[]> keys = new ArrayList<>();
        keys.add(new byte[0]);
        for (byte a : alphabet) {
            keys.add(new byte[] {a});
            for (byte b : alphabet) {
                keys.add(new byte[] {a, b});
            }
        }
        return List.copyOf(keys);
    }
}
