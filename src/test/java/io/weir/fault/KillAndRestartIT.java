package io.weir.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.RandomKills;
import io.weir.fixtures.TotalsJob;
import io.weir.fixtures.WeirProcess;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fault test of the exactly-once argument (docs/architecture.md): the running-totals job runs in a child JVM ({@code weir run}) while
 * orders are produced; the test kills it with {@code kill -9} at random moments and starts it again
 * with the same instance id, then checks the read_committed output with the verifier.
 *
 * <p>Kill moments are drawn by {@link RandomKills}. The seed is printed and can be replayed with
 * {@code -Dweir.fault.seed=<seed>}; replaying gives the same input and the same kill thresholds,
 * though not the same thread timing.
 */
@ExtendWith(KafkaFixture.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class KillAndRestartIT {
    private static final int PARTITIONS = 4;
    private static final int USERS = 1_000;
    private static final String INSTANCE_ID = "instance-id=fault-1";

    private final ExecutorService producing = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "order-generator");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stopProducing() {
        producing.shutdownNow();
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void every_order_is_counted_exactly_once_when_the_jvm_is_killed_four_times_while_orders_arrive() throws Exception {
        KillPlan plan = new KillPlan(seed(), 200_000, 4_000, 4, 3, 0, 15_000);
        TotalsJob job = TotalsJob.create("kill-eo", PARTITIONS);

        RunningTotalsVerifier.Result result = runWithKills(job, plan, true, "processing.checkpoint.interval=500ms");

        assertTrue(result.ok(), "seed " + plan.seed + ": " + result);
        assertEquals(plan.orders, result.inputs(), "seed " + plan.seed + ": orders read by the verifier");
        assertEquals(plan.orders, result.outputs(), "seed " + plan.seed + ": one committed total per order");
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void no_order_is_lost_at_least_once_when_the_jvm_is_killed_three_times_while_orders_arrive() throws Exception {
        KillPlan plan = new KillPlan(seed(), 60_000, 3_000, 3, 3, 0, 10_000);
        TotalsJob job = TotalsJob.create("kill-alo", PARTITIONS);

        RunningTotalsVerifier.Result result = runWithKills(
                job, plan, false, "processing.checkpoint.interval=500ms", "processing.guarantee=at-least-once");

        assertTrue(result.ok(), "seed " + plan.seed + ": " + result);
        assertEquals(plan.orders, result.inputs(), "seed " + plan.seed + ": orders read by the verifier");
        assertTrue(
                result.outputs() >= plan.orders,
                "seed " + plan.seed + ": at least one total per order, got " + result.outputs());
    }

    /** How many orders at what pace, and how many kills at which moments (see {@link RandomKills}). */
    private record KillPlan(
            long seed,
            int orders,
            int ordersPerSecond,
            int kills,
            int maxCheckpoints,
            int minOutputs,
            int maxOutputs) {}

    /**
     * Starts the job, produces the orders in the background, kills and restarts the job as planned,
     * waits until it committed positions at the end of the input, stops it and returns the verifier's
     * verdict in the given mode.
     */
    private RunningTotalsVerifier.Result runWithKills(
            TotalsJob job, KillPlan plan, boolean exactlyOnce, String... settings) throws Exception {
        System.out.printf("%s: seed %d (replay with -Dweir.fault.seed=%d)%n", job.application(), plan.seed, plan.seed);
        Random random = new Random(plan.seed);
        List<String> overrides = new ArrayList<>(List.of(INSTANCE_ID));
        overrides.addAll(List.of(settings));
        List<String> kills = new ArrayList<>();
        try (WeirProcess weir = WeirProcess.run(
                        job.application(), TotalsJob.EXAMPLE, job.overrides(overrides.toArray(String[]::new)));
                OrderGenerator generator =
                        new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), USERS, plan.seed)) {
            weir.start();
            CompletableFuture<Void> produced = CompletableFuture.runAsync(
                    () -> {
                        try {
                            generator.sendPaced(plan.ordersPerSecond, plan.orders);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    producing);

            RandomKills killer =
                    new RandomKills(job, weir, random, plan.maxCheckpoints, plan.minOutputs, plan.maxOutputs);
            for (int kill = 1; kill <= plan.kills; kill++) {
                kills.add(killer.killAndRestart());
            }

            produced.get(2, TimeUnit.MINUTES);
            await(job.application() + " commits positions at the end of its input after " + kills)
                    .atMost(TotalsJob.CATCH_UP)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        weir.assertAlive();
                        return job.caughtUp();
                    });
            int exit = weir.stop();
            System.out.println(job.application() + ": stopped with exit code " + exit + " after " + weir.starts()
                    + " starts; logs in " + weir.log().getParent());
        }
        RunningTotalsVerifier.Result result = job.verify(exactlyOnce);
        System.out.println(job.application() + ": verify " + result);
        if (!result.ok()) {
            System.out.println(job.application() + ": kills were " + kills);
        }
        return result;
    }

    private static long seed() {
        String fixed = System.getProperty("weir.fault.seed");
        return fixed != null ? Long.parseLong(fixed) : System.nanoTime();
    }
}
