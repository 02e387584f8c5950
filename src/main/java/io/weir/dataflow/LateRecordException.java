package io.weir.dataflow;

/**
 * A record whose window the watermark already closed. The task sends the input record to
 * {@code topic} (the step's {@code late} topic) or, when null, to the dead-letter topic, with
 * {@code weir.error=late} either way, and counts it in {@link Counters#late}: late data is never
 * silently dropped.
 */
public final class LateRecordException extends BadRecordException {
    private final String topic;

    public LateRecordException(String topic) {
        this(topic, null);
    }

    private LateRecordException(String topic, String step) {
        super("late", step, null, null);
        this.topic = topic;
    }

    /** Where the record goes; null for the dead-letter topic. */
    public String topic() {
        return topic;
    }

    @Override
    public BadRecordException at(String stepName) {
        return step() != null ? this : new LateRecordException(topic, stepName);
    }
}
