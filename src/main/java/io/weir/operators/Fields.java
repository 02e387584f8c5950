package io.weir.operators;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A JSON object of a few fields as two arrays, names and values, in order: a small decoded object
 * (see {@link Json#decode}) or an operator's output with a fixed set of names (an aggregate's row,
 * whose names every record shares). It is a read-only {@code Map} — equal to a
 * {@code LinkedHashMap} with the same entries, iterated in order — that costs two or three
 * allocations instead of a hash table and an entry per field; lookups scan the few names, and
 * {@link Json} writes it straight from its arrays.
 */
final class Fields extends AbstractMap<String, Object> {
    private final String[] names;
    private final Object[] values;
    private final int size;

    /** {@code names} must not repeat and is shared, not copied; {@code values} is owned from now on. */
    Fields(String[] names, Object[] values) {
        this(names, values, names.length);
    }

    /** The first {@code size} names and values of the arrays, which this map owns from now on. */
    Fields(String[] names, Object[] values, int size) {
        if (size > names.length || size > values.length) {
            throw new IllegalArgumentException(
                    size + " fields of " + names.length + " names and " + values.length + " values");
        }
        this.names = names;
        this.values = values;
        this.size = size;
    }

    String name(int i) {
        return names[i];
    }

    Object value(int i) {
        return values[i];
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Object get(Object key) {
        for (int i = 0; i < size; i++) {
            if (names[i].equals(key)) {
                return values[i];
            }
        }
        return null;
    }

    @Override
    public boolean containsKey(Object key) {
        for (int i = 0; i < size; i++) {
            if (names[i].equals(key)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return size;
            }

            @Override
            public Iterator<Map.Entry<String, Object>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    public Map.Entry<String, Object> next() {
                        if (next >= size) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new AbstractMap.SimpleImmutableEntry<>(names[i], values[i]);
                    }
                };
            }
        };
    }
}
