package io.weir.config;

import java.util.Objects;

/**
 * Where records that cannot be processed (undecodable, failing an operator) are sent instead of
 * stopping the job: a topic, {@code <application>-dlq} unless configured.
 */
public record DeadLetterConfig(String topic) {

    public DeadLetterConfig {
        Objects.requireNonNull(topic, "topic");
        if (!ConfigShape.TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("dead-letter topic is not a valid topic name: " + topic);
        }
    }

    /** The dead-letter topic an application gets when none is configured. */
    public static String defaultTopic(String application) {
        return application + "-dlq";
    }
}
