package io.weir.tools;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes running-totals input: {@code orders} records keyed by user id with value
 * {@code {"user":"u17","amount":37,"seq":123}}, where {@code seq} counts up per user from 1. A fixed
 * seed gives the same stream every time; the idempotent producer writes each record exactly once.
 */
public final class OrderGenerator implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final int users;
    private final Random random;
    private final Map<Integer, Long> seqs = new HashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicBoolean stopped = new AtomicBoolean();

    public OrderGenerator(String bootstrap, String topic, int users, long seed) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.users = users;
        this.random = new Random(seed);
    }

    /** The next order as key and value bytes. */
    public byte[][] next() {
        int user = random.nextInt(users);
        long seq = seqs.merge(user, 1L, Long::sum);
        int amount = 1 + random.nextInt(100);
        String id = "u" + user;
        String value = "{\"user\":\"" + id + "\",\"amount\":" + amount + ",\"seq\":" + seq + "}";
        return new byte[][] {id.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)};
    }

    /** Sends {@code count} orders as fast as the producer takes them, then flushes. */
    public void send(long count) {
        for (long i = 0; i < count && !stopped.get(); i++) {
            byte[][] kv = next();
            producer.send(new ProducerRecord<>(topic, kv[0], kv[1]));
            sent.incrementAndGet();
        }
        producer.flush();
    }

    /**
     * Sends about {@code perSecond} orders per second until {@link #stop} or {@code max} orders;
     * the pacing sleeps between small batches, on the caller's thread.
     */
    public void sendPaced(int perSecond, long max) throws InterruptedException {
        long start = System.nanoTime();
        while (!stopped.get() && sent.get() < max) {
            long due = (System.nanoTime() - start) * perSecond / 1_000_000_000L;
            long batch = Math.min(due - sent.get(), max - sent.get());
            if (batch > 0) {
                send(batch);
            } else {
                Thread.sleep(Duration.ofMillis(10).toMillis());
            }
        }
        producer.flush();
    }

    public long sent() {
        return sent.get();
    }

    public void stop() {
        stopped.set(true);
    }

    @Override
    public void close() {
        stop();
        producer.close(Duration.ofSeconds(5));
    }
}
