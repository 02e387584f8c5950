package io.weir.state;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The memory backend: a copy-on-write map whose synchronous snapshot part is O(1).
 *
 * <p>Design. The map is a stack of layers: one mutable {@code active} layer on top of frozen,
 * never-again-modified layers. A write goes to the active layer (a removal writes a tombstone while
 * frozen layers exist); a read looks from the newest layer down. The synchronous part of a snapshot
 * freezes the active layer and starts a new empty one — no copying — and hands the frozen stack to
 * the asynchronous part, which merges it into one map, serialises it, and offers the merged map
 * back. The task thread swaps the merged map in for the layers it replaces at its next snapshot, so
 * the stack stays a few layers deep. Values are byte arrays owned by the store, so nothing a
 * snapshot holds can change under it. This is Flink's {@code CopyOnWriteStateMap} idea with layers
 * instead of per-entry versions.
 *
 * <p>Threading: the task thread does everything except the asynchronous part, which only reads
 * frozen layers and publishes its merged result through {@link #compacted}.
 */
public final class MemoryStateStore implements StateStore {
    static final String BACKEND = "memory";
    private static final int FORMAT = 0x57454D31; // "WEM1"
    private static final byte[] TOMBSTONE = new byte[0];

    private final String task;
    /** Makes file names unique per store instance, so a retried checkpoint id never reuses a name. */
    private final String generation;

    private RestoreSizes restoreSizes = RestoreSizes.NONE;

    private TreeMap<Bytes, byte[]> active = new TreeMap<>();
    /** Oldest first. Frozen layers are never modified again. */
    private List<NavigableMap<Bytes, byte[]>> frozen = new ArrayList<>();

    private final AtomicReference<Compaction> compacted = new AtomicReference<>();

    private record Compaction(List<NavigableMap<Bytes, byte[]>> replaced, NavigableMap<Bytes, byte[]> merged) {}

    public MemoryStateStore(String task) {
        this(
                task,
                Long.toHexString(
                        java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 16));
    }

    public MemoryStateStore(String task, String generation) {
        this.task = task;
        this.generation = generation;
    }

    /** Restores a store from the file its snapshot wrote. */
    public static MemoryStateStore restore(RestorePoint from, String generation, SnapshotStore store)
            throws StateRestoreException {
        MemoryStateStore restored = new MemoryStateStore(from.task(), generation);
        for (StoredFile file : from.handle().files()) {
            try {
                restored.readInto(store.read(file));
            } catch (IOException e) {
                throw new StateRestoreException(from, file.name(), e.getMessage(), e);
            }
        }
        restored.restoreSizes = new RestoreSizes(
                0, from.handle().files().stream().mapToLong(StoredFile::size).sum());
        return restored;
    }

    @Override
    public RestoreSizes restoreSizes() {
        return restoreSizes;
    }

    @Override
    public byte[] get(byte[] key) {
        byte[] v = held(key);
        // A copy: the array may sit in a frozen layer an in-flight snapshot is serialising.
        return v == null ? null : v.clone();
    }

    @Override
    public <T> T read(byte[] key, Serde<T> serde) {
        if (!serde.copiesOut()) {
            return StateStore.super.read(key, serde);
        }
        byte[] v = held(key); // never written in place: a serde that copies out may read it
        return v == null ? null : serde.deserialize(v);
    }

    /** The array held for {@code key}, or null. */
    private byte[] held(byte[] key) {
        Bytes k = new Bytes(key);
        byte[] v = active.get(k);
        for (int i = frozen.size() - 1; v == null && i >= 0; i--) {
            v = frozen.get(i).get(k);
        }
        return v == TOMBSTONE ? null : v;
    }

    @Override
    public void put(byte[] key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("state values must not be null; delete the key instead");
        }
        // A copy: the caller may reuse its array, and a frozen layer must never change. (A copy of a
        // zero-length value is also never the tombstone instance.)
        active.put(new Bytes(key.clone()), value.clone());
    }

    @Override
    public void delete(byte[] key) {
        if (frozen.isEmpty()) {
            active.remove(new Bytes(key));
        } else {
            active.put(new Bytes(key.clone()), TOMBSTONE);
        }
    }

    @Override
    public Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix) {
        byte[] end = Bytes.prefixEnd(prefix);
        List<NavigableMap<Bytes, byte[]>> layers = new ArrayList<>(frozen.size() + 1);
        layers.addAll(frozen);
        layers.add(active);
        List<Iterator<Map.Entry<Bytes, byte[]>>> ranges = new ArrayList<>(layers.size());
        for (NavigableMap<Bytes, byte[]> layer : layers) {
            NavigableMap<Bytes, byte[]> range = end == null
                    ? layer.tailMap(new Bytes(prefix), true)
                    : layer.subMap(new Bytes(prefix), true, new Bytes(end), false);
            ranges.add(range.entrySet().iterator());
        }
        return new MergedIterator(ranges);
    }

    @Override
    public SnapshotPart snapshot(long checkpointId) {
        applyCompaction();
        if (!active.isEmpty()) {
            frozen.add(Collections.unmodifiableNavigableMap(active));
            active = new TreeMap<>();
        }
        List<NavigableMap<Bytes, byte[]>> captured = List.copyOf(frozen);
        return (snapshots, cancelled) -> {
            NavigableMap<Bytes, byte[]> merged = merge(captured);
            if (captured.size() > 1) {
                compacted.set(new Compaction(captured, merged));
            }
            if (cancelled.getAsBoolean()) {
                throw new CancellationException("snapshot " + checkpointId + " of " + task + " cancelled");
            }
            byte[] content = serialise(merged);
            String name = task + "/" + generation + "/memory-" + checkpointId + ".bin";
            return new StateHandle(BACKEND, List.of(snapshots.write(name, content)));
        };
    }

    @Override
    public long approximateEntries() {
        long n = active.size();
        for (NavigableMap<Bytes, byte[]> layer : frozen) {
            n += layer.size();
        }
        return n;
    }

    /** How many layers a read may visit; kept small by compaction. For tests and metrics. */
    int layers() {
        return frozen.size() + 1;
    }

    @Override
    public void close() {
        active = new TreeMap<>();
        frozen = new ArrayList<>();
    }

    /** Swaps a merged map in for the frozen layers it was built from, if they are still there. */
    private void applyCompaction() {
        Compaction c = compacted.getAndSet(null);
        if (c == null || c.replaced.size() > frozen.size()) {
            return;
        }
        for (int i = 0; i < c.replaced.size(); i++) {
            if (frozen.get(i) != c.replaced.get(i)) {
                return;
            }
        }
        List<NavigableMap<Bytes, byte[]>> next = new ArrayList<>();
        next.add(Collections.unmodifiableNavigableMap(c.merged));
        next.addAll(frozen.subList(c.replaced.size(), frozen.size()));
        frozen = next;
    }

    private static NavigableMap<Bytes, byte[]> merge(List<NavigableMap<Bytes, byte[]>> layers) {
        if (layers.size() == 1 && !layers.get(0).containsValue(TOMBSTONE)) {
            return layers.get(0);
        }
        TreeMap<Bytes, byte[]> merged = new TreeMap<>();
        for (NavigableMap<Bytes, byte[]> layer : layers) {
            for (Map.Entry<Bytes, byte[]> e : layer.entrySet()) {
                if (e.getValue() == TOMBSTONE) {
                    merged.remove(e.getKey());
                } else {
                    merged.put(e.getKey(), e.getValue());
                }
            }
        }
        return merged;
    }

    private static byte[] serialise(NavigableMap<Bytes, byte[]> map) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + map.size() * 48);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(FORMAT);
        out.writeInt(map.size());
        for (Map.Entry<Bytes, byte[]> e : map.entrySet()) {
            out.writeInt(e.getKey().array().length);
            out.write(e.getKey().array());
            out.writeInt(e.getValue().length);
            out.write(e.getValue());
        }
        out.flush();
        return bytes.toByteArray();
    }

    private void readInto(byte[] content) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(content));
        int format = in.readInt();
        if (format != FORMAT) {
            throw new IOException("state file of " + task + " has format " + Integer.toHexString(format) + ", expected "
                    + Integer.toHexString(FORMAT));
        }
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
            byte[] k = in.readNBytes(in.readInt());
            byte[] v = in.readNBytes(in.readInt());
            active.put(new Bytes(k), v);
        }
    }

    /** A k-way merge of sorted layers; the newest layer wins a key, tombstones hide it. */
    private static final class MergedIterator implements Iterator<Map.Entry<byte[], byte[]>> {
        private record Head(Map.Entry<Bytes, byte[]> entry, int layer, Iterator<Map.Entry<Bytes, byte[]>> rest) {}

        private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> {
            int c = a.entry.getKey().compareTo(b.entry.getKey());
            return c != 0 ? c : Integer.compare(b.layer, a.layer); // newest layer first
        });
        private Map.Entry<byte[], byte[]> next;

        MergedIterator(List<Iterator<Map.Entry<Bytes, byte[]>>> layers) {
            for (int i = 0; i < layers.size(); i++) {
                advance(layers.get(i), i);
            }
            next = computeNext();
        }

        private void advance(Iterator<Map.Entry<Bytes, byte[]>> it, int layer) {
            if (it.hasNext()) {
                heads.add(new Head(it.next(), layer, it));
            }
        }

        private Map.Entry<byte[], byte[]> computeNext() {
            while (!heads.isEmpty()) {
                Head top = heads.poll();
                Bytes key = top.entry.getKey();
                advance(top.rest, top.layer);
                while (!heads.isEmpty() && heads.peek().entry.getKey().equals(key)) {
                    Head older = heads.poll();
                    advance(older.rest, older.layer);
                }
                if (top.entry.getValue() != TOMBSTONE) {
                    // Copies: a caller changing them would change the map (and the frozen layers).
                    return new AbstractMap.SimpleImmutableEntry<>(
                            key.array().clone(), top.entry.getValue().clone());
                }
            }
            return null;
        }

        @Override
        public boolean hasNext() {
            return next != null;
        }

        @Override
        public Map.Entry<byte[], byte[]> next() {
            if (next == null) {
                throw new NoSuchElementException();
            }
            Map.Entry<byte[], byte[]> result = next;
            next = computeNext();
            return result;
        }
    }
}
