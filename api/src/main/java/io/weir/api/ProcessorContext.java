package io.weir.api;

/**
 * What a {@link Processor} may use, given to {@link Processor#open}: keyed state, timers, clocks
 * and the step's settings.
 *
 * <p>State is keyed: a state handle made once (in {@code open}) reads and writes the state of the
 * key being handled at the time of each call. Values are stored as JSON through Jackson, so records,
 * POJOs with a default constructor, {@code String}, {@code Long}, {@code Map} and {@code List} all
 * work; a JSON integer read back into {@code Object} or {@code Map} is a {@code Long}, and fields a
 * class no longer has are ignored when reading older state. Generic element types are not kept: a
 * {@code List} state value reads back as a list of maps, so store a record or a POJO instead.
 *
 * <p>State names are this processor's own (two process steps may both use {@code "count"}); one
 * name is one state, so giving a name to two kinds of state, or two types, is refused.
 */
public interface ProcessorContext {
    /** A single value per key, stored as JSON of {@code type}. */
    <T> ValueState<T> valueState(String name, Class<T> type);

    /** A map per key, keys and values stored as JSON of their types. */
    <K, V> MapState<K, V> mapState(String name, Class<K> keyType, Class<V> valueType);

    /** A list per key, items stored as JSON of {@code type}. */
    <T> ListState<T> listState(String name, Class<T> type);

    /** This processor's timers, for the key being handled. */
    Timers timers();

    /** Processing time in milliseconds since the epoch: the runtime's clock. */
    long currentProcessingTime();

    /**
     * Event time: no record with a timestamp at or below it is expected any more
     * ({@code Long.MIN_VALUE} until the first watermark).
     */
    long currentWatermark();

    /** The step's {@code with:} mapping. */
    Settings settings();

    /** The name of the task running this instance ({@code <stage>-<partition>}), for logs. */
    String taskName();
}
