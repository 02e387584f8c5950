package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.config.WeirConfig;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.state.RestoreSizes;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * processing.standby on the real broker: instances i1..in each run one of n tasks and, with
 * standby, keep a warm copy of the task of the instance before them (i1 follows in, i2 follows
 * i1, …). When i2 leaves, its task moves; which instance restores it, and what that restore
 * downloaded, show whether the copy was used.
 */
class StandbyIT {

    @Test
    void aTakeoverOfAFollowedTaskRestoresFromTheWarmCopyWithoutDownloading() throws Exception {
        Takeover t = takeover("standby", 2, 1);
        assertEquals("i1", t.by(), "i1 follows i2 in a ring of two");
        assertTrue(t.sizes().localBytes() > 0, t.toString());
        assertEquals(0, t.sizes().downloadedBytes(), t.toString());
    }

    @Test
    void aLeaversTaskGoesToTheInstanceHoldingItsCopy() throws Exception {
        // Without the copy the assignor would hand it to i1, the first of the two with room.
        Takeover t = takeover("standby-three", 3, 1);
        assertEquals("i3", t.by(), t.toString());
        assertEquals(0, t.sizes().downloadedBytes(), t.toString());
    }

    @Test
    void withoutStandbyTheSameTakeoverDownloadsMostOfTheTasksState() throws Exception {
        Takeover t = takeover("no-standby", 2, 0);
        // Local: at most what i1 kept from running the task for a moment at the start (its OPTIONS file).
        assertTrue(t.sizes().downloadedBytes() > t.sizes().localBytes(), t.toString());
    }

    /** Which instance restored the leaver's task, and from where. */
    private record Takeover(String by, RestoreSizes sizes) {}

    /**
     * Runs i1..in until each runs one task and the input is committed (and, with standby, two more
     * copy rounds everywhere); then i2 stops as on SIGTERM and another instance takes its task.
     */
    private static Takeover takeover(String name, int n, int standby) throws Exception {
        TotalsJob job = TotalsJob.create(name, n);
        List<Instance> instances = new ArrayList<>();
        List<Recorder> events = new ArrayList<>();
        boolean i2Stopped = false;
        try {
            for (int i = 1; i <= n; i++) {
                Recorder r = new Recorder();
                events.add(r);
                instances.add(instance(job, "i" + i, standby, r));
            }
            await("each instance runs one task")
                    .atMost(KafkaFixture.TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> instances.stream().allMatch(i -> i.lag().size() == 1));
            // The input comes only now: an instance that ran a task for a moment while the others
            // were joining has checkpointed none of its state (with input there from the start, a
            // quick first checkpoint left i1 the leaver's whole state, and the takeover downloaded
            // nothing even without standby).
            try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 3_000, 11)) {
                g.send(9_000);
            }
            await("each instance runs one task and the input is committed")
                    .atMost(KafkaFixture.TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> instances.stream().allMatch(i -> i.lag().size() == 1) && job.caughtUp());
            Instance leaver = instances.get(1);
            String taken = "" + leaver.lag().keySet().iterator().next().partition();
            if (standby > 0) {
                // Whole rounds after the last input: every copy holds its task's latest checkpoint.
                List<Integer> rounds =
                        events.stream().map(r -> r.standbyRounds.get()).toList();
                await("every instance follows one task through two more rounds")
                        .atMost(KafkaFixture.TIMEOUT)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            for (int i = 0; i < n; i++) {
                                Recorder r = events.get(i);
                                if (r.standbyRounds.get() < rounds.get(i) + 2 || r.followed.size() != 1) {
                                    return false;
                                }
                            }
                            return true;
                        });
            }
            events.forEach(r -> r.restored.clear());
            leaver.stopGracefully(Duration.ofSeconds(20)); // as on SIGTERM: leaves the group at once
            i2Stopped = true;
            await("another instance restored i2's task and every task runs")
                    .atMost(KafkaFixture.TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> events.stream().anyMatch(r -> r.restored.containsKey(taken))
                            && instances.stream()
                                            .filter(i -> i != leaver)
                                            .mapToInt(i -> i.lag().size())
                                            .sum()
                                    == n);
            RunningTotalsVerifier.Result result = job.verify(true);
            assertTrue(result.ok(), result.toString());
            assertEquals(9_000, result.outputs(), result.toString());
            for (int i = 0; i < n; i++) {
                RestoreSizes sizes = events.get(i).restored.get(taken);
                if (sizes != null) {
                    return new Takeover("i" + (i + 1), sizes);
                }
            }
            throw new AssertionError("no restore of the task of partition " + taken);
        } finally {
            for (int i = instances.size() - 1; i >= 0; i--) {
                if (i != 1 || !i2Stopped) {
                    instances.get(i).close();
                }
            }
        }
    }

    private static Instance instance(TotalsJob job, String id, int standby, Recorder events) throws Exception {
        WeirConfig config = job.config(
                "instance-id=" + id, "processing.checkpoint.interval=200ms", "processing.standby=" + standby);
        Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
        instance.listen(events);
        instance.start();
        return instance;
    }

    /** What one instance restored (by partition of a task restored alone) and followed. */
    private static final class Recorder implements InstanceEvents {
        final Map<String, RestoreSizes> restored = new ConcurrentHashMap<>();
        final AtomicInteger standbyRounds = new AtomicInteger();
        volatile Set<String> followed = Set.of();

        @Override
        public void restored(List<String> tasks, long millis, RestoreSizes sizes) {
            if (tasks.size() == 1) {
                String task = tasks.get(0);
                restored.put(task.substring(task.lastIndexOf('-') + 1), sizes);
            }
        }

        @Override
        public void standbyFollowed(Set<String> tasks, RestoreSizes sizes) {
            followed = Set.copyOf(tasks);
            standbyRounds.incrementAndGet();
        }
    }
}
