package io.weir.app;

import io.weir.dataflow.RecordLimits;
import io.weir.dataflow.Stage;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.PartitionCounts;
import io.weir.kafka.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;

/**
 * The start-up checks of an instance's topics, in their order: the input topics (waited for, one
 * partition count for those the first stage reads together), its own topics (created, each stage's
 * inputs co-partitioned), the topic settings and, under exactly-once, the transactions
 * ({@link TransactionChecks}, beside the others). The read of the partition counts recorded in the
 * checkpoint topic begins before them; their comparison with the topics' counts begins after the
 * own topics and ends while the rest of the instance starts. A failed check throws {@link
 * Topics.StartupException}.
 */
final class StartupChecks {
    private final InstanceSettings settings;
    private final KafkaClients clients;
    private final StartTimes took;
    /** False once the instance is closing: then the waits for topics give up. */
    private final BooleanSupplier keepWaiting;

    private final PartitionCounts partitionCounts;
    private final CompletableFuture<PartitionCounts.Scan> recordedCounts;

    /**
     * What the checks found.
     *
     * @param partitions the largest partition count of the first stage's inputs
     * @param startCounts the partition counts of every stage's inputs
     * @param countsChecked their comparison with the recorded counts, still running
     * @param limits the record sizes the written topics take
     */
    record Found(
            int partitions,
            Map<String, Integer> startCounts,
            PartitionCounts.Pending countsChecked,
            RecordLimits limits) {}

    /** Begins reading the partition counts recorded in the checkpoint topic, through {@code checkpoints}. */
    StartupChecks(
            InstanceSettings settings,
            KafkaClients clients,
            CheckpointReader checkpoints,
            StartTimes took,
            BooleanSupplier keepWaiting) {
        this.settings = settings;
        this.clients = clients;
        this.took = took;
        this.keepWaiting = keepWaiting;
        this.partitionCounts = new PartitionCounts(
                clients,
                settings.checkpointTopic(),
                checkpoints,
                settings.state().retain());
        this.recordedCounts = partitionCounts.scanAsync(Duration.ofSeconds(60));
    }

    /**
     * Runs the checks, marking each in {@code took}. {@code beside} runs once the input topics are
     * there, to start what overlaps the checks that follow.
     */
    Found run(Runnable beside) {
        int partitions;
        Map<String, Integer> allInputs;
        PartitionCounts.Pending countsChecked;
        RecordLimits limits;
        try (Admin admin = clients.admin(settings.application() + "-admin")) {
            Topics topics = new Topics(admin, settings.replicationFactor());
            TransactionChecks transactions = null;
            try {
                if (settings.exactlyOnce()) {
                    // Beside every check below, the input wait included: it aborts what this instance
                    // left open under the ids beyond its first block, as its producers do for the first.
                    transactions = TransactionChecks.start(topics, settings, clients);
                }
                Map<String, Integer> inputs;
                try {
                    inputs = topics.awaitPartitions(
                            settings.firstStage().inputTopics(), keepWaiting, Duration.ofSeconds(10));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new Topics.StartupException("interrupted while waiting for the input topics", e);
                }
                partitions = inputs.values().stream().max(Integer::compare).orElse(1);
                if (inputs.values().stream().distinct().count() > 1) {
                    List<String> counts = new ArrayList<>();
                    for (String topic : settings.firstStage().inputTopics()) {
                        counts.add(topic + " has " + inputs.get(topic) + " partitions");
                    }
                    throw new Topics.StartupException("the topics the first stage reads together must have the same "
                            + "partition count (a join or lookup reads partition p of each with partition p of the "
                            + "source), but " + String.join(" and ", counts));
                }
                took.mark("input topics");
                beside.run();
                topics.ensureInternal(settings.checkpointTopic(), settings.snapshotTopic());
                for (OutputTopic out : settings.outputs()) {
                    int count = out.partitions() == 0 ? partitions : out.partitions();
                    // Made here, a topic keeps its records for good (retention.ms=-1): records carry
                    // their input's timestamps (a window's time, an old record's dead letter), and
                    // time-based retention would delete those older than it minutes after they were
                    // written. Repartition topics are purged up to what every checkpoint has consumed
                    // instead: a job stopped for a week must still find what it had not read yet. A
                    // topic that exists keeps its own settings. A purge frees only whole segments, so a
                    // repartition topic rolls them every 50 MiB or 10 minutes (as Kafka Streams' do).
                    topics.ensure(
                            out.name(),
                            count,
                            out.repartition() ? Topics.REPARTITION_CONFIG : Map.of("retention.ms", "-1"));
                }
                allInputs = new HashMap<>(inputs);
                for (Stage stage :
                        settings.stages().subList(1, settings.stages().size())) {
                    // Just created (by the loop above) a repartition topic may not be described yet by
                    // the broker the admin client asks: wait for it like for a missing input.
                    Map<String, Integer> counts;
                    try {
                        counts = topics.awaitPartitions(stage.inputTopics(), keepWaiting, Duration.ofSeconds(10));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new Topics.StartupException("interrupted while waiting for the repartition topics", e);
                    }
                    if (counts.values().stream().distinct().count() > 1) {
                        throw new Topics.StartupException("input topics of one stage must have the same partition "
                                + "count (co-partitioning), found " + counts);
                    }
                    allInputs.putAll(counts);
                }
                took.mark("own topics");
                // Compared while the rest starts, the group is joined and the first tasks restore: an
                // execution starts no worker before the comparison passed (Execution.StartGate).
                countsChecked = partitionCounts.checkAsync(allInputs, Duration.ofSeconds(60), recordedCounts);
                topics.require(Topics.internalRequirements(
                        settings.checkpointTopic(),
                        settings.snapshotTopic(),
                        settings.outputs().stream()
                                .filter(OutputTopic::repartition)
                                .map(OutputTopic::name)
                                .toList()));
                List<String> written = new ArrayList<>();
                settings.outputs().forEach(o -> written.add(o.name()));
                Map<String, RecordLimits.Topic> accepted = topics.recordLimits(written, KafkaClients.MAX_REQUEST_BYTES);
                limits = new RecordLimits(
                        topic -> accepted.getOrDefault(topic, RecordLimits.Topic.DEFAULT),
                        settings.truncateDeadLetters());
                took.mark("topic settings");
                if (transactions != null) {
                    transactions.await();
                    took.mark("transactions");
                }
            } finally {
                if (transactions != null) {
                    transactions.endBeforeClose(); // when a check above failed
                }
            }
        }
        return new Found(partitions, Map.copyOf(allInputs), countsChecked, limits);
    }
}
