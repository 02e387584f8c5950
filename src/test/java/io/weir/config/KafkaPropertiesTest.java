package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kafka client properties checked at loading as the clients would, and the bootstrap servers. */
class KafkaPropertiesTest {

    private static List<String> errors(String yaml, String... overrides) {
        return Configs.errors(Configs.minimalWith(yaml), overrides).stream()
                .map(ConfigError::toString)
                .toList();
    }

    @Test
    void producerSettingsThatBreakExactlyOnceAreRefused() {
        assertEquals(
                List.of(
                        "config/job.yaml:8:11: kafka.producer.acks must be all (or -1) with processing.guarantee "
                                + "exactly-once, which needs idempotent producers that wait for all in-sync replicas, "
                                + "was 1",
                        "config/job.yaml:9:25: kafka.producer.enable.idempotence must not be false with "
                                + "processing.guarantee exactly-once: transactions need idempotent producers, was false"),
                errors(
                        """
        kafka:
          producer:
            acks: 1
            enable.idempotence: "false"
        """));
    }

    @Test
    void theProducerMapWinsOverTheSharedProperties() {
        assertEquals(
                List.of("config/job.yaml:6:30: kafka.properties.acks must be all (or -1) with "
                        + "processing.guarantee exactly-once, which needs idempotent producers that wait for all "
                        + "in-sync replicas, was 0"),
                errors("kafka: { properties: { acks: 0 } }\n"));
        Configs.load(Configs.minimalWith("kafka: { properties: { acks: 0 }, producer: { acks: all } }\n"));
        Configs.load(Configs.minimalWith("kafka: { producer: { acks: \"-1\" } }\n"));
    }

    @Test
    void theConsumersHeartbeatMustStayBelowItsSessionTimeoutWhereverEachIsSet() {
        assertEquals(
                List.of("config/job.yaml:6:45: kafka.consumer.heartbeat.interval.ms must keep heartbeat.interval.ms"
                        + " (40000) below session.timeout.ms (30000), which the consumer needs: it sends several"
                        + " heartbeats per session timeout"),
                errors("kafka: { consumer: { heartbeat.interval.ms: 40000 } }\n"));
        assertEquals(
                List.of("config/job.yaml:6:42: kafka.consumer.session.timeout.ms must keep heartbeat.interval.ms"
                        + " (200) below session.timeout.ms (150), which the consumer needs: it sends several"
                        + " heartbeats per session timeout"),
                errors("kafka: { consumer: { session.timeout.ms: 150 } }\n"));
        assertEquals(
                List.of("config/job.yaml:6:47: kafka.properties.heartbeat.interval.ms must keep"
                        + " heartbeat.interval.ms (5000) below session.timeout.ms (3000), which the consumer needs:"
                        + " it sends several heartbeats per session timeout"),
                errors(
                        "kafka: { properties: { heartbeat.interval.ms: 5000 }, consumer: { session.timeout.ms: 3000 } }\n"));
        Configs.load(Configs.minimalWith(
                "kafka: { properties: { heartbeat.interval.ms: 5000 }, consumer: { heartbeat.interval.ms: 1000,"
                        + " session.timeout.ms: 3000 } }\n"));
        Configs.load(Configs.minimalWith(
                "kafka: { consumer: { heartbeat.interval.ms: 3000, session.timeout.ms: 45000 } }\n"));
    }

    @Test
    void atLeastOnceAllowsOtherAcks() {
        Configs.load(
                Configs.minimalWith(
                        "processing: { guarantee: at-least-once }\nkafka: { producer: { acks: 1, enable.idempotence: false } }\n"));
    }

    @Test
    void valuesTheClientsWouldRefuseAreReportedAtTheirPosition() {
        assertEquals(
                List.of(
                        "config/job.yaml:7:21: kafka.producer.acks is not valid, was banana; the Kafka producer "
                                + "would refuse it: String must be one of: all, -1, 0, 1",
                        "config/job.yaml:8:33: kafka.consumer.max.poll.records is not valid, was 0; the Kafka "
                                + "consumer would refuse it: Value must be at least 1",
                        "config/job.yaml:9:28: kafka.properties.linger.ms is not valid, was soon; the Kafka producer "
                                + "would refuse it: Not a number of type LONG",
                        "config/job.yaml:10:32: kafka.admin.request.timeout.ms is not valid, was -5; the Kafka admin "
                                + "client would refuse it: Value must be at least 0"),
                errors(
                        """
        kafka:
          producer: { acks: banana }
          consumer: { max.poll.records: 0 }
          properties: { linger.ms: soon }
          admin: { request.timeout.ms: "-5" }
        """));
    }

    @Test
    void unknownPropertiesAndClassNamesAreLeftToTheClients() {
        Configs.load(
                Configs.minimalWith(
                        """
        kafka:
          properties: { my.interceptor.setting: x, security.protocol: SASL_SSL }
          producer: { interceptor.classes: com.example.NotOnTheClassPath, compression.type: zstd }
        """));
    }

    @Test
    void anEmptyBootstrapOverrideIsAnError() {
        assertEquals(
                List.of("--set kafka.bootstrap: kafka.bootstrap must not be empty: expected a comma-separated list "
                        + "of host:port, or leave the key out for localhost:9092"),
                Configs.errors(Configs.MINIMAL, "kafka.bootstrap=").stream()
                        .map(ConfigError::toString)
                        .toList());
        assertEquals(
                List.of("config/job.yaml:6:21: kafka.bootstrap must not be empty: expected a comma-separated list "
                        + "of host:port, or leave the key out for localhost:9092"),
                Configs.errors(Configs.minimalWith("kafka: { bootstrap: \"${BOOT:}\" }\n"), Map.of()).stream()
                        .map(ConfigError::toString)
                        .toList());
    }

    @Test
    void theExampleStillValidates() throws Exception {
        Path example = Path.of("config/examples/running-totals.yaml");
        WeirConfig config = new ConfigLoader(() -> "host").load(example, Map.of(), List.of());
        assertEquals("running-totals", config.application());
        assertEquals(true, Files.exists(example));
    }
}
