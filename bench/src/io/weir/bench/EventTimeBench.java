package io.weir.bench;

import io.weir.app.Instance;
import io.weir.app.InstanceEvents;
import io.weir.app.Jobs;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.kafka.EmbeddedKafka;
import io.weir.state.RocksDbBackend;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Event-time jobs next to running totals, in one run on an embedded broker in this JVM: the
 * running totals (the baseline), per-user counts per minute (tumbling windows, on-close) over the
 * same events, and the order–payment left join (two topics, 10 s), each exactly-once with 1 s
 * checkpoints from offset 0 until it committed the end of every input partition. Events are ms
 * apart in event time, out of order by up to 2 s. For the window and join runs it also prints the
 * state size (RocksDB live data, all tasks) after each checkpoint: it stays flat while windows
 * close. A benchmark, not a test: it prints figures and never fails on a time.
 *
 * <p>{@code bench/run-event-time.sh [--events N] [--users N] [--partitions N]}
 */
public final class EventTimeBench {
    private final int events;
    private final int users;
    private final int partitions;
    private String bootstrap;
    private Admin admin;

    private EventTimeBench(Map<String, String> options) {
        this.events = Integer.parseInt(options.getOrDefault("events", "1000000"));
        this.users = Integer.parseInt(options.getOrDefault("users", "10000"));
        this.partitions = Integer.parseInt(options.getOrDefault("partitions", "4"));
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        new EventTimeBench(options).run();
        System.exit(0);
    }

    private record Run(String name, long records, long nanos, List<Long> stateBytes) {
        double perSecond() {
            return records * 1e9 / nanos;
        }
    }

    private void run() throws Exception {
        System.out.printf(
                "Weir event-time benchmark: %,d events, %d partitions, %,d users, %d cores%n",
                events, partitions, users, Runtime.getRuntime().availableProcessors());
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            bootstrap = kafka.bootstrapServers();
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
            long base = System.currentTimeMillis() - 3 * 3_600_000L;
            String userEvents = topic("bench-events");
            String orders = topic("bench-orders");
            String payments = topic("bench-payments");
            Random random = new Random(42);
            try (KafkaProducer<String, String> producer = producer()) {
                for (int i = 0; i < events; i++) {
                    long ts = base + i - random.nextInt(2_000);
                    String user = "u" + random.nextInt(users);
                    producer.send(new ProducerRecord<>(
                            userEvents, null, ts, user,
                            "{\"user\":\"" + user + "\",\"amount\":" + (1 + random.nextInt(100)) + ",\"ts\":" + ts + "}"));
                }
                // Half orders, half payments keyed by order id; 4 in 5 orders paid within 10 s.
                for (int i = 0; i < events / 2; i++) {
                    long ts = base + 2L * i - random.nextInt(2_000);
                    int p = i % partitions;
                    producer.send(new ProducerRecord<>(
                            orders, p, ts, "o" + i, "{\"order\":" + i + ",\"amount\":5,\"ts\":" + ts + "}"));
                    long paid = random.nextInt(5) == 0 ? ts + 20_000 : ts + random.nextInt(8_000);
                    producer.send(new ProducerRecord<>(
                            payments, p, paid, "o" + i, "{\"paid\":5,\"ts\":" + paid + "}"));
                }
            }
            System.out.println("loaded");
            job("bench-warmup", "running-totals.yaml", events, userEvents, null, "pipeline.2.sink.topic");
            System.out.println("(warm-up done)");
            Run totals = job("bench-totals", "running-totals.yaml", events, userEvents, null, "pipeline.2.sink.topic");
            Run windows =
                    job("bench-windows", "user-counts-per-minute.yaml", events, userEvents, null, "pipeline.2.sink.topic");
            Run join = job("bench-join", "order-payments.yaml", events, orders, payments, "pipeline.2.sink.topic");
            System.out.println();
            System.out.println("| job (exactly-once, 1 s checkpoints) | input records | seconds | records/s | of running totals |");
            System.out.println("| --- | ---: | ---: | ---: | ---: |");
            for (Run r : List.of(totals, windows, join)) {
                System.out.printf(
                        "| %s | %,d | %.1f | %,.0f | %.0f %% |%n",
                        r.name, r.records, r.nanos / 1e9, r.perSecond(), 100 * r.perSecond() / totals.perSecond());
            }
            System.out.println();
            System.out.println("State size (RocksDB estimate-live-data-size, all tasks, KiB) after each checkpoint:");
            for (Run r : List.of(totals, windows, join)) {
                System.out.printf("  %s: %s%n", r.name, r.stateBytes.stream().map(b -> Long.toString(b / 1024)).toList());
            }
            admin.close();
        }
    }

    private Run job(String application, String example, long records, String input, String side, String sinkKey)
            throws Exception {
        List<String> sets = new ArrayList<>(List.of(
                "kafka.bootstrap=" + bootstrap,
                "application=" + application,
                "instance-id=bench",
                "pipeline.0.source.topic=" + input,
                sinkKey + "=" + topic(application + "-out"),
                "processing.checkpoint.interval=1s",
                "processing.guarantee=exactly-once",
                "processing.state.dir=" + Path.of("target", "bench-state", application).toAbsolutePath()));
        if (side != null) {
            sets.add("pipeline.1.join.with.topic=" + side);
            sets.add("pipeline.1.join.within=10s");
            sets.add("pipeline.0.source.watermark.max-out-of-orderness=2s");
        } else if (example.startsWith("user-counts")) {
            sets.add("pipeline.0.source.watermark.max-out-of-orderness=2s");
        }
        WeirConfig config = new ConfigLoader().load(Path.of("config", "examples", example), Map.of(), sets);
        List<Long> sizes = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.listen(new InstanceEvents() {
                @Override
                public void stateSampled(Map<String, Map<String, Long>> properties) {
                    sizes.add(properties.values().stream()
                            .mapToLong(p -> p.getOrDefault(RocksDbBackend.LIVE_DATA, 0L))
                            .sum());
                }
            });
            instance.start();
            while (committed(application) < records) {
                if (instance.stopped()) {
                    throw new IllegalStateException(application + " stopped", instance.awaitTermination());
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
            long nanos = System.nanoTime() - start;
            System.out.printf("  %s: %.1f s, %d checkpoints%n", application, nanos / 1e9, instance.stats().lastCompletedCheckpoint());
            String name = example.replace(".yaml", "");
            return new Run(name, records, nanos, sizes);
        }
    }

    private long committed(String group) throws Exception {
        Map<?, OffsetAndMetadata> offsets =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        return offsets.values().stream().filter(o -> o != null).mapToLong(OffsetAndMetadata::offset).sum();
    }

    private String topic(String name) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        return name;
    }

    private KafkaProducer<String, String> producer() {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }
}
