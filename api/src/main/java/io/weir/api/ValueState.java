package io.weir.api;

/** One value per key (see {@link ProcessorContext#valueState}); checkpointed with the task. */
public interface ValueState<T> {
    /** The current key's value, or null when there is none. */
    T value();

    /** Sets the current key's value; null clears it. */
    void update(T value);

    /** Removes the current key's value. */
    void clear();
}
