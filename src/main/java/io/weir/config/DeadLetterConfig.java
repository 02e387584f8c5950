package io.weir.config;

import java.util.Objects;

/**
 * Where records that cannot be processed (undecodable, failing an operator) are sent instead of
 * stopping the job: a topic, {@code <application>-dlq} unless configured, and what to do with one
 * too large for that topic.
 */
public record DeadLetterConfig(String topic, Oversized oversized) {

    /**
     * What to do with a dead letter larger than the topic accepts: cut its key and value to fit, or
     * drop them; either way the provenance headers stay and a header says what was cut.
     */
    public enum Oversized {
        TRUNCATE,
        DROP
    }

    public DeadLetterConfig(String topic) {
        this(topic, Oversized.TRUNCATE);
    }

    public DeadLetterConfig {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(oversized, "oversized");
        if (!ConfigShape.TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("dead-letter topic is not a valid topic name: " + topic);
        }
    }

    /** The dead-letter topic an application gets when none is configured. */
    public static String defaultTopic(String application) {
        return application + "-dlq";
    }
}
