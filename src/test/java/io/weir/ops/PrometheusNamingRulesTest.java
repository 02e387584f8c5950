package io.weir.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Meters as Micrometer's Kafka binder registers them at its refresh, a minute after a client
 * started (after the first scrapes): per broker connection, some without a description, with the
 * binder's tag names (Kafka's "node-id" as node.id, which the exposition writes node_id).
 */
class PrometheusNamingRulesTest {

    @Test
    void kafkaMetersWithoutADescriptionGetHelpTextAndPerBrokerOnesAreLeftOut() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(new PrometheusNamingRules());
        Gauge.builder("kafka.consumer.node.request.latency.avg", () -> 3.0)
                .tags("client.id", "c1", "node.id", "node-1")
                .description("")
                .register(registry);
        Gauge.builder("kafka.consumer.fetch.manager.records.lag", () -> 7.0)
                .tags("client.id", "c1", "topic", "orders", "partition", "0")
                .description("")
                .register(registry);
        FunctionCounter.builder("kafka.consumer.fetch.manager.records.consumed", this, x -> 11.0)
                .tags("client.id", "c1")
                .description("The total number of records consumed")
                .register(registry);

        String text = registry.scrape();
        assertFalse(text.contains("node_id"), text);
        assertTrue(text.contains("kafka_consumer_fetch_manager_records_lag{"), text);
        assertTrue(text.contains("# HELP kafka_consumer_fetch_manager_records_lag Kafka client metric"), text);
        assertTrue(
                text.contains("# HELP kafka_consumer_fetch_manager_records_consumed_total The total number of records"),
                text);
        // Every family in the exposition has HELP text: promtool check metrics refuses one without.
        Set<String> families = new LinkedHashSet<>();
        Set<String> helped = new LinkedHashSet<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                families.add(line.split(" ")[2]);
            } else if (line.startsWith("# HELP ") && line.split(" ", 4).length == 4) {
                helped.add(line.split(" ")[2]);
            }
        }
        assertEquals(families, helped, text);
    }
}
