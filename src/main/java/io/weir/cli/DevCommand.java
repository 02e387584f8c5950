package io.weir.cli;

import io.weir.app.Instance;
import io.weir.app.Jobs;
import io.weir.checkpoint.CheckpointStats;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.kafka.EmbeddedKafka;
import io.weir.ops.Ops;
import io.weir.ops.WeirMetrics;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code weir dev}: the zero-setup first run. Starts an embedded single-node Kafka, creates
 * {@code orders} and {@code totals}, runs an order generator and the running-totals job, and shows
 * live progress until Ctrl-C (or {@code --duration}), then verifies the output.
 */
@Command(
        name = "dev",
        description = "Run the example job on an embedded Kafka broker, with a generator and live progress.")
public final class DevCommand implements Callable<Integer> {
    static final String EXAMPLE = "/io/weir/examples/running-totals.yaml";

    @Option(
            names = "--port",
            defaultValue = "9092",
            description = "Broker port; a free one if taken (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--rate", defaultValue = "2000", description = "Orders per second (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--users", defaultValue = "1000", description = "Distinct users (default: ${DEFAULT-VALUE}).")
    int users;

    @Option(names = "--duration", description = "Stop after this many seconds and verify (default: until Ctrl-C).")
    Integer duration;

    @Option(names = "--set", description = "Override a setting of the example job: dotted.path=value.")
    List<String> overrides = new java.util.ArrayList<>();

    /** A class of the Kafka broker: absent from the runtime jar, present in the dev jar. */
    static final String BROKER_CLASS = "kafka.server.KafkaRaftServer";

    @Override
    public Integer call() throws Exception {
        if (!brokerOnClassPath()) {
            System.err.println("weir dev: this jar has no embedded Kafka broker (target/weir.jar is the runtime jar);"
                    + " run `java -jar target/weir-dev.jar dev` instead");
            return 1;
        }
        return runDev();
    }

    static boolean brokerOnClassPath() {
        try {
            Class.forName(BROKER_CLASS, false, DevCommand.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private int runDev() throws Exception {
        Path dir = Files.createTempDirectory("weir-dev");
        System.out.println("weir dev: starting an embedded Kafka broker …");
        try (EmbeddedKafka kafka =
                EmbeddedKafka.builder().port(portOrFree(port, "port")).start()) {
            String bootstrap = kafka.bootstrapServers();
            System.out.println("weir dev: Kafka at " + bootstrap + " (connect your own tools to it)");
            createTopics(bootstrap);
            List<String> sets = new java.util.ArrayList<>(
                    List.of("kafka.bootstrap=" + bootstrap, "processing.state.dir=" + dir.resolve("state")));
            sets.addAll(overrides);
            WeirConfig config =
                    new ConfigLoader().load("running-totals.yaml (built in)", example(), System.getenv(), sets);
            try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
                    Ops ops = new Ops(instance);
                    OrderGenerator generator = new OrderGenerator(bootstrap, "orders", users, 42)) {
                if (config.http().enabled()) {
                    int httpPort = ops.serve(portOrFree(config.http().port(), "HTTP"));
                    System.out.println("weir dev: metrics and health on http://localhost:" + httpPort
                            + "/ (/metrics, /health/ready, /checkpoints)");
                }
                instance.start();
                Thread producer = new Thread(
                        () -> {
                            try {
                                generator.sendPaced(rate, Long.MAX_VALUE);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "weir-dev-generator");
                producer.setDaemon(true);
                producer.start();
                CountDownLatch stop = new CountDownLatch(1);
                Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
                System.out.println("weir dev: running " + config.application() + " (orders → totals); Ctrl-C to stop");
                long end = duration == null ? Long.MAX_VALUE : System.currentTimeMillis() + duration * 1000L;
                Progress progress = new Progress(instance, ops, generator);
                while (!stop.await(1, TimeUnit.SECONDS) && System.currentTimeMillis() < end) {
                    System.out.println(progress.line());
                    if (instance.stopped()) {
                        System.err.println("weir dev: the job stopped");
                        return 1;
                    }
                }
                generator.stop();
                producer.join(5000);
                if (duration != null) {
                    return drainAndVerify(instance, bootstrap, progress);
                }
                System.out.println("weir dev: stopping (committing what was read) …");
                instance.stopGracefully(java.time.Duration.ofSeconds(10));
            }
        }
        return 0;
    }

    private int drainAndVerify(Instance instance, String bootstrap, Progress progress) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        long target = instance.counters().recordsIn.sum();
        // Wait until the job has read everything and a checkpoint committed its output.
        while (System.currentTimeMillis() < deadline) {
            long lag =
                    instance.lag().values().stream().mapToLong(Long::longValue).sum();
            long checkpointed = instance.stats().lastCompletedCheckpoint();
            Thread.sleep(1000);
            System.out.println(progress.line());
            if (lag == 0
                    && instance.stats().lastCompletedCheckpoint() > checkpointed
                    && instance.counters().recordsIn.sum() >= target) {
                break;
            }
        }
        // The last commit's markers reach the output partitions just after the commit returned, and
        // a read_committed reader sees that output only then: a short read is read again.
        RunningTotalsVerifier verifier = new RunningTotalsVerifier(bootstrap);
        RunningTotalsVerifier.Result result = verifier.verify("orders", "totals", true);
        for (long retryUntil = System.currentTimeMillis() + 10_000;
                !result.ok() && System.currentTimeMillis() < retryUntil; ) {
            Thread.sleep(500);
            result = verifier.verify("orders", "totals", true);
        }
        System.out.println("weir dev: verify " + result);
        return result.ok() ? 0 : 1;
    }

    /** One line of live progress, with rates since the previous line; reads the metrics' meters. */
    private static final class Progress {
        private final Instance instance;
        private final Ops ops;
        private final OrderGenerator generator;
        private long lastIn;
        private long lastAt = System.nanoTime();

        Progress(Instance instance, Ops ops, OrderGenerator generator) {
            this.instance = instance;
            this.ops = ops;
            this.generator = generator;
        }

        String line() {
            WeirMetrics m = ops.metrics();
            long in = m.recordsIn();
            long now = System.nanoTime();
            double rate = (in - lastIn) * 1e9 / Math.max(1, now - lastAt);
            lastIn = in;
            lastAt = now;
            return String.format(
                    "  generated %,d | in %,d (%,.0f/s) | out %,d | dead letters %,d | checkpoint #%d (%d ms) | lag %,d%s",
                    generator.sent(),
                    in,
                    rate,
                    m.recordsOut(),
                    m.deadLettered(),
                    m.lastCompletedCheckpoint(),
                    ops.history()
                            .lastCompleted()
                            .map(CheckpointStats::totalMillis)
                            .orElse(0L),
                    m.lag(),
                    instance.ready() ? "" : " | restoring");
        }
    }

    private static void createTopics(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            var existing = admin.listTopics().names().get();
            for (String t : List.of("orders", "totals")) {
                if (!existing.contains(t)) {
                    admin.createTopics(List.of(new NewTopic(t, 4, (short) 1)))
                            .all()
                            .get();
                }
            }
        }
    }

    static String example() throws IOException {
        try (InputStream in = DevCommand.class.getResourceAsStream(EXAMPLE)) {
            if (in == null) {
                throw new IOException("the built-in example " + EXAMPLE + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** {@code wanted}, or a free port when it is taken. */
    private static int portOrFree(int wanted, String what) {
        try (ServerSocket s = new ServerSocket(wanted)) {
            return wanted;
        } catch (IOException taken) {
            System.out.println("weir dev: " + what + " " + wanted + " is taken, using a free one");
            try (ServerSocket free = new ServerSocket(0)) {
                return free.getLocalPort();
            } catch (IOException e) {
                return 0;
            }
        }
    }
}
