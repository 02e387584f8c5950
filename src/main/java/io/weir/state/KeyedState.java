package io.weir.state;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The typed keyed-state API of one task over its {@link StateStore}. The task sets the current key
 * before each record or timer; every state object reads and writes that key's entries.
 *
 * <p>Key layout in the store: state entries are {@code 0x01, name length, name, key length (4),
 * key, user key}; timers are {@code 0x02, domain, timestamp (8, sign-flipped so unsigned order is
 * time order), owner length, owner, key}; the task's own entries (such as its watermarks) are
 * {@code 0x03, name}. The layout is the same for every backend, so snapshots of one can be compared
 * with another's.
 *
 * <p>Threading: the task thread only.
 */
public final class KeyedState {
    private static final byte STATE = 0x01;
    private static final byte TIMER = 0x02;
    private static final byte TASK = 0x03;

    private final StateStore store;
    private byte[] currentKey = new byte[0];
    /**
     * Per timer domain, no timer is due before this time: lowered by every registration, learnt
     * from each scan; MIN_VALUE (unknown, as after a restore) makes the next take scan.
     */
    private final long[] earliestTimer = {Long.MIN_VALUE, Long.MIN_VALUE};
    /**
     * Per domain, no timer below this time exists: the next scan for due timers seeks here instead of
     * stepping again over the deleted ones before it (RocksDB keeps them as tombstones for a while).
     */
    private final long[] scanFrom = {Long.MIN_VALUE, Long.MIN_VALUE};

    /**
     * The kind of state each name stands for. A value state's key is its namespace and the record's
     * key, the very prefix a map state of the same name scans, and the store keeps a value state's
     * keys out of what scans see ({@link StateStore#putPoint}): one name is one kind.
     */
    private final java.util.Map<String, String> kinds = new java.util.HashMap<>();

    public KeyedState(StateStore store) {
        this.store = store;
    }

    private void claim(String name, String kind) {
        String before = kinds.putIfAbsent(name, kind);
        if (before != null && !before.equals(kind)) {
            throw new IllegalArgumentException("state '" + name + "' is a " + before + " already, not a " + kind);
        }
    }

    public StateStore store() {
        return store;
    }

    public void setCurrentKey(byte[] key) {
        currentKey = key == null ? new byte[0] : key;
    }

    public byte[] currentKey() {
        return currentKey;
    }

    public <T> ValueState<T> valueState(String name, Serde<T> serde) {
        claim(name, "value state");
        byte[] ns = namespace(name);
        return new ValueState<>() {
            /** The store key of the current key, kept while the current key stays (read, then update). */
            private byte[] keyOf;

            private byte[] storeKey;

            private byte[] storeKey() {
                if (keyOf != currentKey) {
                    keyOf = currentKey;
                    storeKey = prefix(ns);
                }
                return storeKey;
            }

            @Override
            public T value() {
                return store.read(storeKey(), serde);
            }

            @Override
            public void update(T value) {
                if (value == null) {
                    clear();
                } else {
                    store.putPoint(storeKey(), serde.serialize(value));
                }
            }

            @Override
            public void clear() {
                store.deletePoint(storeKey());
            }
        };
    }

    public <K, V> MapState<K, V> mapState(String name, Serde<K> keys, Serde<V> values) {
        claim(name, "map state");
        byte[] ns = namespace(name);
        return new MapState<>() {
            @Override
            public V get(K key) {
                return store.read(concat(prefix(ns), keys.serialize(key)), values);
            }

            @Override
            public void put(K key, V value) {
                store.put(concat(prefix(ns), keys.serialize(key)), values.serialize(value));
            }

            @Override
            public void remove(K key) {
                store.delete(concat(prefix(ns), keys.serialize(key)));
            }

            @Override
            public boolean contains(K key) {
                return store.get(concat(prefix(ns), keys.serialize(key))) != null;
            }

            @Override
            public List<Map.Entry<K, V>> entries() {
                byte[] p = prefix(ns);
                List<Map.Entry<K, V>> out = new ArrayList<>();
                for (Iterator<Map.Entry<byte[], byte[]>> it = store.scan(p); it.hasNext(); ) {
                    Map.Entry<byte[], byte[]> e = it.next();
                    K k = keys.deserialize(Arrays.copyOfRange(e.getKey(), p.length, e.getKey().length));
                    out.add(new AbstractMap.SimpleImmutableEntry<>(k, values.deserialize(e.getValue())));
                }
                return out;
            }

            @Override
            public void clear() {
                for (Map.Entry<K, V> e : entries()) {
                    remove(e.getKey());
                }
            }
        };
    }

    public <T> ListState<T> listState(String name, Serde<T> serde) {
        claim(name, "list state");
        byte[] ns = namespace(name);
        return new ListState<>() {
            @Override
            public List<T> get() {
                byte[] v = store.get(prefix(ns));
                List<T> out = new ArrayList<>();
                if (v != null) {
                    ByteBuffer buf = ByteBuffer.wrap(v);
                    while (buf.hasRemaining()) {
                        byte[] item = new byte[buf.getInt()];
                        buf.get(item);
                        out.add(serde.deserialize(item));
                    }
                }
                return out;
            }

            @Override
            public void add(T value) {
                byte[] old = store.get(prefix(ns));
                byte[] item = serde.serialize(value);
                int oldLength = old == null ? 0 : old.length;
                ByteBuffer buf = ByteBuffer.allocate(oldLength + 4 + item.length);
                if (old != null) {
                    buf.put(old);
                }
                store.put(prefix(ns), buf.putInt(item.length).put(item).array());
            }

            @Override
            public void update(List<T> items) {
                clear();
                for (T item : items) {
                    add(item);
                }
            }

            @Override
            public void clear() {
                store.delete(prefix(ns));
            }
        };
    }

    /**
     * An entry of the task itself rather than of a key, such as its watermarks: snapshotted and
     * restored with the keyed state. Null when absent.
     */
    public byte[] taskEntry(String name) {
        return store.get(taskKey(name));
    }

    public void putTaskEntry(String name, byte[] value) {
        store.put(taskKey(name), value);
    }

    /**
     * The record key an entry of the store belongs to: a state entry's or a timer's key (empty for
     * state kept under a null key); null for the task's own entries. What re-splits state by key
     * ({@link StateSplit}) reads; throws on a key of no layout above.
     */
    public static byte[] recordKeyOf(byte[] storeKey) {
        if (storeKey.length == 0) {
            throw new IllegalArgumentException("an empty key is not an entry of keyed state");
        }
        switch (storeKey[0]) {
            case STATE -> {
                int at = 2 + (storeKey.length > 1 ? storeKey[1] & 0xFF : 0);
                if (storeKey.length < at + 4) {
                    throw new IllegalArgumentException(
                            "a state entry's key too short for its key length: " + storeKey.length + " bytes");
                }
                int length = ByteBuffer.wrap(storeKey, at, 4).getInt();
                if (length < 0 || storeKey.length < at + 4 + length) {
                    throw new IllegalArgumentException("a state entry's key too short for its record key of " + length
                            + " bytes: " + storeKey.length + " bytes");
                }
                return Arrays.copyOfRange(storeKey, at + 4, at + 4 + length);
            }
            case TIMER -> {
                if (storeKey.length < 11 || storeKey.length < 11 + (storeKey[10] & 0xFF)) {
                    throw new IllegalArgumentException("a timer's key too short: " + storeKey.length + " bytes");
                }
                return Arrays.copyOfRange(storeKey, 11 + (storeKey[10] & 0xFF), storeKey.length);
            }
            case TASK -> {
                return null;
            }
            default ->
                throw new IllegalArgumentException("a key of no keyed-state layout (first byte " + storeKey[0] + ")");
        }
    }

    private static byte[] taskKey(String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + n.length).put(TASK).put(n).array();
    }

    /** The timers of one owner (an operator of the chain), so a fired timer reaches its owner only. */
    public Timers timers(String owner) {
        byte[] o = ownerBytes(owner);
        return new Timers() {
            @Override
            public void registerEventTime(long timestamp) {
                lowerEarliest(TimerDomain.EVENT_TIME, timestamp);
                store.put(timerKey(TimerDomain.EVENT_TIME, timestamp, o, currentKey), new byte[0]);
            }

            @Override
            public void deleteEventTime(long timestamp) {
                store.delete(timerKey(TimerDomain.EVENT_TIME, timestamp, o, currentKey));
            }

            @Override
            public void registerProcessingTime(long timestamp) {
                lowerEarliest(TimerDomain.PROCESSING_TIME, timestamp);
                store.put(timerKey(TimerDomain.PROCESSING_TIME, timestamp, o, currentKey), new byte[0]);
            }

            @Override
            public void deleteProcessingTime(long timestamp) {
                store.delete(timerKey(TimerDomain.PROCESSING_TIME, timestamp, o, currentKey));
            }
        };
    }

    /**
     * Removes and returns the timers of {@code domain} at or before {@code upTo}, earliest first.
     * The caller fires them; a timer registered while firing for a time already passed is returned
     * by the next call.
     */
    public List<Timer> takeDueTimers(TimerDomain domain, long upTo) {
        int d = domain.ordinal();
        if (upTo < earliestTimer[d] && earliestTimer[d] != Long.MIN_VALUE) {
            return List.of(); // no scan: nothing can be due yet
        }
        byte[] p = {TIMER, (byte) domain.ordinal()};
        byte[] from = ByteBuffer.allocate(10)
                .put(TIMER)
                .put((byte) domain.ordinal())
                .putLong(scanFrom[d] ^ Long.MIN_VALUE)
                .array();
        List<Timer> due = new ArrayList<>();
        earliestTimer[d] = Long.MAX_VALUE;
        scanFrom[d] = Math.max(scanFrom[d], upTo == Long.MAX_VALUE ? upTo : upTo + 1);
        for (Iterator<Map.Entry<byte[], byte[]>> it = store.scan(p, from); it.hasNext(); ) {
            byte[] k = it.next().getKey();
            long ts = ByteBuffer.wrap(k, 2, 8).getLong() ^ Long.MIN_VALUE;
            if (ts > upTo) {
                earliestTimer[d] = ts;
                break;
            }
            int ownerLength = k[10] & 0xFF;
            String owner = new String(k, 11, ownerLength, StandardCharsets.UTF_8);
            due.add(new Timer(owner, Arrays.copyOfRange(k, 11 + ownerLength, k.length), ts, domain));
        }
        for (Timer t : due) {
            store.delete(timerKey(domain, t.timestamp(), ownerBytes(t.owner()), t.key()));
        }
        return due;
    }

    private void lowerEarliest(TimerDomain domain, long timestamp) {
        int d = domain.ordinal();
        scanFrom[d] = Math.min(scanFrom[d], timestamp);
        if (earliestTimer[d] != Long.MIN_VALUE) {
            earliestTimer[d] = Math.min(earliestTimer[d], timestamp);
        }
    }

    private static byte[] timerKey(TimerDomain domain, long timestamp, byte[] owner, byte[] key) {
        return ByteBuffer.allocate(11 + owner.length + key.length)
                .put(TIMER)
                .put((byte) domain.ordinal())
                .putLong(timestamp ^ Long.MIN_VALUE)
                .put((byte) owner.length)
                .put(owner)
                .put(key)
                .array();
    }

    private static byte[] ownerBytes(String owner) {
        byte[] o = owner.getBytes(StandardCharsets.UTF_8);
        if (o.length > 255) {
            throw new IllegalArgumentException("timer owner must be at most 255 bytes, was '" + owner + "'");
        }
        return o;
    }

    private static byte[] namespace(String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        if (n.length == 0 || n.length > 255) {
            throw new IllegalArgumentException("state name must be 1..255 bytes, was '" + name + "'");
        }
        return ByteBuffer.allocate(2 + n.length)
                .put(STATE)
                .put((byte) n.length)
                .put(n)
                .array();
    }

    /** namespace, the key's length (4 bytes, big-endian), the key: one array, no buffer around it. */
    private byte[] prefix(byte[] namespace) {
        int n = namespace.length;
        byte[] out = Arrays.copyOf(namespace, n + 4 + currentKey.length);
        out[n] = (byte) (currentKey.length >>> 24);
        out[n + 1] = (byte) (currentKey.length >>> 16);
        out[n + 2] = (byte) (currentKey.length >>> 8);
        out[n + 3] = (byte) currentKey.length;
        System.arraycopy(currentKey, 0, out, n + 4, currentKey.length);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
