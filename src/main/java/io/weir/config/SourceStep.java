package io.weir.config;

import java.util.Objects;

/** The pipeline's input: the topic read and how its record values are decoded. */
public record SourceStep(String topic, Format format) implements Step {

    public SourceStep {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(format, "format");
        if (!ConfigShape.TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("source topic is not a valid topic name: " + topic);
        }
    }

    @Override
    public String type() {
        return "source";
    }
}
