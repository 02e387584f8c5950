package io.weir.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process, single-node Kafka broker in KRaft mode (one node acting as broker and controller),
 * behind {@code weir dev} and the test fixture. It formats its data directory as
 * {@code kafka-storage.sh format} does, starts the same {@link KafkaRaftServer} that
 * {@code kafka-server-start.sh} starts, and only returns from {@link Builder#start()} once the
 * broker serves metadata, transactions and consumer groups.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** The port {@code weir dev} listens on, as a stand-alone broker would. */
    public static final int DEV_PORT = 9092;

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final int NODE_ID = 1;
    private static final String HOST = "127.0.0.1";
    private static final int BIND_ATTEMPTS = 3;

    private final KafkaRaftServer server;
    private final Path dataDir;
    private final boolean ownsDataDir;
    private final int port;
    private boolean closed;

    private EmbeddedKafka(KafkaRaftServer server, Path dataDir, boolean ownsDataDir, int port) {
        this.server = server;
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.port = port;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Starts a broker on an ephemeral port with a temporary data directory. */
    public static EmbeddedKafka start() {
        return builder().start();
    }

    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Shuts the broker down and, if the data directory was a temporary one, deletes it. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long started = System.nanoTime();
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            if (ownsDataDir) {
                EmbeddedKafkaDataDir.deleteRecursively(dataDir);
            }
        }
        log.info("Embedded Kafka at {} stopped in {} ms", bootstrapServers(), millisSince(started));
    }

    /** Options for an {@link EmbeddedKafka}; everything has a default fit for tests. */
    public static final class Builder {
        private Path dataDir;
        private int port;
        private Duration transactionMaxTimeout;
        private Duration startTimeout = Duration.ofSeconds(60);
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();

        private Builder() {}

        /** Keeps the broker's data in this directory, across restarts; by default a temporary one. */
        public Builder dataDir(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir);
            return this;
        }

        /** Listens on this port (for example {@link #DEV_PORT}); 0, the default, picks a free one. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        /** Overrides {@code transaction.max.timeout.ms}, the longest transaction timeout clients may ask for. */
        public Builder transactionMaxTimeout(Duration timeout) {
            this.transactionMaxTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /** Sets a broker property; these win over the defaults this class picks. */
        public Builder brokerProperty(String name, String value) {
            brokerProperties.put(Objects.requireNonNull(name), Objects.requireNonNull(value));
            return this;
        }

        public Builder brokerProperties(Map<String, String> properties) {
            properties.forEach(this::brokerProperty);
            return this;
        }

        /** How long the broker may take to start and then to serve, each; 60 seconds by default. */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /** Formats the data directory if it is new, starts the broker and waits until it serves. */
        public EmbeddedKafka start() {
            long started = System.nanoTime();
            boolean ownsDataDir = dataDir == null;
            Path dir = ownsDataDir ? EmbeddedKafkaDataDir.createTemp() : EmbeddedKafkaDataDir.create(dataDir);
            try {
                EmbeddedKafka kafka = startServer(dir, ownsDataDir);
                try {
                    awaitReady(kafka.bootstrapServers(), startTimeout);
                } catch (RuntimeException | Error e) {
                    kafka.close();
                    throw e;
                }
                log.info(
                        "Embedded Kafka serving at {} (data in {}) after {} ms",
                        kafka.bootstrapServers(),
                        dir,
                        millisSince(started));
                return kafka;
            } catch (RuntimeException | Error e) {
                if (ownsDataDir) {
                    EmbeddedKafkaDataDir.deleteRecursively(dir);
                }
                throw e;
            }
        }

        private EmbeddedKafka startServer(Path dir, boolean ownsDataDir) {
            // Free ports are picked before Kafka binds them, so another process may take one
            // in between; picking again is then the cure.
            for (int attempt = 1; ; attempt++) {
                // Kafka binds the client port last, seconds into start-up; a taken port should fail at once.
                if (port != 0 && isTaken(port)) {
                    throw new IllegalStateException("Port " + port + " on " + HOST + " is already in use");
                }
                int brokerPort = port != 0 ? port : freePort();
                int controllerPort = freePort();
                KafkaConfig config = KafkaConfig.fromProps(properties(dir, brokerPort, controllerPort), false);
                EmbeddedKafkaDataDir.format(config);
                KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
                try {
                    server.startup();
                    return new EmbeddedKafka(server, dir, ownsDataDir, brokerPort);
                } catch (RuntimeException e) {
                    server.shutdown();
                    server.awaitShutdown();
                    if (!hasCause(e, BindException.class) || attempt == BIND_ATTEMPTS) {
                        throw new IllegalStateException(
                                "Embedded Kafka failed to start on ports " + brokerPort + "/" + controllerPort, e);
                    }
                    log.info("A port was taken while embedded Kafka started; retrying with other ports");
                }
            }
        }

        private Properties properties(Path dir, int brokerPort, int controllerPort) {
            Properties props = new Properties();
            props.put("process.roles", "broker,controller");
            props.put("node.id", String.valueOf(NODE_ID));
            // A static voter set keeps no controller address in the data directory, so a
            // persistent `weir dev` data dir survives the controller moving to another port.
            props.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
            props.put(
                    "listeners",
                    "PLAINTEXT://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":" + controllerPort);
            props.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort);
            props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            props.put("inter.broker.listener.name", "PLAINTEXT");
            props.put("controller.listener.names", "CONTROLLER");
            props.put("log.dirs", dir.toAbsolutePath().toString());
            // Bounds the broker's own wait to be caught up and unfenced, which is unbounded by default.
            props.put("server.max.startup.time.ms", String.valueOf(startTimeout.toMillis()));
            // One node: nothing can be replicated, and the internal topics must not wait for replicas.
            props.put("default.replication.factor", "1");
            props.put("min.insync.replicas", "1");
            props.put("offsets.topic.replication.factor", "1");
            props.put("transaction.state.log.replication.factor", "1");
            props.put("transaction.state.log.min.isr", "1");
            props.put("share.coordinator.state.topic.replication.factor", "1");
            props.put("share.coordinator.state.topic.min.isr", "1");
            // One partition per internal topic: creating the default 50 costs start-up time for nothing.
            props.put("offsets.topic.num.partitions", "1");
            props.put("transaction.state.log.num.partitions", "1");
            props.put("group.initial.rebalance.delay.ms", "0");
            // The broker registers and is unfenced by heartbeat; a shorter interval makes it ready sooner.
            props.put("broker.heartbeat.interval.ms", "500");
            // Small segments let retention and compaction act on the little data of tests and `weir dev`;
            // the default cleaner buffer alone would take 128 MiB of heap.
            props.put("log.segment.bytes", String.valueOf(16 * 1024 * 1024));
            props.put("offsets.topic.segment.bytes", String.valueOf(16 * 1024 * 1024));
            props.put("transaction.state.log.segment.bytes", String.valueOf(16 * 1024 * 1024));
            props.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
            if (transactionMaxTimeout != null) {
                props.put("transaction.max.timeout.ms", String.valueOf(transactionMaxTimeout.toMillis()));
            }
            props.putAll(brokerProperties);
            return props;
        }
    }

    /**
     * Waits until clients get metadata, a transactional producer can register and the group
     * coordinator answers; the last two create the internal topics, so the first test or
     * pipeline does not pay for that.
     */
    private static void awaitReady(String bootstrapServers, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> adminConfig = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                (int) timeout.toMillis());
        try (Admin admin = Admin.create(adminConfig)) {
            admin.describeCluster().nodes().get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
            admin.listConsumerGroupOffsets("weir-embedded-readiness")
                    .all()
                    .get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Embedded Kafka at " + bootstrapServers + " did not become ready", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for embedded Kafka", e);
        }
        Map<String, Object> producerConfig = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                "weir-embedded-readiness-" + UUID.randomUUID(),
                ProducerConfig.MAX_BLOCK_MS_CONFIG,
                (int) remainingMillis(deadline));
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
        }
    }

    private static long remainingMillis(long deadlineNanos) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port on " + HOST, e);
        }
    }

    private static boolean isTaken(int port) {
        try (ServerSocket ignored = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
