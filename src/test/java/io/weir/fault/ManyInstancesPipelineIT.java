package io.weir.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.fixtures.BucketTotals;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.WeirProcess;
import io.weir.tools.OrderGenerator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pipeline language's two-stage job (bucket totals: re-key by amount bucket through the
 * repartition topic, then count and sum per bucket) run by several instances as child JVMs while
 * orders arrive: one killed -9 and restarted, one added, one stopped with SIGTERM, so both
 * stages' tasks move between instances while the repartition topic holds records in flight. The
 * committed output must then hold, for every bucket, exactly one update per order in order: count
 * 1, 2, 3, … and the final sum of the bucket's amounts.
 */
@ExtendWith(KafkaFixture.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ManyInstancesPipelineIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PARTITIONS = 6;
    private static final int USERS = 1_000;
    private static final int ORDERS = 400_000;
    private static final int PER_SECOND = 10_000;

    private final List<WeirProcess> processes = new ArrayList<>();

    @AfterEach
    void tearDown() {
        processes.forEach(WeirProcess::close);
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void two_stage_bucket_totals_stay_exact_while_instances_are_killed_added_and_stopped() throws Exception {
        long seed = System.nanoTime();
        String app = KafkaFixture.uniqueTopic("many-buckets");
        String orders = KafkaFixture.createTopic(app + "-orders", PARTITIONS);
        String out = KafkaFixture.createTopic(app + "-out", PARTITIONS);
        Path stateDir = Path.of("target", "fault-state", app).toAbsolutePath();
        System.out.printf("%s: seed %d%n", app, seed);

        OrderGenerator generator = new OrderGenerator(KafkaFixture.bootstrap(), orders, USERS, seed);
        CompletableFuture<Void> produced = CompletableFuture.runAsync(() -> {
            try {
                generator.sendPaced(PER_SECOND, ORDERS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        WeirProcess m1 = instance(app, "m-1", orders, out, stateDir).start();
        WeirProcess m2 = instance(app, "m-2", orders, out, stateDir).start();
        instance(app, "m-3", orders, out, stateDir).start();

        awaitOutput(out, ORDERS / 5, "before the kill");
        System.out.println(app + ": kill -9 m-1 and restart it at once");
        m1.kill();
        m1.start();
        awaitOutput(out, ORDERS * 2 / 5, "before the join");
        System.out.println(app + ": m-4 joins");
        instance(app, "m-4", orders, out, stateDir).start();
        awaitOutput(out, ORDERS * 3 / 5, "before the leave");
        System.out.println(app + ": m-2 leaves (SIGTERM)");
        m2.stop();

        produced.get(3, TimeUnit.MINUTES);
        generator.close();
        await(app + " commits all " + ORDERS + " bucket updates")
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    processes.stream().filter(p -> p != m2).forEach(WeirProcess::assertAlive);
                    return KafkaFixture.readAllCommitted(out).size() >= ORDERS;
                });
        BucketTotals expected = new BucketTotals();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(orders)) {
            expected.order(JSON.readTree(r.value()).get("amount").asLong());
        }
        assertEquals(ORDERS, expected.orders(), "orders sent");
        expected.verify(KafkaFixture.readAllCommitted(out), "seed " + seed);
        System.out.printf("%s: verify OK: %d orders%n", app, ORDERS);
    }

    private WeirProcess instance(String app, String id, String orders, String out, Path stateDir) {
        WeirProcess p = WeirProcess.run(
                app + "-" + id,
                Path.of("config", "examples", "bucket-totals.yaml"),
                List.of(
                        "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                        "application=" + app,
                        "instance-id=" + id,
                        "processing.checkpoint.interval=500ms",
                        "processing.state.dir=" + stateDir,
                        "pipeline.0.source.topic=" + orders,
                        "pipeline.3.sink.topic=" + out));
        processes.add(p);
        return p;
    }

    private void awaitOutput(String out, long records, String when) {
        await("output reaches " + records + " records " + when)
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    processes.forEach(p -> {
                        if (p.starts() > 0) {
                            p.assertAlive();
                        }
                    });
                    return KafkaFixture.endOffsets(out, IsolationLevel.READ_UNCOMMITTED) >= records;
                });
    }
}
