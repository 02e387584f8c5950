package io.weir.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.fixtures.WeirProcess;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Several instances of the running-totals job as child JVMs ({@code weir run}, one consumer group,
 * six partitions) while orders arrive; instances are killed, added, stopped, paused and resumed
 * during the run, and the verifier then checks every key's committed outputs are exactly its
 * running totals. After each event the longest gap in committed output, overall and in any one
 * output partition, is printed (a figure, not an assertion: the machines are shared).
 */
@ExtendWith(KafkaFixture.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ManyInstancesIT {
    private static final int PARTITIONS = 6;
    private static final int USERS = 2_000;

    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "many-instances");
        t.setDaemon(true);
        return t;
    });
    private final List<WeirProcess> processes = new ArrayList<>();

    @AfterEach
    void tearDown() {
        processes.forEach(WeirProcess::close);
        background.shutdownNow();
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void three_instances_stay_exact_through_a_kill_a_join_and_a_graceful_leave() throws Exception {
        Run run = new Run(TotalsJob.create("many", PARTITIONS), 2_250_000, 25_000);
        WeirProcess a = run.instance("m-1").start();
        WeirProcess b = run.instance("m-2").start();
        WeirProcess c = run.instance("m-3").start();
        run.produce();

        // Early enough that the last event still has input to measure after it: a starting JVM
        // takes 10-20 s to run partitions on this machine with three others, and the run produces
        // for 90 s (with 40 s, and in the full suite with 60 s, the input had ended before the
        // leave in some runs).
        run.at(0.1, "kill -9 m-1 and restart it at once", () -> {
            a.kill();
            a.start();
        });
        run.joined(a);
        run.at(0.2, "m-4 joins", () -> run.instance("m-4").start());
        run.joined(processes.get(3));
        run.at(0.3, "m-2 leaves (SIGTERM)", b::stop);

        run.finish(List.of(a, c, processes.get(3)));
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void a_paused_instance_resuming_after_the_group_dropped_it_cannot_commit_and_output_stays_exact() throws Exception {
        Run run = new Run(
                TotalsJob.create("zombie", PARTITIONS), 200_000, 5_000, "kafka.consumer.session.timeout.ms=6000");
        WeirProcess a = run.instance("z-1").start();
        WeirProcess b = run.instance("z-2").start();
        run.produce();

        run.at(0.2, "SIGSTOP z-2", () -> signal(b, "STOP"));
        // Past the session timeout: the group drops z-2 and z-1 takes its partitions over.
        run.at(0.55, "SIGCONT z-2 (the group dropped it meanwhile)", () -> signal(b, "CONT"));

        run.finish(List.of(a, b));
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void one_to_three_to_one_instances_under_load() throws Exception {
        Run run = new Run(TotalsJob.create("scale", PARTITIONS), 300_000, 8_000);
        WeirProcess a = run.instance("s-1").start();
        run.produce();

        run.at(0.15, "scale to 3: s-2 and s-3 join", () -> {
            run.instance("s-2").start();
            run.instance("s-3").start();
        });
        run.joined(processes.get(1), processes.get(2));
        run.at(0.55, "scale to 1: s-2 and s-3 leave (SIGTERM)", () -> {
            processes.get(1).stop();
            processes.get(2).stop();
        });

        run.finish(List.of(a));
    }

    private static void signal(WeirProcess p, String signal) {
        try {
            int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid()))
                    .inheritIO()
                    .start()
                    .waitFor();
            assertEquals(0, exit, "kill -" + signal + " " + p.pid());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One run: the job, its input, the instances, the events and the output gaps between them. */
    private final class Run {
        final TotalsJob job;
        final int orders;
        final int perSecond;
        final List<String> settings;
        final OrderGenerator generator;
        final GapWatch gaps;
        final Map<String, Long> events = new LinkedHashMap<>();
        CompletableFuture<Void> produced;

        Run(TotalsJob job, int orders, int perSecond, String... settings) {
            this.job = job;
            this.orders = orders;
            this.perSecond = perSecond;
            this.settings = List.of(settings);
            this.generator = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), USERS, orders);
            this.gaps = new GapWatch(job.totals());
            background.execute(gaps);
        }

        WeirProcess instance(String id) {
            List<String> sets = new ArrayList<>(List.of("instance-id=" + id, "processing.checkpoint.interval=500ms"));
            sets.addAll(settings);
            WeirProcess p = WeirProcess.run(
                    job.application() + "-" + id, TotalsJob.EXAMPLE, job.overrides(sets.toArray(String[]::new)));
            processes.add(p);
            return p;
        }

        void produce() {
            events.put("start", System.currentTimeMillis());
            produced = CompletableFuture.runAsync(
                    () -> {
                        try {
                            generator.sendPaced(perSecond, orders);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    background);
        }

        /** Once the job committed {@code share} of the orders, runs {@code event}. */
        void at(double share, String name, ThrowingRunnable event) throws Exception {
            // One event at a time: each gap is then the event's own, not the previous one's still
            // going on (catching up after the start makes the committed share jump).
            long previous =
                    events.values().stream().mapToLong(Long::longValue).max().orElse(0);
            await(job.application() + " output resumed in every partition before: " + name)
                    .atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> gaps.everyPartitionSince(previous));
            long target = (long) (orders * share);
            await(job.application() + " commits " + target + " orders before: " + name)
                    .atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> job.committedInput() >= target);
            System.out.println(job.application() + ": " + name + " at " + java.time.LocalTime.now());
            event.run();
            events.put(name, System.currentTimeMillis());
        }

        /**
         * Waits until each of {@code started} runs partitions of its own (its log says so): the next
         * event must not come before a joining JVM has joined, which on a busy machine takes seconds.
         */
        void joined(WeirProcess... started) {
            for (WeirProcess p : started) {
                await(job.application() + ": " + p.log().getFileName() + " runs partitions")
                        .atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            p.assertAlive();
                            return Files.readString(p.log(), StandardCharsets.UTF_8)
                                    .contains(" partitions from {");
                        });
            }
        }

        /** Waits until the input is produced and committed, stops the instances, verifies, prints the gaps. */
        void finish(List<WeirProcess> running) throws Exception {
            produced.get(3, TimeUnit.MINUTES);
            generator.close();
            await(job.application() + " commits positions at the end of its input")
                    .atMost(TotalsJob.CATCH_UP)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        running.forEach(WeirProcess::assertAlive);
                        return job.caughtUp();
                    });
            events.put("caught up", System.currentTimeMillis());
            gaps.stop();
            running.forEach(WeirProcess::stop);
            gaps.print(job.application(), events);
            RunningTotalsVerifier.Result result = job.verify(true);
            System.out.println(job.application() + ": verify " + result);
            assertTrue(result.ok(), result.toString());
            assertEquals(orders, result.inputs());
            assertEquals(orders, result.outputs(), "one committed total per order");
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * Reads the output read_committed and notes, per output partition, when records arrived; from
     * that the longest gap between arrivals in each interval between two events.
     */
    private static final class GapWatch implements Runnable {
        private final String topic;
        private final Map<Integer, List<Long>> arrivals = new LinkedHashMap<>();
        private final List<Long> any = new ArrayList<>();
        private volatile boolean running = true;
        private final LongSupplier clock = System::currentTimeMillis;

        GapWatch(String topic) {
            this.topic = topic;
        }

        @Override
        public void run() {
            Map<String, Object> c = new java.util.HashMap<>();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaFixture.bootstrap());
            c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            try (KafkaConsumer<byte[], byte[]> consumer =
                    new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                List<TopicPartition> parts = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    parts.add(new TopicPartition(topic, p));
                }
                consumer.assign(parts);
                consumer.seekToBeginning(parts);
                while (running) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(50));
                    long now = clock.getAsLong();
                    synchronized (this) {
                        for (TopicPartition tp : records.partitions()) {
                            arrivals.computeIfAbsent(tp.partition(), p -> new ArrayList<>())
                                    .add(now);
                        }
                        if (!records.isEmpty()) {
                            any.add(now);
                        }
                    }
                }
            }
        }

        void stop() {
            running = false;
        }

        /** Whether every output partition received committed output after {@code time}. */
        synchronized boolean everyPartitionSince(long time) {
            if (arrivals.size() < PARTITIONS) {
                return false;
            }
            for (List<Long> times : arrivals.values()) {
                if (times.get(times.size() - 1) <= time) {
                    return false;
                }
            }
            return true;
        }

        synchronized void print(String app, Map<String, Long> events) {
            List<Map.Entry<String, Long>> list = new ArrayList<>(events.entrySet());
            System.out.println(
                    app + ": longest gap in committed output after each event (ms): overall / worst" + " partition");
            for (int i = 0; i + 1 < list.size(); i++) {
                long from = list.get(i).getValue();
                long to = list.get(i + 1).getValue();
                long worst = 0;
                for (List<Long> times : arrivals.values()) {
                    worst = Math.max(worst, longestGap(times, from, to));
                }
                boolean ended = any.isEmpty() || any.get(any.size() - 1) <= from;
                System.out.printf(
                        "  %-50s %6d / %6d%s%n",
                        list.get(i).getKey(),
                        longestGap(any, from, to),
                        worst,
                        ended ? " (the input had ended: not measured)" : "");
            }
        }

        /**
         * The longest time without an arrival in [from, to]. After a series' very last arrival its
         * input had ended (the verifier counts every output), so that tail is no gap.
         */
        private static long longestGap(List<Long> times, long from, long to) {
            if (times.isEmpty()) {
                return to - from;
            }
            to = Math.min(to, times.get(times.size() - 1));
            if (to <= from) {
                return 0;
            }
            long last = from;
            long gap = 0;
            for (long t : times) {
                if (t < from) {
                    continue;
                }
                if (t > to) {
                    break;
                }
                gap = Math.max(gap, t - last);
                last = t;
            }
            return Math.max(gap, to - last);
        }
    }
}
