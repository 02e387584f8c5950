package io.weir.bench.jmh;

import io.weir.kafka.EmbeddedKafka;
import io.weir.kafka.KafkaClients;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Sending a running total into the in-process broker from two worker threads, as a run's two
 * workers do: through one transactional producer they share (what a run does today: one producer
 * per open epoch), through a transactional producer per thread, and the baseline of one shared
 * idempotent producer without transactions. Producers are configured as Weir's
 * ({@link KafkaClients}); every transaction spans one measurement iteration. Records per second
 * (the broker runs in the same JVM and takes its share of the two cores, as in the throughput
 * bench's default mode).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(2)
@Fork(value = 1, jvmArgs = {"-Xmx2g", "-XX:+UseParallelGC"})
public class SendBench {
    private static final String TOPIC = "totals";
    private static final int PARTITIONS = 4;
    private static final long TRANSACTION_TIMEOUT_MS = 600_000;

    /** The broker and the shared producers. */
    @State(Scope.Benchmark)
    public static class Broker {
        EmbeddedKafka kafka;
        KafkaClients clients;
        KafkaProducer<byte[], byte[]> shared;
        KafkaProducer<byte[], byte[]> plain;
        final AtomicInteger ids = new AtomicInteger();

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            kafka = EmbeddedKafka.builder().port(0).start();
            clients = KafkaClients.of(kafka.bootstrapServers());
            try (Admin admin = clients.admin("send-bench")) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
            }
            shared = clients.transactionalProducer("send-bench-shared", TRANSACTION_TIMEOUT_MS);
            shared.initTransactions();
            plain = clients.idempotentProducer("send-bench-plain");
        }

        @Setup(Level.Iteration)
        public void begin() {
            shared.beginTransaction();
        }

        @TearDown(Level.Iteration)
        public void commit() {
            shared.commitTransaction();
            plain.flush();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            shared.close();
            plain.close();
            kafka.close();
        }
    }

    /** A thread's own transactional producer and its records. */
    @State(Scope.Thread)
    public static class Worker {
        KafkaProducer<byte[], byte[]> own;
        byte[][] keys;
        byte[][] values;
        int i;

        @Setup(Level.Trial)
        public void setUp(Broker broker) {
            own = broker.clients.transactionalProducer(
                    "send-bench-" + broker.ids.incrementAndGet(), TRANSACTION_TIMEOUT_MS);
            own.initTransactions();
            keys = new byte[1024][];
            values = new byte[1024][];
            for (int k = 0; k < keys.length; k++) {
                String user = "u" + (k * 7919 % 10_000);
                keys[k] = user.getBytes(StandardCharsets.UTF_8);
                values[k] = ("{\"user\":\"" + user + "\",\"count\":" + k + ",\"sum\":" + 42 * k + ",\"lastSeq\":" + k + "}")
                        .getBytes(StandardCharsets.UTF_8);
            }
        }

        @Setup(Level.Iteration)
        public void begin() {
            own.beginTransaction();
        }

        @TearDown(Level.Iteration)
        public void commit() {
            own.commitTransaction();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            own.close();
        }

        ProducerRecord<byte[], byte[]> next() {
            int k = i = (i + 1) & 1023;
            return new ProducerRecord<>(TOPIC, null, keys[k], values[k]);
        }
    }

    @Benchmark
    public Object sharedTransactional(Broker broker, Worker worker) {
        return broker.shared.send(worker.next());
    }

    @Benchmark
    public Object transactionalPerThread(Worker worker) {
        return worker.own.send(worker.next());
    }

    @Benchmark
    public Object baselineSharedPlain(Broker broker, Worker worker) {
        return broker.plain.send(worker.next());
    }
}
