package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {

    @Test
    void aMalformedJaasConfigIsReportedWithItsCauseNotOnlyAsAFailedClient() {
        KafkaClients clients = new KafkaClients(
                "localhost:1",
                Map.of(
                        "security.protocol", "SASL_PLAINTEXT",
                        "sasl.mechanism", "PLAIN",
                        "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required"),
                Map.of(),
                Map.of(),
                Map.of());
        Topics.StartupException e = assertThrows(Topics.StartupException.class, () -> clients.admin("test"));
        assertTrue(e.getMessage().contains("cannot create the Kafka admin client"), e.getMessage());
        assertTrue(e.getMessage().toLowerCase().contains("jaas"), e.getMessage());
    }

    @Test
    void aReaderOfAnInternalTopicAsksTheBrokerToWaitNoMoreThanTenMillisecondsAtTheEndOfTheLog() {
        // The checkpoint topic is read to its end on every restore and the reader closed: a fetch
        // sent ahead at the end of the log held that close up for the default 500 ms.
        KafkaClients clients =
                new KafkaClients("localhost:1", Map.of(), Map.of("fetch.max.wait.ms", "500"), Map.of(), Map.of());
        assertEquals("10", clients.readerProperties("r", true).get("fetch.max.wait.ms"));
        assertEquals("read_committed", clients.readerProperties("r", true).get("isolation.level"));
    }

    /** The source consumer's properties with these {@code kafka.consumer} overrides. */
    private static Map<String, Object> sourceConsumer(Map<String, String> consumerOverrides) {
        return new KafkaClients("localhost:1", Map.of(), consumerOverrides, Map.of(), Map.of())
                .sourceConsumerProperties("g", "i", "c", true, java.util.Set::of, Map.of(), new RebalanceHold());
    }

    @Test
    void theSourceConsumerLetsTheBrokerHoldAnEmptyFetchFiftyMillisecondsUnlessTheUserSaysOtherwise() {
        // One fetch is in flight per broker: one held for partitions with nothing readable keeps
        // resumed partitions from being fetched until it returns.
        assertEquals("50", sourceConsumer(Map.of()).get("fetch.max.wait.ms"));
        assertEquals("200", sourceConsumer(Map.of("fetch.max.wait.ms", "200")).get("fetch.max.wait.ms"));
    }

    @Test
    void theSourceConsumerRefreshesItsMetadataEveryThirtySecondsAndCarriesTheCountsItStartedWith() {
        // The group's leader notices a partition added to an input topic at its next metadata refresh.
        KafkaClients defaults = new KafkaClients("localhost:1", Map.of(), Map.of(), Map.of(), Map.of());
        Map<String, Object> p = defaults.sourceConsumerProperties(
                "g", "i", "c", true, java.util.Set::of, Map.of("orders", 4), new RebalanceHold());
        assertEquals("30000", p.get("metadata.max.age.ms"));
        assertEquals(Map.of("orders", 4), p.get(CoPartitionedAssignor.EXPECTED_COUNTS));
        assertEquals(
                "5000", sourceConsumer(Map.of("metadata.max.age.ms", "5000")).get("metadata.max.age.ms"));
    }

    @Test
    void theSourceConsumerHeartbeatsEveryFifthOfASecondAndTellsTheHoldWhenItRejoins() throws Exception {
        // The members that revoke nothing learn of a cooperative move's second round from a heartbeat.
        RebalanceHold hold = new RebalanceHold();
        KafkaClients defaults = new KafkaClients("localhost:1", Map.of(), Map.of(), Map.of(), Map.of());
        Map<String, Object> p =
                defaults.sourceConsumerProperties("g", "i", "c", true, java.util.Set::of, Map.of(), hold);
        assertEquals("200", p.get("heartbeat.interval.ms"));
        ((Runnable) p.get(CoPartitionedAssignor.REJOINING)).run();
        assertEquals(false, hold.commitStarts(java.time.Duration.ZERO), "commits wait once the member rejoins");
        assertEquals(
                "3000", sourceConsumer(Map.of("heartbeat.interval.ms", "3000")).get("heartbeat.interval.ms"));
    }

    @Test
    void clientsRegisterNoJmxBeansForTheirMetricsUnlessTheUserAsksForTheJmxReporter() throws Exception {
        javax.management.MBeanServer jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        KafkaClients defaults = new KafkaClients("localhost:1", Map.of(), Map.of(), Map.of(), Map.of());
        try (var admin = defaults.admin("jmx-off")) {
            assertTrue(
                    jmx.queryNames(new javax.management.ObjectName("kafka.admin.client:client-id=jmx-off,*"), null)
                            .isEmpty(),
                    "the admin client's metrics were registered as MBeans");
        }
        KafkaClients asked = new KafkaClients(
                "localhost:1",
                Map.of("metric.reporters", "org.apache.kafka.common.metrics.JmxReporter"),
                Map.of(),
                Map.of(),
                Map.of());
        try (var admin = asked.admin("jmx-on")) {
            assertFalse(
                    jmx.queryNames(new javax.management.ObjectName("kafka.admin.client:client-id=jmx-on,*"), null)
                            .isEmpty(),
                    "metric.reporters in kafka.properties was not honoured");
        }
    }

    /** A consumer that sees no partitions of a topic for its first {@code unseen} asks. */
    private static MockConsumer<byte[], byte[]> seesTopicAfter(int unseen, String topic, AtomicInteger asks) {
        return new MockConsumer<>("earliest") {
            @Override
            public synchronized List<PartitionInfo> partitionsFor(String t, Duration timeout) {
                return asks.incrementAndGet() <= unseen
                        ? List.of()
                        : List.of(new PartitionInfo(topic, 0, null, null, null));
            }
        };
    }

    @Test
    void aTopicCreatedAMomentAgoIsAskedForAgainUntilTheConsumerSeesIt() throws Exception {
        // On an empty cluster the instance creates its checkpoint topic and reads it at once: the
        // broker's metadata answered "unknown" for a moment, and the first start failed with "the
        // checkpoint topic does not exist".
        AtomicInteger asks = new AtomicInteger();
        try (var consumer = seesTopicAfter(3, "t", asks)) {
            List<PartitionInfo> found = KafkaClients.partitionsOf(consumer, "t", Duration.ofSeconds(30));
            assertEquals(1, found.size());
            assertEquals(4, asks.get());
        }
    }

    @Test
    void aTopicThatDoesNotAppearInTimeGivesNoPartitions() throws Exception {
        AtomicInteger asks = new AtomicInteger();
        try (var consumer = seesTopicAfter(Integer.MAX_VALUE, "t", asks)) {
            assertTrue(KafkaClients.partitionsOf(consumer, "t", Duration.ofMillis(300))
                    .isEmpty());
            assertTrue(asks.get() >= 2, "asked " + asks.get() + " times");
        }
    }
}
