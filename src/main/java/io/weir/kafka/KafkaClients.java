package io.weir.kafka;

import io.weir.config.KafkaConfig;
import io.weir.logging.Secrets;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Creates every Kafka client Weir uses, from the user's properties plus the settings Weir's
 * guarantees depend on (which the user cannot override: isolation level, auto-commit,
 * idempotence, the assignor that keeps co-partitioned partitions together).
 */
public final class KafkaClients {
    private final String bootstrap;
    private final Map<String, String> common;
    private final Map<String, String> consumer;
    private final Map<String, String> producer;
    private final Map<String, String> admin;

    public KafkaClients(
            String bootstrap,
            Map<String, String> common,
            Map<String, String> consumer,
            Map<String, String> producer,
            Map<String, String> admin) {
        this.bootstrap = bootstrap;
        this.common = Map.copyOf(common);
        this.consumer = Map.copyOf(consumer);
        this.producer = Map.copyOf(producer);
        this.admin = Map.copyOf(admin);
        // From here on, the log encoders mask these values wherever they appear.
        for (Map<String, String> properties : List.of(common, consumer, producer, admin)) {
            Secrets.register(properties);
        }
    }

    public static KafkaClients of(String bootstrap) {
        return new KafkaClients(bootstrap, Map.of(), Map.of(), Map.of(), Map.of());
    }

    public String bootstrap() {
        return bootstrap;
    }

    /** The bootstrap servers and the user's client properties (sorted), secret values masked: for logs. */
    @Override
    public String toString() {
        return bootstrap + " properties " + printable(common) + " consumer " + printable(consumer) + " producer "
                + printable(producer) + " admin " + printable(admin);
    }

    private static Map<String, String> printable(Map<String, String> properties) {
        return new java.util.TreeMap<>(Secrets.redacted(properties));
    }

    /** How old the source consumer's metadata may get: how soon a changed partition count is seen. */
    static final int SOURCE_METADATA_MAX_AGE_MS = 30_000;

    /** How long the broker may hold a source fetch that finds nothing to read. */
    static final int SOURCE_FETCH_MAX_WAIT_MS = 50;

    /** How often the source consumer heartbeats (Kafka's default: 3 s). */
    static final int SOURCE_HEARTBEAT_INTERVAL_MS = KafkaConfig.SOURCE_HEARTBEAT_INTERVAL_MS;

    /** The source consumer: a group member with static membership, reading committed data only. */
    public KafkaConsumer<byte[], byte[]> sourceConsumer(
            String groupId,
            String instanceId,
            String clientId,
            boolean resetToEarliest,
            Supplier<Set<TopicPartition>> warmPartitions,
            Map<String, Integer> partitionCounts,
            RebalanceHold hold) {
        Map<String, Object> p = sourceConsumerProperties(
                groupId, instanceId, clientId, resetToEarliest, warmPartitions, partitionCounts, hold);
        return created(
                "consumer", () -> new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer()));
    }

    /** How often the source consumer heartbeats: {@code heartbeat.interval.ms} of kafka.consumer or kafka.properties, else 200 ms. */
    public Duration sourceHeartbeatInterval() {
        String set = consumer.getOrDefault(
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, common.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
        try {
            return Duration.ofMillis(set == null ? SOURCE_HEARTBEAT_INTERVAL_MS : Long.parseLong(set.strip()));
        } catch (NumberFormatException e) {
            return Duration.ofMillis(SOURCE_HEARTBEAT_INTERVAL_MS); // the consumer refuses it with its own message
        }
    }

    Map<String, Object> sourceConsumerProperties(
            String groupId,
            String instanceId,
            String clientId,
            boolean resetToEarliest,
            Supplier<Set<TopicPartition>> warmPartitions,
            Map<String, Integer> partitionCounts,
            RebalanceHold hold) {
        Map<String, Object> p = base(consumer);
        p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        p.putIfAbsent(
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.toString(KafkaConfig.SOURCE_SESSION_TIMEOUT_MS));
        // A cooperative move takes two rebalances, and the members that revoked nothing learn of the
        // second from a heartbeat: heartbeat often, so the second round starts within a fifth of a
        // second, not three (a heartbeat is a small request the coordinator answers from memory).
        p.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Integer.toString(SOURCE_HEARTBEAT_INTERVAL_MS));
        // The consumer keeps one fetch in flight per broker. While the partitions with records are
        // paused (their channels full), that fetch asks only for partitions with nothing readable
        // yet (a repartition topic behind an open transaction) and the broker holds it for
        // fetch.max.wait.ms; the resumed partitions wait behind it. With the default 500 ms the
        // two-stage bench's workers were idle 42 % of the run.
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Integer.toString(SOURCE_FETCH_MAX_WAIT_MS));
        // The group's leader learns of a partition added to an input topic when it refreshes its
        // metadata, and then stops the job (CoPartitionedAssignor.EXPECTED_COUNTS): every 30 s instead
        // of the default 5 minutes, during which records of keys that moved between the old partitions
        // (none do when the new count is a multiple of the old) are read by the wrong task.
        p.putIfAbsent(ConsumerConfig.METADATA_MAX_AGE_CONFIG, Integer.toString(SOURCE_METADATA_MAX_AGE_MS));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Weir seeks every partition itself; the reset only matters for one without a checkpoint.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, resetToEarliest ? "earliest" : "latest");
        // Partition p of every input topic goes to the same member (co-partitioning), sticky and
        // cooperative: a rebalance moves only what it must and stops nothing else.
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CoPartitionedAssignor.class.getName());
        p.put(CoPartitionedAssignor.WARM_PARTITIONS, warmPartitions);
        p.put(CoPartitionedAssignor.EXPECTED_COUNTS, Map.copyOf(partitionCounts));
        p.put(CoPartitionedAssignor.REJOINING, (Runnable) hold::rejoining);
        return p;
    }

    /**
     * A reader of the group's committed offsets that never joins it: read_committed, so it asks for
     * stable offsets and waits for pending transactional ones to resolve.
     */
    public KafkaConsumer<byte[], byte[]> offsetReader(String groupId, String clientId) {
        Map<String, Object> p = base(consumer);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return created(
                "consumer", () -> new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer()));
    }

    /** A consumer outside any group, for reading internal topics by assignment. */
    public KafkaConsumer<byte[], byte[]> reader(String clientId, boolean readCommitted) {
        Map<String, Object> p = readerProperties(clientId, readCommitted);
        return created(
                "consumer", () -> new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer()));
    }

    Map<String, Object> readerProperties(String clientId, boolean readCommitted) {
        Map<String, Object> p = base(consumer);
        // Reading a topic that does not exist yet must not create it with the broker's defaults.
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(4 << 20));
        // These readers read to the end and stop there (the partition-count scan then closes; the
        // checkpoint reader waits for its next call): the fetch the consumer sends ahead after the
        // last records would hold that close, or the next call's first poll, for fetch.max.wait.ms
        // (500 ms by default) — on the restore path.
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "10");
        return p;
    }

    /**
     * A reader of snapshot chunks: large fetches, and a short broker-side wait, because the consumer
     * prefetches after every poll and that fetch, at the end of the log, would otherwise hold up
     * the next seek for {@code fetch.max.wait.ms} (500 ms by default) — per file.
     */
    public KafkaConsumer<byte[], byte[]> snapshotReader(String clientId) {
        Map<String, Object> p = base(consumer);
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "10");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(16 << 20));
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
        p.putIfAbsent(ConsumerConfig.RECEIVE_BUFFER_CONFIG, Integer.toString(4 << 20));
        return created(
                "consumer", () -> new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer()));
    }

    public KafkaProducer<byte[], byte[]> transactionalProducer(String transactionalId, long transactionTimeoutMs) {
        Map<String, Object> p = producerBase();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(transactionTimeoutMs));
        return created("producer", () -> new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer()));
    }

    /** An idempotent producer without transactions: at-least-once output and snapshot chunks. */
    public KafkaProducer<byte[], byte[]> idempotentProducer(String clientId) {
        Map<String, Object> p = producerBase();
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        return created("producer", () -> new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer()));
    }

    public Admin admin(String clientId) {
        Map<String, Object> p = base(admin);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        return created("admin", () -> Admin.create(p));
    }

    /** The producers' request limit: snapshot chunks of 1 MiB plus their headers fit. */
    public static final int MAX_REQUEST_BYTES = 2 << 20;

    private Map<String, Object> producerBase() {
        Map<String, Object> p = base(producer);
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(128 * 1024));
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_REQUEST_BYTES));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return p;
    }

    /**
     * Creates a client; a refusal (a malformed {@code sasl.jaas.config}, an unknown class) is
     * rethrown naming its root cause, which the client's own "Failed to create new KafkaAdminClient"
     * hides.
     */
    static <T> T created(String kind, java.util.function.Supplier<T> create) {
        try {
            return create.get();
        } catch (org.apache.kafka.common.KafkaException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            throw new Topics.StartupException(
                    "cannot create the Kafka " + kind + " client: "
                            + root.getClass().getSimpleName() + ": " + Secrets.redact(root.getMessage())
                            + " (check kafka.properties and kafka." + kind + ")",
                    e);
        }
    }

    /**
     * The partitions of {@code topic} as {@code consumer} sees them, asking again while it sees none
     * until {@code timeout}: a topic created a moment ago (by this instance's own start, on an empty
     * cluster) can be unknown to the broker's metadata for a moment after its creation returned,
     * and the consumer answers that with an empty list. Empty when the topic did not appear in
     * time.
     */
    static List<PartitionInfo> partitionsOf(Consumer<?, ?> consumer, String topic, Duration timeout)
            throws InterruptedIOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = Math.max(0, deadline - System.nanoTime());
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofNanos(left));
            if ((infos != null && !infos.isEmpty()) || left == 0) {
                return infos == null ? List.of() : infos;
            }
            try {
                Thread.sleep(Math.min(PARTITIONS_RETRY_MS, TimeUnit.NANOSECONDS.toMillis(left) + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for topic " + topic);
            }
        }
    }

    /** How often {@link #partitionsOf} asks again for a topic it does not see yet. */
    static final int PARTITIONS_RETRY_MS = 100;

    private Map<String, Object> base(Map<String, String> specific) {
        Map<String, Object> p = new HashMap<>(common);
        p.putAll(specific);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        // No JMX reporter unless asked for (metric.reporters in kafka.properties): Weir's metrics
        // come from the clients' own metrics() (/metrics), and registering every metric of the ~10
        // clients a start makes as an MBean cost ~100 ms of CPU on the restart path.
        p.putIfAbsent(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG, "");
        return p;
    }
}
