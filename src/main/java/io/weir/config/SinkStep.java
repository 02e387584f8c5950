package io.weir.config;

import java.util.Objects;

/** The pipeline's output: the topic written and how record values are encoded. */
public record SinkStep(String topic, Format format) implements Step {

    public SinkStep {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(format, "format");
        if (!ConfigShape.TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("sink topic is not a valid topic name: " + topic);
        }
    }

    @Override
    public String type() {
        return "sink";
    }
}
