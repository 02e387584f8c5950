package io.weir.config;

import io.weir.logging.Secrets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How to reach Kafka: the bootstrap servers and extra client properties, given to every client
 * ({@code properties}) or to one kind of client only ({@code consumer}, {@code producer},
 * {@code admin}). The {@code ...Properties()} methods merge them, the more specific map winning,
 * into what a client is created with. Properties that Weir sets itself are refused at loading.
 * {@code replicationFactor} is that of the topics Weir creates (internal and output), {@link
 * #BROKER_DEFAULT} for the broker's {@code default.replication.factor}.
 */
public record KafkaConfig(
        String bootstrap,
        Map<String, String> properties,
        Map<String, String> consumer,
        Map<String, String> producer,
        Map<String, String> admin,
        int replicationFactor) {

    public static final String DEFAULT_BOOTSTRAP = "localhost:9092";
    public static final int BROKER_DEFAULT = -1;
    /** The source consumer's session timeout unless {@code kafka.consumer} gives one (Kafka's is 45 s). */
    public static final int SOURCE_SESSION_TIMEOUT_MS = 30_000;
    /** How often the source consumer heartbeats unless {@code kafka.consumer} says (Kafka's: 3 s). */
    public static final int SOURCE_HEARTBEAT_INTERVAL_MS = 200;

    /** Bootstrap servers and client properties; topics get the broker's replication factor. */
    public KafkaConfig(
            String bootstrap,
            Map<String, String> properties,
            Map<String, String> consumer,
            Map<String, String> producer,
            Map<String, String> admin) {
        this(bootstrap, properties, consumer, producer, admin, BROKER_DEFAULT);
    }

    public KafkaConfig {
        Objects.requireNonNull(bootstrap, "bootstrap");
        if (bootstrap.isBlank()) {
            throw new IllegalArgumentException("kafka.bootstrap must not be empty");
        }
        properties = copy(properties);
        consumer = copy(consumer);
        producer = copy(producer);
        admin = copy(admin);
        if (replicationFactor != BROKER_DEFAULT && (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE)) {
            throw new IllegalArgumentException("kafka.replication-factor must be at least 1, was " + replicationFactor);
        }
    }

    /** Bootstrap servers, the shared properties and the consumer's own. */
    public Map<String, String> consumerProperties() {
        return merged(consumer);
    }

    /** Bootstrap servers, the shared properties and the producers' own. */
    public Map<String, String> producerProperties() {
        return merged(producer);
    }

    /** Bootstrap servers, the shared properties and the admin client's own. */
    public Map<String, String> adminProperties() {
        return merged(admin);
    }

    private Map<String, String> merged(Map<String, String> specific) {
        Map<String, String> merged = new LinkedHashMap<>();
        merged.put("bootstrap.servers", bootstrap);
        merged.putAll(properties);
        merged.putAll(specific);
        return Collections.unmodifiableMap(merged);
    }

    /** The configuration with secret property values masked: safe to log or print. */
    @Override
    public String toString() {
        return "KafkaConfig[bootstrap=" + bootstrap
                + ", properties=" + Secrets.redacted(properties)
                + ", consumer=" + Secrets.redacted(consumer)
                + ", producer=" + Secrets.redacted(producer)
                + ", admin=" + Secrets.redacted(admin) + "]";
    }

    private static Map<String, String> copy(Map<String, String> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(map)));
    }
}
