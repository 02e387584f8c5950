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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * processing.standby on the real broker: two instances each run one of two tasks and, with
 * standby, keep a warm copy of the other's. When one leaves, the other takes its task over; what
 * that restore downloaded shows whether the copy was used.
 */
class StandbyIT {

    @Test
    void aTakeoverOfAFollowedTaskRestoresFromTheWarmCopyWithoutDownloading() throws Exception {
        RestoreSizes takeover = takeover("standby", 1);
        assertTrue(takeover.localBytes() > 0, takeover.toString());
        assertEquals(0, takeover.downloadedBytes(), takeover.toString());
    }

    @Test
    void withoutStandbyTheSameTakeoverDownloadsMostOfTheTasksState() throws Exception {
        RestoreSizes takeover = takeover("no-standby", 0);
        // Local: at most what i1 kept from running the task for a moment at the start (its OPTIONS file).
        assertTrue(takeover.downloadedBytes() > takeover.localBytes(), takeover.toString());
    }

    /** Runs i1 and i2 until caught up (and, with standby, a copy round after that); i2 leaves. */
    private static RestoreSizes takeover(String name, int standby) throws Exception {
        TotalsJob job = TotalsJob.create(name, 2);
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 2_000, 11)) {
            g.send(6_000);
        }
        Recorder events = new Recorder();
        Instance i2 = null;
        boolean i2Stopped = false;
        try (Instance i1 = instance(job, "i1", standby, events)) {
            i2 = instance(job, "i2", standby, new Recorder());
            Instance second = i2;
            await("each instance runs one task and the input is committed")
                    .atMost(KafkaFixture.TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> i1.lag().size() == 1 && second.lag().size() == 1 && job.caughtUp());
            String taken = "" + i2.lag().keySet().iterator().next().partition();
            if (standby > 0) {
                // A whole round after the last input: the copy holds i2's latest checkpoint.
                int rounds = events.standbyRounds.get();
                await("i1 follows i2's task through two more rounds")
                        .atMost(KafkaFixture.TIMEOUT)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> events.standbyRounds.get() >= rounds + 2
                                && events.followed.size() == 1
                                && events.followed.iterator().next().endsWith("-" + taken));
            }
            events.restored.clear();
            i2.stopGracefully(Duration.ofSeconds(20)); // as on SIGTERM: leaves the group, i1 takes its task
            i2Stopped = true;
            await("i1 restored i2's task")
                    .atMost(KafkaFixture.TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> events.restoredTask(taken) != null);
            await("i1 runs both tasks")
                    .atMost(KafkaFixture.TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> i1.lag().size() == 2);
            RunningTotalsVerifier.Result result = job.verify(true);
            assertTrue(result.ok(), result.toString());
            assertEquals(6_000, result.outputs(), result.toString());
            return events.restoredTask(taken);
        } finally {
            if (i2 != null && !i2Stopped) {
                i2.close();
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

    /** What i1 restored (by partition of the task) and followed. */
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

        /** The sizes of the last restore of the task of {@code partition} alone, or null. */
        RestoreSizes restoredTask(String partition) {
            return restored.get(partition);
        }
    }
}
