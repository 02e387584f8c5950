package io.weir.kafka;

import java.util.List;

/**
 * Loads the Kafka clients' classes on a thread of its own while {@code weir run} reads its
 * configuration, so that the instance's first admin request, its consumer and its producers find
 * them loaded. A restarted instance's start is part of its recovery, and loading these ~1,000
 * classes (the protocol's message schemas alone are ~500) was most of its first admin request:
 * 0.4–0.8 s on an idle machine, seconds on a busy one.
 *
 * <p>Each name is initialised, which loads what its static state needs (ApiKeys: every request and
 * response schema; the config classes: their definitions); a name this version of the clients
 * lacks is skipped. Nothing here is required: the classes load on first use anyway.
 */
public final class ClientClasses {
    static final List<String> ENTRY_POINTS = List.of(
            "org.apache.kafka.common.protocol.ApiKeys",
            "org.apache.kafka.clients.admin.AdminClientConfig",
            "org.apache.kafka.clients.consumer.ConsumerConfig",
            "org.apache.kafka.clients.producer.ProducerConfig",
            "org.apache.kafka.clients.admin.KafkaAdminClient",
            "org.apache.kafka.clients.consumer.KafkaConsumer",
            "org.apache.kafka.clients.consumer.internals.ClassicKafkaConsumer",
            "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator",
            "org.apache.kafka.clients.consumer.internals.Fetcher",
            "org.apache.kafka.clients.producer.KafkaProducer",
            "org.apache.kafka.clients.producer.internals.Sender",
            "org.apache.kafka.clients.producer.internals.RecordAccumulator",
            "org.apache.kafka.clients.producer.internals.TransactionManager",
            "org.apache.kafka.clients.NetworkClient",
            "org.apache.kafka.common.network.Selector",
            "org.apache.kafka.common.metrics.Metrics",
            "org.apache.kafka.common.telemetry.internals.ClientTelemetryReporter");

    private ClientClasses() {}

    /** Starts loading them on a daemon thread. */
    public static void loadInBackground() {
        Thread t = new Thread(ClientClasses::load, "weir-class-load");
        t.setDaemon(true);
        t.start();
    }

    /** Initialises every entry point this version has; returns how many. */
    static int load() {
        ClassLoader loader = ClientClasses.class.getClassLoader();
        int loaded = 0;
        for (String name : ENTRY_POINTS) {
            try {
                Class.forName(name, true, loader);
                loaded++;
            } catch (ClassNotFoundException | LinkageError e) {
                // Another version of the clients: this one loads on first use.
            }
        }
        return loaded;
    }
}
