package io.weir.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.config.KafkaConfig;
import io.weir.kafka.KafkaClients;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretsTest {
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"weir\" password=\"unit-marker-7f3a\";";

    @Test
    void secretPropertiesAreRecognisedByName() {
        assertTrue(Secrets.isSecret("sasl.jaas.config"));
        assertTrue(Secrets.isSecret("ssl.keystore.password"));
        assertTrue(Secrets.isSecret("ssl.key.password"));
        assertTrue(Secrets.isSecret("sasl.oauthbearer.client.credentials.client.secret"));
        // Kafka's own PASSWORD-typed properties, whatever their names say, and prefixed.
        assertTrue(Secrets.isSecret("ssl.keystore.key"));
        assertTrue(Secrets.isSecret("ssl.truststore.certificates"));
        assertTrue(Secrets.isSecret("ssl.keystore.certificate.chain"));
        assertTrue(Secrets.isSecret("sasl.oauthbearer.assertion.private.key.passphrase"));
        assertTrue(Secrets.isSecret("consumer.ssl.keystore.key"));
        assertEquals(
                Map.of("ssl.keystore.key", Secrets.MASK),
                Secrets.redacted(Map.of("ssl.keystore.key", "-----BEGIN PRIVATE KEY-----abc")));
        assertFalse(Secrets.isSecret("ssl.truststore.location"));
        assertFalse(Secrets.isSecret("security.protocol"));
        assertEquals(
                Map.of("security.protocol", "SASL_SSL", "sasl.jaas.config", Secrets.MASK),
                Secrets.redacted(Map.of("security.protocol", "SASL_SSL", "sasl.jaas.config", JAAS)));
    }

    @Test
    void jaasPasswordOptionsAreMaskedInAnyText() {
        assertEquals(
                "login failed for PlainLoginModule required username=\"weir\" password=\"[redacted]\";",
                Secrets.redact("login failed for PlainLoginModule required username=\"weir\" password=\"hunter22\";"));
        assertEquals("token=[redacted] and x", Secrets.redact("token=abcdef and x"));
        assertEquals("{a.password=[redacted]}, next", Secrets.redact("{a.password=abcdef}, next"));
        assertEquals("{a.password=[redacted]}", Secrets.redact("{a.password=[redacted]}"));
        assertEquals("ssl.key.password = [hidden]", Secrets.redact("ssl.key.password = [hidden]"));
        assertEquals("nothing secret here", Secrets.redact("nothing secret here"));
    }

    @Test
    void valuesOfAClientConfigurationAreMaskedWhereverTheyAppearOnceItIsCreated() {
        new KafkaClients(
                "localhost:9092",
                Map.of("sasl.jaas.config", JAAS),
                Map.of(),
                Map.of("ssl.key.password", "registered-marker-19"),
                Map.of());
        String leaked = "bad config " + JAAS + " and key registered-marker-19 in a message";
        String redacted = Secrets.redact(leaked);
        assertFalse(redacted.contains("unit-marker-7f3a"), redacted);
        assertFalse(redacted.contains("registered-marker-19"), redacted);
        assertEquals("bad config [redacted] and key [redacted] in a message", redacted);
    }

    @Test
    void printedConfigurationsMaskSecrets() {
        KafkaConfig config = new KafkaConfig(
                "k:9092",
                Map.of("sasl.jaas.config", JAAS, "security.protocol", "SASL_SSL"),
                Map.of(),
                Map.of("ssl.keystore.password", "print-marker-42"),
                Map.of());
        String printed = config.toString();
        assertFalse(printed.contains("unit-marker-7f3a"), printed);
        assertFalse(printed.contains("print-marker-42"), printed);
        assertTrue(printed.contains("security.protocol=SASL_SSL"), printed);
        String clients =
                new KafkaClients("k:9092", Map.of("sasl.jaas.config", JAAS), Map.of(), Map.of(), Map.of()).toString();
        assertTrue(clients.contains("sasl.jaas.config=[redacted]"), clients);
    }

    @Test
    void theJsonEncoderWritesOneParsableObjectPerLineWithSecretsMasked() throws Exception {
        LoggerContext context = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
        JsonLineEncoder encoder = new JsonLineEncoder();
        encoder.setContext(context);
        encoder.start();
        LoggingEvent event = new LoggingEvent(
                "io.weir.Test",
                context.getLogger("io.weir.Test"),
                Level.WARN,
                "client config {} rejected",
                new IllegalStateException("cause quoting password=\"json-marker-77\"\nsecond line"),
                new Object[] {"sasl.jaas.config=" + JAAS});
        String line = new String(encoder.encode(event), StandardCharsets.UTF_8);

        assertTrue(line.endsWith("\n"));
        assertEquals(1, line.lines().count(), line);
        JsonNode json = new ObjectMapper().readTree(line);
        assertEquals("WARN", json.get("level").asText());
        assertEquals("io.weir.Test", json.get("logger").asText());
        assertTrue(json.get("message").asText().startsWith("client config sasl.jaas.config="), line);
        assertTrue(json.get("exception").asText().contains("IllegalStateException"), line);
        assertTrue(json.get("time").asText().endsWith("Z"), line);
        assertFalse(line.contains("unit-marker-7f3a"), line);
        assertFalse(line.contains("json-marker-77"), line);
    }

    @Test
    void theTextEncoderMasksSecretsToo() {
        LoggerContext context = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
        RedactingPatternEncoder encoder = new RedactingPatternEncoder();
        encoder.setContext(context);
        encoder.setPattern("%-5level %logger - %msg%n");
        encoder.start();
        LoggingEvent event = new LoggingEvent(
                "io.weir.Test", context.getLogger("io.weir.Test"), Level.INFO, "jaas is {}", null, new Object[] {
                    "x password=\"text-marker-55\";"
                });
        String line = new String(encoder.encode(event), StandardCharsets.UTF_8);
        assertEquals("INFO  io.weir.Test - jaas is x password=\"[redacted]\";" + System.lineSeparator(), line);
    }

    @Test
    void theConsoleEncoderWritesTheChosenFormat() throws Exception {
        LoggerContext context = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
        LoggingEvent event = new LoggingEvent(
                "io.weir.Test", context.getLogger("io.weir.Test"), Level.INFO, "hello {}", null, new Object[] {"x"});
        WeirEncoder json = new WeirEncoder();
        json.setContext(context);
        json.setFormat("json");
        json.start();
        assertEquals(
                "hello x",
                new ObjectMapper().readTree(json.encode(event)).get("message").asText());

        WeirEncoder text = new WeirEncoder();
        text.setContext(context);
        text.setFormat("text");
        text.setPattern("%msg%n");
        text.start();
        assertEquals("hello x" + System.lineSeparator(), new String(text.encode(event), StandardCharsets.UTF_8));

        WeirEncoder unknown = new WeirEncoder();
        unknown.setContext(context);
        unknown.setFormat("xml");
        unknown.setPattern("%msg%n");
        int errorsBefore = context.getStatusManager().getCopyOfStatusList().size();
        unknown.start();
        assertEquals("hello x" + System.lineSeparator(), new String(unknown.encode(event), StandardCharsets.UTF_8));
        assertTrue(context.getStatusManager().getCopyOfStatusList().stream()
                .skip(errorsBefore)
                .anyMatch(s -> s.getMessage().contains("WEIR_LOG_FORMAT must be text or json, was xml")));
    }
}
