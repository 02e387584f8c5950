package io.weir.bench;

import io.weir.app.Instance;
import io.weir.app.Jobs;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.WeirProcess;
import io.weir.kafka.EmbeddedKafka;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.Recording;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Throughput and recovery of the running-totals job on an embedded single-node broker — a
 * benchmark, not a test: it prints figures and never fails on a time. Run it with
 * {@code bench/run-throughput.sh}.
 *
 * <p>It loads the orders once, then reads all of them from offset 0 into a fresh output topic with
 * a fresh application id, three times: (1) a plain consumer→producer copy without transactions or
 * state, the ceiling for this broker and machine; (2) running totals exactly-once with 1 s
 * checkpoints; (3) running totals at-least-once. A run ends when every record is acknowledged
 * (copy) or when the job committed the end of every input partition (running totals). All three
 * share the JVM with the broker, as they share the machine's cores.
 *
 * <p>Then (4) recovery: the exactly-once job runs in a child JVM ({@code weir run}) through the
 * same input; it is killed with {@code kill -9} after some progress and started again at once, and
 * the time from the restart command to the first new record a read_committed reader sees in the
 * output is measured, with the child's own log times for its start-up, assignment and restore.
 */
public final class ThroughputBench {
    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
    private static final Path EXAMPLE = Path.of("config", "examples", "running-totals.yaml");
    private static final Path TWO_STAGE = Path.of("bench", "two-stage.yaml");

    private final int orders;
    private final int users;
    private final int partitions;
    private final int recoveryRounds;
    /** Which recovery rounds to run: without a class-data archive, with one, or both (in that order). */
    private final List<Boolean> recoveryCds;
    private final boolean verify;
    private final boolean skipCopy;
    /** Print the clients' batching (JMX) at the end of each copy and running-totals run. */
    private final boolean clientStats;
    /** Only the recovery rounds: no warm-up, no throughput or latency runs. */
    private final boolean onlyRecovery;
    private final int repeat;
    /** Warm-up passes at most; they stop once one compiles for less than a fifth of its time. */
    private final int warmupPasses;
    private final boolean ownJvmBroker;
    /** The broker's process with --broker own-jvm, else null. */
    private ProcessHandle brokerProcess;
    private final Path profileDir;
    private final List<String> extraSettings;
    private final int latencyRate;
    private final int latencySeconds;
    private String bootstrap;
    private Admin admin;
    private String input;

    private ThroughputBench(Map<String, String> options) {
        this.orders = Integer.parseInt(options.getOrDefault("orders", "2000000"));
        this.users = Integer.parseInt(options.getOrDefault("users", "10000"));
        this.partitions = Integer.parseInt(options.getOrDefault("partitions", "4"));
        this.recoveryRounds = Integer.parseInt(options.getOrDefault("recovery-rounds", "3"));
        this.recoveryCds = switch (options.getOrDefault("recovery-cds", "both")) {
            case "off" -> List.of(false);
            case "on" -> List.of(true);
            case "both" -> List.of(false, true);
            default -> throw new IllegalArgumentException(
                    "--recovery-cds is off, on or both, was " + options.get("recovery-cds"));
        };
        this.verify = options.containsKey("verify");
        this.profileDir = options.containsKey("profile") ? Path.of(options.get("profile")) : null;
        this.extraSettings =
                options.containsKey("set") ? List.of(options.get("set").split(",")) : List.of();
        this.skipCopy = options.containsKey("skip-copy");
        this.clientStats = options.containsKey("client-stats");
        this.onlyRecovery = options.containsKey("only-recovery");
        this.repeat = Integer.parseInt(options.getOrDefault("repeat", "1"));
        this.warmupPasses = Integer.parseInt(options.getOrDefault("warmup", "3"));
        String broker = options.getOrDefault("broker", "in-process");
        if (!broker.equals("in-process") && !broker.equals("own-jvm")) {
            throw new IllegalArgumentException("--broker is in-process or own-jvm, was " + broker);
        }
        this.ownJvmBroker = broker.equals("own-jvm");
        this.latencyRate = Integer.parseInt(options.getOrDefault("latency-rate", "5000"));
        this.latencySeconds = Integer.parseInt(options.getOrDefault("latency-seconds", "20"));
    }

    /**
     * Options: --orders N, --users N, --partitions N, --recovery-rounds N, --verify, --profile DIR
     * (JFR recordings of the running-totals runs), --set k=v,k=v (overrides for every job run),
     * --latency-rate N and --latency-seconds N (the paced visibility-latency runs; 0 seconds skips
     * them), --warmup N (warm-up passes of every kind at most, until one compiles for under a fifth
     * of its time; default 3), --repeat N (each measured run N times in rounds; the table shows the median run and the
     * range of the ratios to the copy), --broker in-process|own-jvm (where the broker runs; own-jvm
     * reports its CPU apart), --recovery-cds off|on|both (recovery rounds without a class-data
     * archive, with one like the image's, or both in one run: the default), --only-recovery (the
     * recovery rounds alone), --client-stats (the Kafka clients' batching at the end of each copy
     * and running-totals run, from their JMX metrics).
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --option, was " + args[i]);
            }
            String name = args[i].substring(2);
            boolean flag = name.equals("verify")
                    || name.equals("skip-copy")
                    || name.equals("only-recovery")
                    || name.equals("client-stats");
            options.put(name, flag ? "true" : args[++i]);
        }
        new ThroughputBench(options).run();
        System.exit(0);
    }

    private record Run(String name, long records, long nanos, CpuSampler.Load cpu, double steady) {
        Run(String name, long records, long nanos, CpuSampler.Load cpu) {
            this(name, records, nanos, cpu, Double.NaN);
        }

        /** NaN for the copy when --skip-copy left it out. */
        double perSecond() {
            return nanos == 0 ? Double.NaN : records * 1e9 / nanos;
        }

        /** CPU time of the whole JVM (job, broker, bench) per record, in microseconds. */
        String cpuMicrosPerRecord() {
            return cpu == null ? "" : String.format("%.1f", cpu.jvmCpuNanos() / 1e3 / records);
        }

        String brokerMicrosPerRecord() {
            return cpu == null ? "" : String.format("%.1f", cpu.brokerCpuNanos() / 1e3 / records);
        }
    }

    /**
     * A run's visible progress over time (outputs acknowledged, inputs committed, outputs read), kept
     * where it changes. The steady rate leaves out the start (a job's start-up: admin checks, group
     * join, producers; a copy's first fetch) and the end (a job's output becomes visible at the
     * checkpoint after its last record, up to an interval later): records between the first change
     * and the last one before the whole count, over the time between them. For a job committing
     * every second these are two checkpoint commits, whose offsets were taken at their barriers, so
     * the rate is the record path's own, without the quantisation of a run's end to a checkpoint.
     */
    private static final class Progress {
        private final long total;
        private long firstNanos = -1;
        private long firstCount;
        private long lastNanos = -1;
        private long lastCount;
        private long seen;

        Progress(long total) {
            this.total = total;
        }

        void observe(long count) {
            if (count == seen) {
                return;
            }
            seen = count;
            long now = System.nanoTime();
            if (firstNanos < 0) {
                firstNanos = now;
                firstCount = count;
            } else if (count < total) {
                lastNanos = now;
                lastCount = count;
            }
        }

        /** Records per second between the first and the last change before the end; NaN if fewer than two. */
        double steady() {
            return lastNanos <= firstNanos ? Double.NaN : (lastCount - firstCount) * 1e9 / (lastNanos - firstNanos);
        }
    }

    /** Visibility latency of one job: input appended → output readable by a read_committed reader. */
    private record Latency(String name, int records, long p50, long p99, long max) {}

    private record Recovery(
            String archive,
            int round, long committedBeforeKill, long killMillis, long firstOutputMillis, String childTimes) {}

    private void run() throws Exception {
        System.out.printf(
                "Weir throughput benchmark: %,d orders, %d partitions, %,d users, %d cores, java %s%n",
                orders,
                partitions,
                users,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        try (AutoCloseable kafka = startBroker()) {
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
            input = createTopic("bench-orders");
            long loadStart = System.nanoTime();
            try (OrderGenerator generator = new OrderGenerator(bootstrap, input, users, 42)) {
                generator.send(orders);
            }
            Run load =
                    new Run("load (order generator, idempotent producer)", orders, System.nanoTime() - loadStart, null);
            System.out.printf("loaded in %.1f s (%,.0f records/s)%n", load.nanos / 1e9, load.perSecond());

            if (!onlyRecovery) {
                throughput();
            }
            List<Recovery> recoveries = new ArrayList<>();
            for (boolean cds : recoveryCds) {
                recoveries.addAll(recovery(cds));
            }

            System.out.println();
            System.out.println("Recovery after kill -9 (exactly-once, child JVM, 1 s checkpoints; restarted at once"
                    + " after the killed process was gone):");
            System.out.println("| class-data archive | round | committed inputs at kill | kill -9 until gone (ms) | restart until first new"
                    + " committed output (ms) | child log, ms after restart: started / assigned / producers initialised"
                    + " / restored / first checkpoint |");
            System.out.println("| --- | ---: | ---: | ---: | ---: | --- |");
            for (Recovery r : recoveries) {
                System.out.printf(
                        "| %s | %d | %,d | %d | %d | %s |%n",
                        r.archive,
                        r.round, r.committedBeforeKill, r.killMillis, r.firstOutputMillis, r.childTimes);
            }
            admin.close();
        }
    }

    /**
     * The throughput runs (a warm-up of every kind, then --repeat rounds of copy, exactly-once,
     * at-least-once, two-stage) and the visibility latency runs, each table printed at the end.
     */
    private void throughput() throws Exception {
        // Warm-up: unreported passes of every kind of run, so the measured runs compare steady
        // states — measured cold, whichever run came first paid for class loading and JIT
        // compilation (seen here: the same job at 42 % of the copy first and 65 % second). Each
        // kind warms its own paths: after an at-least-once warm-up alone, the first exactly-once
        // run still compiled ~2,400 methods (transactions, read_committed, in the broker too).
        // One pass is not enough: after it, the JIT still compiled for about as long as each pass
        // of the next ran (its threads on the two cores the runs need; Kafka's client and broker
        // code, mostly), and the measured runs were faster round by round. So passes repeat until
        // the JIT's time in one (summed over its threads) is less than a fifth of the pass's, at
        // most --warmup passes (default 3): here it went 30 s, 8 s, 3 s over passes of 30, 20, 17 s.
        for (int pass = 1; pass <= warmupPasses; pass++) {
            String suffix = pass == 1 ? "" : "-" + pass;
            long start = System.nanoTime();
            long jitStart = CpuSampler.jitMillis();
            if (!skipCopy) {
                copy("bench-copy-warmup" + suffix);
            }
            runningTotals("bench-warmup-eo" + suffix, true);
            runningTotals("bench-warmup-alo" + suffix, false);
            twoStage("bench-warmup-two-stage" + suffix);
            long jit = CpuSampler.jitMillis() - jitStart;
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("(warm-up pass %d: JIT compiling %,d ms in %,d ms)%n", pass, jit, millis);
            if (jit * 5 < millis) {
                break;
            }
        }
        System.out.println("(warm-up done)");
        // Each measured run --repeat times, in rounds (copy, exactly-once, at-least-once,
        // two-stage), so that a slow spell of the shared machine hits every kind alike; the
        // table gives each kind's median run and the range of its ratios to its round's copy.
        List<List<Run>> rounds = new ArrayList<>();
        for (int round = 1; round <= repeat; round++) {
            String suffix = repeat == 1 ? "" : "-" + round;
            Run copy = skipCopy ? new Run("copy (skipped)", 0, 0, null) : copy("bench-copy" + suffix);
            report(copy, copy);
            Run eo = runningTotals("bench-eo" + suffix, true);
            report(eo, copy);
            Run alo = runningTotals("bench-alo" + suffix, false);
            report(alo, copy);
            Run twoStage = twoStage("bench-two-stage" + suffix);
            report(twoStage, copy);
            rounds.add(List.of(copy, eo, alo, twoStage));
        }
        List<Latency> latencies = new ArrayList<>();
        if (latencySeconds > 0) {
            latencies.add(latency("running totals (1 stage)", "lat-one-stage", EXAMPLE, "pipeline.2.sink.topic"));
            latencies.add(latency("two-stage (key-by)", "lat-two-stage", TWO_STAGE, "pipeline.3.sink.topic"));
        }
        System.out.println();
        System.out.println("| run | seconds | records/s | of the copy | steady records/s | of the copy's steady |"
                + " CPU: machine / this JVM (of 100 % = all cores) | JVM CPU µs per record"
                + (brokerProcess == null ? " (broker included)" : "")
                + " |" + (brokerProcess == null ? "" : " broker JVM CPU µs per record |"));
        System.out.println(
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" + (brokerProcess == null ? "" : " ---: |"));
        for (int kind = 0; kind < 4; kind++) {
            int k = kind;
            List<Run> runs = rounds.stream().map(r -> r.get(k)).toList();
            List<Double> ratios = rounds.stream()
                    .map(r -> r.get(k).perSecond() / r.get(0).perSecond())
                    .sorted()
                    .toList();
            Run r = runs.stream()
                    .sorted(java.util.Comparator.comparingDouble(Run::perSecond))
                    .toList()
                    .get(runs.size() / 2);
            Run copy = rounds.get(runs.indexOf(r)).get(0);
            String range = ratios.size() == 1 || skipCopy
                    ? ""
                    : String.format(" (%.0f–%.0f %%)", 100 * ratios.get(0), 100 * ratios.get(ratios.size() - 1));
            List<Double> steadyRatios = rounds.stream()
                    .map(x -> x.get(k).steady / x.get(0).steady)
                    .filter(x -> !x.isNaN())
                    .sorted()
                    .toList();
            String steadyRange = steadyRatios.size() < 2
                    ? ""
                    : String.format(
                            " (%.0f–%.0f %%)",
                            100 * steadyRatios.get(0), 100 * steadyRatios.get(steadyRatios.size() - 1));
            System.out.printf(
                    "| %s | %.1f | %,.0f | %s%s | %s | %s%s | %s | %s |%s%n",
                    r.name,
                    r.nanos / 1e9,
                    r.perSecond(),
                    percent(r.perSecond() / copy.perSecond()),
                    range,
                    Double.isNaN(r.steady) ? "–" : String.format("%,.0f", r.steady),
                    Double.isNaN(r.steady / copy.steady)
                            ? "–"
                            : String.format("%.0f %%", 100 * r.steady / copy.steady),
                    steadyRange,
                    r.cpu == null ? "" : r.cpu,
                    r.cpuMicrosPerRecord(),
                    brokerProcess == null ? "" : " " + r.brokerMicrosPerRecord() + " |");
        }
        if (!latencies.isEmpty()) {
            System.out.println();
            System.out.printf(
                    "Visibility latency at %,d orders/s, exactly-once, 1 s checkpoints (input appended → output"
                            + " readable by read_committed; the first 5 s are left out):%n",
                    latencyRate);
            System.out.println("| job | records | p50 ms | p99 ms | max ms |");
            System.out.println("| --- | ---: | ---: | ---: | ---: |");
            for (Latency l : latencies) {
                System.out.printf("| %s | %,d | %d | %d | %d |%n", l.name, l.records, l.p50, l.p99, l.max);
            }
            if (latencies.size() == 2) {
                System.out.printf(
                        "added by the second stage: p50 %+d ms, p99 %+d ms%n",
                        latencies.get(1).p50 - latencies.get(0).p50,
                        latencies.get(1).p99 - latencies.get(0).p99);
            }
        }
    }

    /**
     * The broker: in this JVM (the default), or with --broker own-jvm in a JVM of its own (this
     * classpath, io.weir.bench.BrokerMain), whose CPU time is then reported apart.
     */
    private AutoCloseable startBroker() throws Exception {
        if (!ownJvmBroker) {
            EmbeddedKafka kafka = EmbeddedKafka.start();
            bootstrap = kafka.bootstrapServers();
            return kafka;
        }
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx1g",
                        "-XX:+UseParallelGC",
                        "-cp",
                        System.getProperty("java.class.path"),
                        BrokerMain.class.getName())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        java.io.BufferedReader out = new java.io.BufferedReader(
                new java.io.InputStreamReader(p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
        for (String line = out.readLine(); ; line = out.readLine()) {
            if (line == null) {
                throw new IllegalStateException("the broker JVM exited before it was ready: " + p.waitFor());
            }
            if (line.startsWith("BOOTSTRAP ")) {
                bootstrap = line.substring("BOOTSTRAP ".length()).trim();
                break;
            }
        }
        Thread drain = new Thread(
                () -> {
                    try {
                        while (out.readLine() != null) {
                            // the broker's log: not needed, but the pipe must not fill up
                        }
                    } catch (java.io.IOException e) {
                        // the broker is gone
                    }
                },
                "broker-log");
        drain.setDaemon(true);
        drain.start();
        brokerProcess = p.toHandle();
        System.out.printf("broker in its own JVM (pid %d) at %s%n", p.pid(), bootstrap);
        return () -> {
            p.getOutputStream().close();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        };
    }

    private static void report(Run run, Run ceiling) {
        if (run.nanos == 0) {
            return; // the copy, skipped
        }
        System.out.printf(
                "%s: %,d records in %.1f s = %,.0f records/s (%s of the copy; %s; CPU machine / this JVM: %s;"
                        + " JIT compiling %,d ms)%n",
                run.name,
                run.records,
                run.nanos / 1e9,
                run.perSecond(),
                percent(run.perSecond() / ceiling.perSecond()),
                Double.isNaN(run.steady)
                        ? "no steady rate: too few changes of its progress"
                        : String.format(
                                "steady %,.0f records/s%s",
                                run.steady,
                                Double.isNaN(ceiling.steady)
                                        ? ""
                                        : String.format(", %.0f %% of the copy's", 100 * run.steady / ceiling.steady)),
                run.cpu,
                run.cpu == null ? 0 : run.cpu.jitMillis());
        System.out.println("  memory of this JVM after the run: " + memory());
    }

    /** A share as a whole percentage; "–" when the copy was skipped. */
    private static String percent(double share) {
        return Double.isNaN(share) ? "–" : String.format("%.0f %%", 100 * share);
    }

    /** Resident set now and at its peak (Linux /proc/self/status), and the heap in use. */
    private static String memory() {
        String rss = "?";
        String peak = "?";
        try {
            for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = line.substring(6).trim();
                } else if (line.startsWith("VmHWM:")) {
                    peak = line.substring(6).trim();
                }
            }
        } catch (java.io.IOException e) {
            // not Linux: only the heap
        }
        Runtime r = Runtime.getRuntime();
        return String.format("RSS %s (peak %s), heap in use %,d MiB", rss, peak, (r.totalMemory() - r.freeMemory()) >> 20);
    }

    /** The ceiling: one thread polls every input partition from 0 and sends each record on, no transactions. */
    private Run copy(String topic) throws Exception {
        String output = createTopic(topic);
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // The producer settings Weir's clients use (KafkaClients.producerBase).
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(128 * 1024));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, topic + "-producer");
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, topic + "-consumer");
        AtomicLong acked = new AtomicLong();
        AtomicReference<Exception> failed = new AtomicReference<>();
        CpuSampler cpu = CpuSampler.start(brokerProcess);
        long start = System.nanoTime();
        double steady;
        try (KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                parts.add(new TopicPartition(input, i));
            }
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            long read = 0;
            Progress progress = new Progress(orders);
            while (read < orders) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    producer.send(new ProducerRecord<>(output, r.partition(), r.key(), r.value()), (m, e) -> {
                        if (e != null) {
                            failed.compareAndSet(null, e);
                        } else {
                            acked.incrementAndGet();
                        }
                    });
                }
                read += records.count();
                progress.observe(acked.get());
            }
            producer.flush();
            steady = progress.steady();
            if (clientStats) {
                ClientStats.of(p.get(ProducerConfig.CLIENT_ID_CONFIG).toString()).forEach(System.out::println);
                ClientStats.of(c.get(ConsumerConfig.CLIENT_ID_CONFIG).toString()).forEach(System.out::println);
            }
        }
        long nanos = System.nanoTime() - start;
        if (failed.get() != null || acked.get() != orders) {
            throw new IllegalStateException("the copy acknowledged " + acked.get() + " of " + orders, failed.get());
        }
        return new Run("copy: consumer → producer, no transactions, no state", orders, nanos, cpu.stop(), steady);
    }

    /** The running-totals job in this JVM from offset 0 until it committed the end of every input partition. */
    private Run runningTotals(String application, boolean exactlyOnce) throws Exception {
        String output = createTopic(application + "-totals");
        WeirConfig config = new ConfigLoader()
                .load(EXAMPLE, Map.of(), jobSettings(application, output, "pipeline.2.sink.topic", exactlyOnce, input));
        Recording recording = startProfile(application);
        CpuSampler cpu = CpuSampler.start(brokerProcess);
        long start = System.nanoTime();
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            long lastPrint = start;
            Progress progress = new Progress(orders);
            long done;
            while ((done = committed(application)) < orders) {
                progress.observe(done);
                if (instance.stopped()) {
                    throw new IllegalStateException(application + " stopped", instance.awaitTermination());
                }
                TimeUnit.MILLISECONDS.sleep(20);
                if (System.nanoTime() - lastPrint > 10_000_000_000L) {
                    lastPrint = System.nanoTime();
                    System.out.printf(
                            "  %s: %,d committed, checkpoint %d took %d ms%n",
                            application,
                            committed(application),
                            instance.stats().lastCompletedCheckpoint(),
                            instance.stats().lastCheckpointMillis());
                }
            }
            long nanos = System.nanoTime() - start;
            CpuSampler.Load load = cpu.stop();
            stopProfile(recording, application);
            if (clientStats) {
                ClientStats.of(application).forEach(System.out::println);
            }
            System.out.printf(
                    "  %s: %d checkpoints, last took %d ms, %d failovers%n",
                    application,
                    instance.stats().lastCompletedCheckpoint(),
                    instance.stats().lastCheckpointMillis(),
                    instance.stats().failovers());
            String name = "running totals, " + (exactlyOnce ? "exactly-once" : "at-least-once") + ", 1 s checkpoints";
            Run run = new Run(name, orders, nanos, load, progress.steady());
            if (verify) {
                instance.close();
                System.out.println("  " + application + ": verify "
                        + new RunningTotalsVerifier(bootstrap).verify(input, output, exactlyOnce));
            }
            return run;
        }
    }

    /**
     * The two-stage job (bench/two-stage.yaml: key-by, then the running totals) exactly-once from
     * offset 0, until a read_committed reader counted one output per order. Its input offsets alone
     * cannot tell the end: stage 1 still has the repartition topic to read.
     */
    private Run twoStage(String application) throws Exception {
        String output = createTopic(application + "-totals");
        WeirConfig config = new ConfigLoader().load(TWO_STAGE, Map.of(), jobSettings(application, output,
                "pipeline.3.sink.topic", true, input));
        Recording recording = startProfile(application);
        CpuSampler cpu = CpuSampler.start(brokerProcess);
        long start = System.nanoTime();
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
                KafkaConsumer<byte[], byte[]> reader = committedReader()) {
            reader.assign(partitionsOf(output));
            reader.seekToBeginning(partitionsOf(output));
            instance.start();
            long seen = 0;
            Progress progress = new Progress(orders);
            while (seen < orders) {
                if (instance.stopped()) {
                    throw new IllegalStateException(application + " stopped", instance.awaitTermination());
                }
                int read = reader.poll(Duration.ofMillis(100)).count();
                seen += read;
                if (read == 0) {
                    // Caught up with what is committed: a change seen here is one commit's, not a
                    // part of one read in polls of 500 (the last of which would come after the end).
                    progress.observe(seen);
                }
            }
            long nanos = System.nanoTime() - start;
            CpuSampler.Load load = cpu.stop();
            stopProfile(recording, application);
            System.out.printf(
                    "  %s: %d checkpoints, %d failovers%n",
                    application, instance.stats().lastCompletedCheckpoint(), instance.stats().failovers());
            return new Run(
                    "two-stage (key-by → running totals), exactly-once, 1 s checkpoints",
                    orders,
                    nanos,
                    load,
                    progress.steady());
        }
    }

    /**
     * A job exactly-once over a fresh input fed at {@code latencyRate} orders/s for {@code
     * latencySeconds}: for each output record a read_committed reader sees, now minus the record's
     * timestamp (the input's, carried through every stage) — input appended to output readable.
     */
    private Latency latency(String name, String application, Path job, String sinkKey) throws Exception {
        String in = createTopic(application + "-orders");
        String output = createTopic(application + "-totals");
        WeirConfig config =
                new ConfigLoader().load(job, Map.of(), jobSettings(application, output, sinkKey, true, in));
        List<Long> samples = new ArrayList<>();
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
                KafkaConsumer<byte[], byte[]> reader = committedReader();
                OrderGenerator generator = new OrderGenerator(bootstrap, in, users, 7)) {
            reader.assign(partitionsOf(output));
            reader.seekToBeginning(partitionsOf(output));
            instance.start();
            Thread feeder = new Thread(
                    () -> {
                        try {
                            generator.sendPaced(latencyRate, (long) latencyRate * latencySeconds);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "latency-feeder");
            long start = System.currentTimeMillis();
            feeder.start();
            long seen = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(latencySeconds + 60L);
            while (feeder.isAlive() || seen < generator.sent()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + ": saw " + seen + " of " + generator.sent() + " outputs");
                }
                for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(5))) {
                    long now = System.currentTimeMillis();
                    seen++;
                    if (r.timestamp() >= start + 5_000) {
                        samples.add(now - r.timestamp());
                    }
                }
            }
        }
        samples.sort(null);
        if (samples.isEmpty()) {
            throw new IllegalStateException(name + ": no latency samples");
        }
        Latency l = new Latency(
                name,
                samples.size(),
                samples.get(samples.size() / 2),
                samples.get((int) Math.min(samples.size() - 1, Math.round(samples.size() * 0.99))),
                samples.get(samples.size() - 1));
        System.out.printf("  latency %s: p50 %d ms, p99 %d ms, max %d ms%n", name, l.p50, l.p99, l.max);
        return l;
    }

    private List<String> jobSettings(
            String application, String output, String sinkKey, boolean exactlyOnce, String inputTopic) {
        List<String> sets = new ArrayList<>(List.of(
                "kafka.bootstrap=" + bootstrap,
                "application=" + application,
                "instance-id=bench",
                "pipeline.0.source.topic=" + inputTopic,
                sinkKey + "=" + output,
                "processing.checkpoint.interval=1s",
                "processing.guarantee=" + (exactlyOnce ? "exactly-once" : "at-least-once"),
                "processing.state.dir="
                        + Path.of("target", "bench-state", application).toAbsolutePath()));
        if (clientStats) {
            // Weir's clients report no JMX metrics unless asked: --client-stats reads them there.
            sets.add("kafka.properties.metric.reporters=org.apache.kafka.common.metrics.JmxReporter");
        }
        sets.addAll(extraSettings);
        return sets;
    }

    private List<TopicPartition> partitionsOf(String topic) {
        List<TopicPartition> parts = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            parts.add(new TopicPartition(topic, i));
        }
        return parts;
    }

    /**
     * Runs the exactly-once job in a child JVM over the loaded orders; in each round waits for
     * progress, kills it, restarts it at once and times the first new committed output. With
     * {@code cds} the child JVMs map a class-data archive like the image's ({@code Dockerfile}):
     * a first run of the same job dumps the classes it loaded when stopped (SIGTERM), the measured
     * ones start from the archive.
     */
    private List<Recovery> recovery(boolean cds) throws Exception {
        String application = "bench-recovery" + (cds ? "-cds" : "");
        String output = createTopic(application + "-totals");
        List<Recovery> results = new ArrayList<>();
        List<String> sets = new ArrayList<>(List.of(
                "kafka.bootstrap=" + bootstrap,
                "application=" + application,
                "instance-id=bench-1",
                "pipeline.0.source.topic=" + input,
                "pipeline.2.sink.topic=" + output,
                "processing.checkpoint.interval=1s",
                "processing.state.dir="
                        + Path.of("target", "bench-state", application).toAbsolutePath()));
        sets.addAll(extraSettings);
        // Weir at DEBUG, as text: its log then times each step of a restart (producers
        // initialised, checkpoints completed), which childTimes reads back.
        List<String> logging = List.of("-DWEIR_LOG_LEVEL=DEBUG", "-DWEIR_LOG_FORMAT=text");
        // Without: the JDK's own default archive only, as a plain java start has.
        List<String> jvmOptions = new ArrayList<>(logging);
        // BENCH_CHILD_JAVA_OPTS: options for the restarted child alone (e.g. a profiler agent).
        String childOptions = System.getenv().getOrDefault("BENCH_CHILD_JAVA_OPTS", "").strip();
        if (!childOptions.isEmpty()) {
            jvmOptions.addAll(List.of(childOptions.split("\\s+")));
        }
        if (cds) {
            Path archive = Path.of("target", "bench-recovery.jsa").toAbsolutePath();
            Files.deleteIfExists(archive);
            String dump = "-XX:ArchiveClassesAtExit=" + archive;
            try (WeirProcess prime =
                    WeirProcess.run(childClassPath(), application + "-prime", EXAMPLE, sets, logging.get(0),
                            logging.get(1), dump)) {
                prime.start();
                while (committed(application) == 0) {
                    prime.assertAlive();
                    TimeUnit.MILLISECONDS.sleep(50);
                }
                prime.stop();
            }
            if (!Files.exists(archive)) {
                throw new IllegalStateException("the priming run wrote no class-data archive " + archive);
            }
            jvmOptions.add("-XX:SharedArchiveFile=" + archive);
        }
        try (WeirProcess weir = WeirProcess.run(
                        childClassPath(), application, EXAMPLE, sets, jvmOptions.toArray(String[]::new));
                KafkaConsumer<byte[], byte[]> reader = committedReader()) {
            weir.start();
            List<TopicPartition> parts = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                parts.add(new TopicPartition(output, i));
            }
            reader.assign(parts);
            for (int round = 1; round <= recoveryRounds; round++) {
                // Progress first: a few checkpoints completed by this start.
                long target = committed(application) + 100_000;
                while (committed(application) < Math.min(target, orders - 100_000)) {
                    weir.assertAlive();
                    TimeUnit.MILLISECONDS.sleep(50);
                }
                long committedAtKill = committed(application);
                if (committedAtKill > orders - 20_000) {
                    // Nothing (or too little) left to process after a restart: no first output to time.
                    System.out.printf(
                            "  recovery %d: not run, the job has committed %,d of %,d orders (give more --orders)%n",
                            round, committedAtKill, orders);
                    break;
                }
                long killStart = System.nanoTime();
                weir.kill();
                long killMillis = (System.nanoTime() - killStart) / 1_000_000;
                // What read_committed readers could see when the process died; anything after is new output.
                Map<TopicPartition, Long> visible = lastStableOffsets(output);
                visible.forEach(reader::seek);
                LocalTime restartedAt = LocalTime.now();
                long restartStart = System.nanoTime();
                weir.start();
                long firstOutput = -1;
                while (firstOutput < 0) {
                    if (!reader.poll(Duration.ofMillis(5)).isEmpty()) {
                        firstOutput = (System.nanoTime() - restartStart) / 1_000_000;
                    } else if (System.nanoTime() - restartStart > TimeUnit.MINUTES.toNanos(2)) {
                        throw new IllegalStateException(
                                "no committed output within 2 minutes of restart; see " + weir.log());
                    } else {
                        weir.assertAlive();
                    }
                }
                Recovery r = new Recovery(
                        cds ? "yes" : "no",
                        round, committedAtKill, killMillis, firstOutput, childTimes(weir.log(), restartedAt));
                System.out.printf(
                        "  recovery %d" + (cds ? " (class-data archive)" : "") + ": killed at %,d committed inputs in %d ms; first new committed "
                                + "output %d ms after the restart (%s)%n",
                        round, committedAtKill, killMillis, firstOutput, r.childTimes);
                results.add(r);
            }
        }
        return results;
    }

    /**
     * The recovery child's class path: Weir's classes as a jar and its runtime dependencies, as
     * run-throughput.sh wrote them (class-data sharing maps classes from jars only).
     */
    private static String childClassPath() throws java.io.IOException {
        return Path.of("target", "bench-weir.jar").toAbsolutePath() + java.io.File.pathSeparator
                + Files.readString(Path.of("target", "bench-runtime.classpath")).strip();
    }

    /**
     * From the child's log (at DEBUG), ms from the restart command to: instance
     * started, partitions assigned, transactional producers initialised (after reading the
     * checkpoints; initialising aborts the killed process's open transactions), tasks restored,
     * first checkpoint completed.
     */
    private static String childTimes(Path log, LocalTime restartedAt) throws Exception {
        List<String> lines = Files.readAllLines(log);
        List<String> times = new ArrayList<>();
        for (String marker :
                List.of("started as instance", "partitions assigned", "initialised ", "restored ", "completed in ")) {
            times.add(logTime(lines, marker, restartedAt));
        }
        return String.join(" / ", times);
    }

    private static String logTime(List<String> lines, String marker, LocalTime restartedAt) {
        Optional<String> line = lines.stream().filter(l -> l.contains(marker)).findFirst();
        if (line.isEmpty() || line.get().length() < 12) {
            return "?";
        }
        LocalTime at = LocalTime.parse(line.get().substring(0, 12), LOG_TIME);
        return Long.toString(Duration.between(restartedAt, at).toMillis());
    }

    private KafkaConsumer<byte[], byte[]> committedReader() {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "10");
        return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private Map<TopicPartition, Long> lastStableOffsets(String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            request.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** The input positions the group committed, summed over partitions. */
    private long committed(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        return offsets.values().stream()
                .filter(o -> o != null)
                .mapToLong(OffsetAndMetadata::offset)
                .sum();
    }

    private String createTopic(String name) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        // Wait until every partition's leader answers, so the first sends never race its election.
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            request.put(new TopicPartition(name, i), OffsetSpec.latest());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ignored =
                        admin.listOffsets(request).all().get(30, TimeUnit.SECONDS);
                return name;
            } catch (java.util.concurrent.ExecutionException e) {
                // Right after creation the admin client may not know the topic yet.
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    private Recording startProfile(String name) {
        if (profileDir == null) {
            return null;
        }
        Recording r = new Recording();
        r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
        r.enable("jdk.ObjectAllocationSample").with("throttle", "1000/s").withStackTrace();
        r.enable("jdk.ThreadAllocationStatistics").withPeriod(Duration.ofMillis(500));
        r.enable("jdk.JavaMonitorWait").withThreshold(Duration.ofMillis(1)).withStackTrace();
        r.enable("jdk.ThreadPark").withThreshold(Duration.ofMillis(1)).withStackTrace();
        r.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ofMillis(1)).withStackTrace();
        r.enable("jdk.SocketRead").withThreshold(Duration.ofMillis(1)).withStackTrace();
        r.enable("jdk.GarbageCollection");
        r.enable("jdk.CPULoad").withPeriod(Duration.ofSeconds(1));
        r.enable("jdk.ThreadCPULoad").withPeriod(Duration.ofSeconds(1));
        r.setName(name);
        r.start();
        return r;
    }

    private void stopProfile(Recording r, String name) throws Exception {
        if (r == null) {
            return;
        }
        r.stop();
        Files.createDirectories(profileDir);
        Path file = profileDir.resolve(name + ".jfr");
        r.dump(file);
        r.close();
        System.out.println("  profile of " + name + " in " + file);
    }
}
