package io.weir.config;

import io.weir.expr.Expression;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An output: the topic written, how record values and keys are encoded (values JSON, keys text
 * unless configured), and optionally a CEL expression giving each output record's key (the
 * current key otherwise). It is the pipeline's last step or one case of a {@link RouteStep}.
 */
public record SinkStep(String topic, Format format, Format keyFormat, Optional<Expression> key)
        implements TerminalStep {

    public SinkStep {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(keyFormat, "keyFormat");
        Objects.requireNonNull(key, "key");
        if (!ConfigShape.TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("sink topic is not a valid topic name: " + topic);
        }
    }

    /** A sink with text keys that keeps each record's key. */
    public SinkStep(String topic, Format format) {
        this(topic, format, Format.STRING, Optional.empty());
    }

    @Override
    public String type() {
        return "sink";
    }

    @Override
    public List<SinkStep> sinks() {
        return List.of(this);
    }
}
