package io.weir.state;

import java.util.List;

/** A list per key; the key is the current record's key. */
public interface ListState<T> {
    /** A copy of the current key's list, empty when none. */
    List<T> get();

    void add(T value);

    void update(List<T> values);

    void clear();
}
