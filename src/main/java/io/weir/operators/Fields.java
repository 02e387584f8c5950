package io.weir.operators;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An operator's output object with a fixed set of field names in a fixed order (an aggregate's
 * row): the names are shared by every record, the values are one array. It is a read-only
 * {@code Map} like any decoded object — equal to a {@code LinkedHashMap} with the same entries,
 * iterated in order — that costs two allocations instead of a hash table and an entry per field,
 * and {@link Json} writes it straight from its arrays.
 */
final class Fields extends AbstractMap<String, Object> {
    private final String[] names;
    private final Object[] values;

    /** {@code names} must not repeat and is shared, not copied; {@code values} is owned from now on. */
    Fields(String[] names, Object[] values) {
        if (names.length != values.length) {
            throw new IllegalArgumentException(names.length + " names for " + values.length + " values");
        }
        this.names = names;
        this.values = values;
    }

    String name(int i) {
        return names[i];
    }

    Object value(int i) {
        return values[i];
    }

    @Override
    public int size() {
        return names.length;
    }

    @Override
    public Object get(Object key) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(key)) {
                return values[i];
            }
        }
        return null;
    }

    @Override
    public boolean containsKey(Object key) {
        for (String name : names) {
            if (name.equals(key)) {
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
                return names.length;
            }

            @Override
            public Iterator<Map.Entry<String, Object>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < names.length;
                    }

                    @Override
                    public Map.Entry<String, Object> next() {
                        if (next >= names.length) {
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
