package io.weir.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.app.Instance;
import io.weir.app.InstanceSettings;
import io.weir.app.Jobs;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.TotalsJob;
import io.weir.kafka.EmbeddedKafka;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker outage while the job runs is waited out: the broker (a broker of its own, not the
 * shared one) stops while orders keep coming and the job has open transactions, stays down until
 * the job noticed (a checkpoint could not commit and the job failed over) and is restoring again,
 * and starts again on the same port and data while that restore waits for it. The same instance,
 * never restarted by the test, must then read all the input, the orders held by the generator
 * through the outage included, with every order counted exactly once in the read_committed output.
 */
class BrokerOutageIT {
    private static final int PARTITIONS = 4;
    private static final int USERS = 300;
    private static final int BATCH = 5_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aBrokerOutageIsWaitedOutAndEveryOrderStillCountsExactlyOnce() throws Exception {
        Path data = dir.resolve("kafka");
        EmbeddedKafka broker = EmbeddedKafka.builder().dataDir(data).start();
        int port = broker.port();
        String bootstrap = broker.bootstrapServers();
        String orders = "outage-orders";
        String totals = "outage-totals";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(
                            new NewTopic(orders, PARTITIONS, (short) 1), new NewTopic(totals, PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        WeirConfig config = new ConfigLoader()
                .load(
                        TotalsJob.EXAMPLE,
                        Map.of(),
                        List.of(
                                "kafka.bootstrap=" + bootstrap,
                                "application=outage",
                                "instance-id=outage-1",
                                "pipeline.0.source.topic=" + orders,
                                "pipeline.2.sink.topic=" + totals,
                                "processing.state.dir=" + dir.resolve("state"),
                                "processing.checkpoint.interval=300ms",
                                "processing.checkpoint.timeout=5s",
                                "processing.restart.initial-backoff=200ms",
                                "processing.restart.max-backoff=2s"));
        InstanceSettings settings = Jobs.settings(config);
        Instance instance = new Instance(settings, Jobs.clients(config));
        try {
            instance.start();
            produce(bootstrap, orders, BATCH, 1);
            awaitExactlyOnce(instance, bootstrap, orders, totals, BATCH);

            // Down while orders keep coming and the job reads them: its epoch's transaction is
            // open. The generator's producer holds what it could not send and sends it after.
            CompletableFuture<Void> paced = CompletableFuture.runAsync(() -> {
                try (OrderGenerator g = new OrderGenerator(bootstrap, orders, USERS, 2)) {
                    g.sendPaced(2_500, 2 * BATCH);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            await("the job reads the paced orders")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> instance.counters().recordsIn.sum() > BATCH + 2_500);
            // Counted before the outage: the restart follows the failover within a few hundred ms,
            // so a count read after the failover was seen may already include it.
            int failoversBefore = instance.stats().failovers();
            int restartsBefore = instance.stats().restarts();
            broker.close();
            // A checkpoint times out after 5 s and the run fails over; stopping it must not wait
            // for the unreachable broker (an abort would block for a minute per open transaction).
            await("the job noticed the outage (a checkpoint could not commit: a failover)")
                    .atMost(Duration.ofSeconds(45))
                    .until(() -> instance.stats().failovers() > failoversBefore);
            await("the job restores again while the broker is still down")
                    .atMost(Duration.ofSeconds(45))
                    .until(() -> instance.stats().restarts() > restartsBefore);
            assertFalse(instance.stopped(), "the instance stopped during the outage");

            broker = EmbeddedKafka.builder().dataDir(data).port(port).start();
            paced.get(3, TimeUnit.MINUTES);
            produce(bootstrap, orders, BATCH, 3);
            awaitExactlyOnce(instance, bootstrap, orders, totals, 4 * BATCH);
            assertFalse(instance.stopped(), "the instance stopped");
            // A run stopped while its workers hung in a send leaves its transactions open and
            // aborts them on the side; the restarted run must take over those transactional ids
            // (initialising them aborts what is left), not the next ones, which would leave the
            // old ones open until the broker's transaction timeout. The next block's ids are known
            // to the broker (initialised ahead for a run beside the first) but never carried a
            // transaction. (A run that moved to them and had sent nothing yet would pass too; the
            // job's last orders are committed before this, so a run on them has sent.)
            int pool = settings.checkpoint().maxConcurrent() + 1;
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                List<TransactionListing> listed = admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
                        .filter(t -> t.transactionalId().startsWith(settings.transactionalIdPrefix()))
                        .sorted(Comparator.comparing(TransactionListing::transactionalId))
                        .toList();
                assertFalse(listed.isEmpty(), "no transactional id of the job is known to the broker");
                for (TransactionListing t : listed) {
                    int slot = Integer.parseInt(t.transactionalId()
                            .substring(settings.transactionalIdPrefix().length()));
                    assertTrue(
                            slot < pool || t.state() == TransactionState.EMPTY,
                            "the job used transactional ids beyond its first " + pool + ": " + listed);
                }
            }
        } finally {
            instance.close();
            broker.close();
        }
    }

    private static void produce(String bootstrap, String topic, int count, long seed) {
        try (OrderGenerator g = new OrderGenerator(bootstrap, topic, USERS, seed)) {
            g.send(count);
        }
    }

    private static void awaitExactlyOnce(Instance instance, String bootstrap, String orders, String totals, int inputs)
            throws Exception {
        RunningTotalsVerifier verifier = new RunningTotalsVerifier(bootstrap);
        // Generous: the first restore after the outage may meet a slow broker start on a busy machine.
        await("every one of " + inputs + " orders counted exactly once")
                .atMost(Duration.ofMinutes(4))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    if (instance.stopped()) {
                        throw new AssertionError("the instance stopped", instance.awaitTermination());
                    }
                    return verifier.verify(orders, totals, true).outputs() >= inputs;
                });
        RunningTotalsVerifier.Result result = verifier.verify(orders, totals, true);
        assertTrue(result.ok(), result.toString());
        assertEquals(inputs, result.inputs());
        assertEquals(inputs, result.outputs());
    }
}
