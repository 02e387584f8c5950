package io.weir.api;

import java.util.List;

/** A list per key (see {@link ProcessorContext#listState}); checkpointed with the task. */
public interface ListState<T> {
    /** A copy of the current key's list; empty when there is none. */
    List<T> get();

    /** Appends {@code value} (not null) to the current key's list. */
    void add(T value);

    /** Replaces the current key's list. */
    void update(List<T> values);

    /** Empties the current key's list. */
    void clear();
}
