package io.weir.config;

import io.weir.expr.Expression;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The pipeline's input: the topic read and how its record values and keys are decoded (values
 * JSON, keys text unless configured), and its event time: {@code timestamp}, a CEL expression
 * giving epoch milliseconds (an int) or an RFC 3339 string (absent: the Kafka record timestamp),
 * and {@code watermark}, how far records may come out of order and when an input partition that
 * delivers nothing stops holding event time back.
 */
public record SourceStep(
        String topic, Format format, Format keyFormat, Optional<Expression> timestamp, Optional<Watermark> watermark)
        implements Step {

    /**
     * {@code watermark: { max-out-of-orderness: 2s, idle-after: 10s }}: a partition's watermark is
     * the highest timestamp read from it minus {@code maxOutOfOrderness}; a partition idle for
     * {@code idleAfter} of processing time (absent: never) no longer holds the task's back.
     */
    public record Watermark(Duration maxOutOfOrderness, Optional<Duration> idleAfter) {
        public Watermark {
            Objects.requireNonNull(maxOutOfOrderness, "maxOutOfOrderness");
            Objects.requireNonNull(idleAfter, "idleAfter");
            if (maxOutOfOrderness.isNegative()) {
                throw new IllegalArgumentException("max-out-of-orderness must not be negative");
            }
            if (idleAfter.isPresent()
                    && (idleAfter.get().isZero() || idleAfter.get().isNegative())) {
                throw new IllegalArgumentException("idle-after must be positive");
            }
        }
    }

    public SourceStep {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(keyFormat, "keyFormat");
        Objects.requireNonNull(timestamp, "timestamp");
        Objects.requireNonNull(watermark, "watermark");
        if (!ConfigShape.TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("source topic is not a valid topic name: " + topic);
        }
    }

    /** A source with the Kafka timestamps and no watermark settings. */
    public SourceStep(String topic, Format format, Format keyFormat) {
        this(topic, format, keyFormat, Optional.empty(), Optional.empty());
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
