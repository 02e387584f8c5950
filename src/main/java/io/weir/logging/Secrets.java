package io.weir.logging;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * What must never be printed: the values of secret Kafka client properties ({@code sasl.jaas.config},
 * any property whose name contains {@code password} or {@code secret}, every property Kafka declares
 * as a password such as {@code ssl.keystore.key}), and the
 * {@code password=…} options inside a JAAS configuration. {@link #redacted(Map)} gives a map safe to
 * print; {@link #register} remembers the values of a client configuration so that
 * {@link #redact(String)} — which both log encoders apply to every line — masks them wherever they
 * turn up (a client's error message, an exception, a configuration dump).
 */
public final class Secrets {
    public static final String MASK = "[redacted]";

    /** Values shorter than this are not masked inside arbitrary text (too many false hits). */
    private static final int MIN_MASKED_LENGTH = 4;

    private static final Pattern JAAS_SECRET_OPTION = Pattern.compile(
            "(?i)\\b([a-z0-9_.]*(?:password|secret|token)[a-z0-9_.]*)\\s*=\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|[^\\s;\",}\\])\\[][^\\s;\",}\\])]*)");

    private static final Set<String> KNOWN = ConcurrentHashMap.newKeySet();
    /** {@link #KNOWN}, longest first (a JAAS string is masked whole before the password inside it). */
    private static volatile List<String> longestFirst = List.of();

    private Secrets() {}

    /**
     * The client properties Kafka itself declares as passwords (type PASSWORD in the producer,
     * consumer and admin configuration definitions): {@code ssl.keystore.key},
     * {@code ssl.truststore.certificates}, {@code sasl.oauthbearer.assertion.private.key.passphrase}, …
     */
    private static final Set<String> KAFKA_PASSWORDS = kafkaPasswords();

    private static Set<String> kafkaPasswords() {
        Set<String> names = new java.util.TreeSet<>();
        for (ConfigDef def :
                List.of(ProducerConfig.configDef(), ConsumerConfig.configDef(), AdminClientConfig.configDef())) {
            def.configKeys().forEach((name, key) -> {
                if (key.type == ConfigDef.Type.PASSWORD) {
                    names.add(name);
                }
            });
        }
        return Set.copyOf(names);
    }

    /** Whether a property of this name holds a secret. */
    public static boolean isSecret(String property) {
        String name = property.toLowerCase(Locale.ROOT);
        if (name.endsWith("sasl.jaas.config") || name.contains("password") || name.contains("secret")) {
            return true;
        }
        // Prefixed forms too (consumer.ssl.keystore.key, …).
        for (String p : KAFKA_PASSWORDS) {
            if (name.equals(p) || name.endsWith("." + p)) {
                return true;
            }
        }
        return false;
    }

    /** The value to print for this property: the mask for secrets, else the value. */
    public static String printable(String property, String value) {
        return isSecret(property) ? MASK : value;
    }

    /** A copy of these properties with every secret value masked, in the same order. */
    public static Map<String, String> redacted(Map<String, String> properties) {
        Map<String, String> copy = new LinkedHashMap<>();
        properties.forEach((k, v) -> copy.put(k, printable(k, v)));
        return copy;
    }

    /** Remembers the secret values of these properties (and the secrets inside JAAS options). */
    public static void register(Map<String, String> properties) {
        properties.forEach((k, v) -> {
            if (v != null && isSecret(k)) {
                remember(v);
                remember(v.strip());
                Matcher m = JAAS_SECRET_OPTION.matcher(v);
                while (m.find()) {
                    String option = m.group(2);
                    remember(option);
                    if (option.startsWith("\"") && option.endsWith("\"") && option.length() >= 2) {
                        remember(option.substring(1, option.length() - 1));
                    }
                }
            }
        });
    }

    private static synchronized void remember(String value) {
        if (value.length() >= MIN_MASKED_LENGTH && KNOWN.add(value)) {
            KNOWN.add(jsonEscaped(value));
            longestFirst = KNOWN.stream()
                    .sorted(Comparator.comparingInt(String::length).reversed())
                    .toList();
        }
    }

    /**
     * The text with every registered secret value, and the value of every {@code password=…},
     * {@code secret=…} or {@code token=…} option, masked.
     */
    public static String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = text;
        for (String secret : longestFirst) {
            if (out.contains(secret)) {
                out = out.replace(secret, MASK);
            }
        }
        Matcher m = JAAS_SECRET_OPTION.matcher(out);
        if (m.find()) {
            StringBuilder b = new StringBuilder();
            do {
                String value = m.group(2);
                String masked = value.startsWith("\"") ? "\"" + MASK + "\"" : MASK;
                m.appendReplacement(b, Matcher.quoteReplacement(m.group(1) + "=" + masked));
            } while (m.find());
            m.appendTail(b);
            out = b.toString();
        }
        return out;
    }

    private static String jsonEscaped(String value) {
        StringBuilder b = new StringBuilder();
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
