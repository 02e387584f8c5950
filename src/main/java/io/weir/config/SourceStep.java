package io.weir.config;

import java.util.Objects;

/**
 * The pipeline's input: the topic read and how its record values and keys are decoded (values
 * JSON, keys text unless configured).
 */
public record SourceStep(String topic, Format format, Format keyFormat) implements Step {

    public SourceStep {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(keyFormat, "keyFormat");
        if (!ConfigShape.TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("source topic is not a valid topic name: " + topic);
        }
    }

    /** A source with text keys. */
    public SourceStep(String topic, Format format) {
        this(topic, format, Format.STRING);
    }

    @Override
    public String type() {
        return "source";
    }
}
