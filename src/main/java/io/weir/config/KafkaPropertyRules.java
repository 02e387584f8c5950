package io.weir.config;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Checks Kafka client property values at loading the way the clients would when created: each
 * value is parsed with its property's type and checked by its validator from the client's own
 * {@link ConfigDef}, so a value a client would refuse is reported at its position instead of when
 * the job starts. Properties a client does not know are left alone (the clients only warn), and so
 * are class names, which may come from plugin jars. With exactly-once, producer settings that
 * would break it ({@code acks} other than all, idempotence off) are refused too.
 */
final class KafkaPropertyRules {

    /** A kind of Kafka client and its configuration definition. */
    private record Client(String name, ConfigDef def) {}

    private static final Client CONSUMER = new Client("consumer", ConsumerConfig.configDef());
    private static final Client PRODUCER = new Client("producer", ProducerConfig.configDef());
    private static final Client ADMIN = new Client("admin client", AdminClientConfig.configDef());

    private KafkaPropertyRules() {}

    /** The clients a property map of the kafka section is given to. */
    private static List<Client> clients(String map) {
        return switch (map) {
            case "consumer" -> List.of(CONSUMER);
            case "producer" -> List.of(PRODUCER);
            case "admin" -> List.of(ADMIN);
            default -> List.of(CONSUMER, PRODUCER, ADMIN);
        };
    }

    /**
     * Why the clients {@code map} is given to would refuse {@code value} for {@code name}, or
     * empty when none would.
     */
    static Optional<String> problem(String map, String name, String value) {
        for (Client client : clients(map)) {
            ConfigDef.ConfigKey key = client.def().configKeys().get(name);
            if (key == null || key.type == ConfigDef.Type.CLASS) {
                continue;
            }
            try {
                Object parsed = ConfigDef.parseType(name, value.strip(), key.type);
                if (key.validator != null) {
                    key.validator.ensureValid(name, parsed);
                }
            } catch (ConfigException e) {
                return Optional.of("the Kafka " + client.name() + " would refuse it: " + reason(e.getMessage(), name));
            }
        }
        return Optional.empty();
    }

    /**
     * Why an effective producer setting breaks exactly-once, or empty: {@code acks} must be
     * all (-1), {@code enable.idempotence} must stay true.
     */
    static Optional<String> exactlyOnceProblem(String name, String value) {
        String text = value.strip().toLowerCase(Locale.ROOT);
        if (name.equals(ProducerConfig.ACKS_CONFIG) && !text.equals("all") && !text.equals("-1")) {
            return Optional.of("must be all (or -1) with processing.guarantee exactly-once, which needs idempotent "
                    + "producers that wait for all in-sync replicas, was " + value.strip());
        }
        if (name.equals(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG) && text.equals("false")) {
            return Optional.of("must not be false with processing.guarantee exactly-once: transactions need "
                    + "idempotent producers, was " + value.strip());
        }
        return Optional.empty();
    }

    /** Kafka's message without the "Invalid value x for configuration y:" lead-in it repeats. */
    private static String reason(String message, String name) {
        String text = message == null ? "invalid value" : message.strip();
        String lead = " for configuration " + name + ": ";
        int at = text.indexOf(lead);
        if (text.startsWith("Invalid value ") && at > 0) {
            text = text.substring(at + lead.length());
        }
        return text;
    }
}
