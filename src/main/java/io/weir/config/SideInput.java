package io.weir.config;

import io.weir.expr.Expression;
import java.util.Objects;
import java.util.Optional;

/**
 * A second topic a step reads besides the source: the other stream of a {@code join} ({@code with})
 * or the table of a {@code lookup} ({@code table}). It is co-partitioned with the source (task p
 * reads partition p of both), decoded by its own formats, and timed by its own {@code timestamp}
 * expression when given, else the join's side by the source's and a table by the Kafka timestamps.
 */
public record SideInput(String topic, Format format, Format keyFormat, Optional<Expression> timestamp) {
    public SideInput {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(keyFormat, "keyFormat");
        Objects.requireNonNull(timestamp, "timestamp");
        if (!ConfigShape.TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("not a valid topic name: " + topic);
        }
    }
}
