package io.weir.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.app.Instance;
import io.weir.app.InstanceSettings;
import io.weir.app.Jobs;
import io.weir.app.Seams;
import io.weir.checkpoint.CheckpointIo;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.config.WeirConfig;
import io.weir.dataflow.ChainedOperator;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.Stage;
import io.weir.element.InputPartition;
import io.weir.fixtures.ForwardingSnapshotStore;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.state.SnapshotStore;
import io.weir.state.StoredFile;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Failures injected into a running in-process {@link Instance}, once each: an operator throwing,
 * a snapshot write failing, and a checkpoint commit failing — before the transaction commits, and
 * after it did (the ambiguous commit: the broker committed, the coordinator sees an error). Each
 * must fail the instance over (restore from the last completed checkpoint, abort the open
 * transactions) and leave the read_committed totals exactly once; the restarted run keeps the
 * stopped run's transactional producers (their transactions were aborted) instead of making new
 * ones.
 *
 * <p>The input arrives in three batches: the second once a first checkpoint completed, so the faults
 * hit an instance that has committed state and output to lose or to repeat; the third after the
 * failover, which the restored instance must process.
 */
@ExtendWith(KafkaFixture.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class InjectedFailuresIT {
    private static final int PARTITIONS = 4;
    private static final int USERS = 200;
    private static final int BATCH = 10_000;
    private static final int LAST_BATCH = 5_000;
    private static final long ORDERS = 2L * BATCH + LAST_BATCH;

    @Test
    void an_operator_that_throws_once_fails_the_instance_over_and_totals_stay_exactly_once() throws Exception {
        Fault fault = new Fault("operator throws at record " + (BATCH + BATCH / 2), BATCH + BATCH / 2);
        TotalsJob job = TotalsJob.create("inject-operator", PARTITIONS);
        WeirConfig config = job.config(settings("inject-operator"));
        InstanceSettings settings = withFirstOperator(Jobs.settings(config), () -> new ThrowsOnce(fault));

        runAndVerify(job, config, settings, Seams.NONE, fault);
    }

    @Test
    void a_snapshot_write_that_fails_once_fails_the_instance_over_and_totals_stay_exactly_once() throws Exception {
        // Each checkpoint writes one file per task: write 5 is the first of the second checkpoint.
        Fault fault = new Fault("snapshot write fails", PARTITIONS + 1);
        TotalsJob job = TotalsJob.create("inject-snapshot", PARTITIONS);
        WeirConfig config = job.config(settings("inject-snapshot"));
        Seams seams = new Seams(store -> new FailingSnapshotStore(store, fault), UnaryOperator.identity());

        runAndVerify(job, config, Jobs.settings(config), seams, fault);
    }

    @Test
    void a_commit_that_fails_before_the_transaction_commits_fails_the_instance_over_and_totals_stay_exactly_once()
            throws Exception {
        Fault fault = new Fault("commit fails before committing", 2);
        TotalsJob job = TotalsJob.create("inject-commit", PARTITIONS);
        WeirConfig config = job.config(settings("inject-commit"));
        Seams seams = new Seams(UnaryOperator.identity(), io -> new FailingCommit(io, fault, false));

        runAndVerify(job, config, Jobs.settings(config), seams, fault);
    }

    @Test
    void a_commit_that_succeeds_but_reports_a_failure_fails_the_instance_over_and_totals_stay_exactly_once()
            throws Exception {
        Fault fault = new Fault("commit fails after committing", 2);
        TotalsJob job = TotalsJob.create("inject-ambiguous", PARTITIONS);
        WeirConfig config = job.config(settings("inject-ambiguous"));
        Seams seams = new Seams(UnaryOperator.identity(), io -> new FailingCommit(io, fault, true));

        runAndVerify(job, config, Jobs.settings(config), seams, fault);
    }

    private static String[] settings(String instance) {
        return new String[] {
            "instance-id=" + instance,
            "kafka.producer.metric.reporters=" + ClientsMade.class.getName(),
            "kafka.consumer.metric.reporters=" + ClientsMade.class.getName(),
            "processing.checkpoint.interval=200ms",
            "processing.restart.initial-backoff=100ms",
            "processing.restart.max-backoff=1s"
        };
    }

    /**
     * Produces a first batch of orders, starts the instance, produces a second batch after its first
     * checkpoint, waits until the fault fired and the instance failed over, produces a last batch
     * (processing must resume) and waits until the instance committed positions at the end of the
     * input; then closes it and checks the totals exactly once.
     */
    private static void runAndVerify(
            TotalsJob job, WeirConfig config, InstanceSettings settings, Seams seams, Fault fault) throws Exception {
        try (OrderGenerator orders = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), USERS, 7);
                Instance instance = new Instance(settings, Jobs.clients(config), seams)) {
            orders.send(BATCH);
            instance.start();
            await(job.application() + " completes a checkpoint")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> alive(instance) && instance.stats().lastCompletedCheckpoint() >= 1);
            orders.send(BATCH);
            await(job.application() + ": " + fault.what + " (call " + fault.at + ")")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> alive(instance) && fault.fired());
            await(job.application() + " fails over")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> alive(instance) && instance.stats().failovers() >= 1);
            orders.send(LAST_BATCH);
            await(job.application() + " commits positions at the end of its input")
                    .atMost(TotalsJob.CATCH_UP)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> alive(instance) && job.caughtUp());
            assertEquals(1, instance.stats().failovers(), job.application() + ": failovers after one injected fault");
            // The restores asked the offset reader made during the start for the committed offsets.
            Map<String, Integer> offsetReaders =
                    ClientsMade.of(ClientsMade.CONSUMER + settings.application() + "-" + settings.instanceId());
            offsetReaders.keySet().removeIf(id -> !id.endsWith("-offsets"));
            assertEquals(1, offsetReaders.size(), job.application() + ": offset readers " + offsetReaders);
            assertEquals(
                    1,
                    offsetReaders.values().iterator().next(),
                    job.application() + ": offset readers made through a start and a failover " + offsetReaders);
            // The stopped run's transactions were aborted, so the restarted one kept its producers.
            Map<String, Integer> made = ClientsMade.of(settings.transactionalIdPrefix());
            assertFalse(made.isEmpty(), "no transactional producer was seen");
            assertTrue(
                    made.values().stream().allMatch(n -> n == 1),
                    job.application() + ": producers made per transactional id after a failover " + made);
            for (int slot = 0; slot <= settings.checkpoint().maxConcurrent(); slot++) {
                assertEquals(
                        1,
                        made.get(settings.transactionalIdPrefix() + slot),
                        job.application() + ": the runs did not stay on the first block's producers " + made);
            }
        }
        RunningTotalsVerifier.Result result = job.verify(true);
        assertTrue(result.ok(), job.application() + ": " + result);
        assertEquals(ORDERS, result.inputs());
        assertEquals(ORDERS, result.outputs(), "one committed total per order");
    }

    /**
     * Counts the producers made per transactional id, and the consumers per client id: a client
     * configures its metrics reporters with its own configuration once, when it is made.
     */
    public static final class ClientsMade implements MetricsReporter {
        private static final Map<String, Integer> MADE = new ConcurrentHashMap<>();
        /** Before a consumer's client id: what a transactional id never starts with. */
        static final String CONSUMER = "consumer ";

        static Map<String, Integer> of(String prefix) {
            return new TreeMap<>(MADE.entrySet().stream()
                    .filter(e -> e.getKey().startsWith(prefix))
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        }

        @Override
        public void configure(Map<String, ?> configs) {
            Object id = configs.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
            if (id != null) {
                MADE.merge(id.toString(), 1, Integer::sum);
            } else if (configs.containsKey(ConsumerConfig.ISOLATION_LEVEL_CONFIG)) {
                MADE.merge(CONSUMER + configs.get(ConsumerConfig.CLIENT_ID_CONFIG), 1, Integer::sum);
            }
        }

        @Override
        public void init(List<KafkaMetric> metrics) {}

        @Override
        public void metricChange(KafkaMetric metric) {}

        @Override
        public void metricRemoval(KafkaMetric metric) {}

        @Override
        public void close() {}
    }

    /** True while the instance runs; throws with its fatal error once it stopped by itself. */
    private static boolean alive(Instance instance) throws InterruptedException {
        if (instance.stopped()) {
            throw new AssertionError("the instance stopped", instance.awaitTermination());
        }
        return true;
    }

    /** The stage with {@code first} in front of its operators (a stage is a record: a new one). */
    private static InstanceSettings withFirstOperator(InstanceSettings s, Supplier<Operator> first) {
        Stage old = s.firstStage();
        List<ChainedOperator> operators = new ArrayList<>();
        operators.add(new ChainedOperator("pipeline.0.fault", first));
        operators.addAll(old.operators());
        Stage stage = new Stage(
                old.name(),
                old.inputTopics(),
                old.keyCodec(),
                old.valueCodec(),
                operators,
                old.deadLetterTopic(),
                old.eventTime());
        return new InstanceSettings(
                s.application(),
                s.instanceId(),
                List.of(stage),
                s.outputs(),
                s.exactlyOnce(),
                s.threads(),
                s.channelCapacity(),
                s.resetToEarliest(),
                s.transactionTimeout(),
                s.checkpoint(),
                s.restart(),
                s.state(),
                s.truncateDeadLetters(),
                s.replicationFactor(),
                s.standby());
    }

    /** A fault that fires on the {@code at}-th call counted over the whole instance, and never again. */
    private static final class Fault {
        final String what;
        final int at;
        private final AtomicInteger calls = new AtomicInteger();

        Fault(String what, int at) {
            this.what = what;
            this.at = at;
        }

        /** Counts a call; true for the {@code at}-th only. */
        boolean now() {
            return calls.incrementAndGet() == at;
        }

        boolean fired() {
            return calls.get() >= at;
        }
    }

    /** Passes events on; throws on the fault's record. One per task, sharing the fault. */
    private static final class ThrowsOnce implements Operator {
        private final Fault fault;

        ThrowsOnce(Fault fault) {
            this.fault = fault;
        }

        @Override
        public void process(Event event, Collector out) {
            if (fault.now()) {
                throw new IllegalStateException("injected: " + fault.what);
            }
            out.emit(event);
        }
    }

    private static final class FailingSnapshotStore extends ForwardingSnapshotStore {
        private final Fault fault;

        FailingSnapshotStore(SnapshotStore delegate, Fault fault) {
            super(delegate);
            this.fault = fault;
        }

        @Override
        public StoredFile write(String name, byte[] content) throws IOException {
            if (fault.now()) {
                throw new IOException("injected: " + fault.what + " (" + name + ")");
            }
            return super.write(name, content);
        }

        @Override
        public StoredFile write(String name, java.nio.file.Path file) throws IOException {
            if (fault.now()) {
                throw new IOException("injected: " + fault.what + " (" + name + ")");
            }
            return super.write(name, file);
        }
    }

    /** Fails the fault's commit, before delegating or after the delegate committed. */
    private static final class FailingCommit implements CheckpointIo {
        private final CheckpointIo delegate;
        private final Fault fault;
        private final boolean afterCommitting;

        FailingCommit(CheckpointIo delegate, Fault fault, boolean afterCommitting) {
            this.delegate = delegate;
            this.fault = fault;
            this.afterCommitting = afterCommitting;
        }

        @Override
        public boolean canOpenEpoch() {
            return delegate.canOpenEpoch();
        }

        @Override
        public void openEpoch(long epoch) {
            delegate.openEpoch(epoch);
        }

        @Override
        public void injectBarrier(long checkpointId) {
            delegate.injectBarrier(checkpointId);
        }

        @Override
        public void commit(
                long checkpointId, List<TaskCheckpoint> tasks, Map<InputPartition, Long> positions, Object fencingToken)
                throws Exception {
            boolean fail = fault.now();
            if (fail && !afterCommitting) {
                throw new IOException("injected: " + fault.what + " (checkpoint " + checkpointId + ")");
            }
            delegate.commit(checkpointId, tasks, positions, fencingToken);
            if (fail) {
                throw new IOException("injected: " + fault.what + " (checkpoint " + checkpointId + ")");
            }
        }
    }
}
