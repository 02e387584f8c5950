package io.weir.app;

import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Counters;
import io.weir.dataflow.RecordLimits;
import io.weir.dataflow.Stage;
import io.weir.element.InputPartition;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.KafkaSnapshotStore;
import io.weir.kafka.PartitionCounts;
import io.weir.kafka.RebalanceHold;
import io.weir.kafka.SourceLoop;
import io.weir.kafka.Topics;
import io.weir.kafka.TransactionalProducers;
import io.weir.state.FileSnapshotStore;
import io.weir.state.MemoryBackend;
import io.weir.state.RocksDbBackend;
import io.weir.state.SnapshotStore;
import io.weir.state.StateBackend;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Weir process running one job: checks and prepares the topics, then runs the source loop,
 * which starts an {@link Execution} for the partitions the group assigns and fails it over when
 * anything breaks. This is the composition root: it alone creates threads and reads the clock.
 */
public final class Instance implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Instance.class);
    /** How long a close waits for open transactions still being aborted by a stopped run. */
    private static final Duration CLEANING_WAIT_ON_CLOSE = Duration.ofSeconds(10);
    /** How often the checkpoint reader catches up with the topic when no standby rounds do. */
    private static final Duration FOLLOW_CHECKPOINTS_EVERY = Duration.ofSeconds(2);

    private final InstanceSettings settings;
    private final KafkaClients clients;
    private final LongSupplier clock = System::currentTimeMillis;
    private final Counters counters = new Counters();
    private final Stats stats = new Stats();
    private SnapshotStore snapshots;
    private StateBackend backend;
    private ScheduledExecutorService coordinatorLoop;
    private ExecutorService uploads;
    private ExecutorService committer;
    /** Deletes snapshot files (retention, orphan sweeps) without taking an upload thread. */
    private ExecutorService housekeeping;

    private SourceLoop source;
    private Thread sourceThread;

    /** Progress that the console and metrics read. */
    public static final class Stats {
        volatile long lastCompletedCheckpoint;
        volatile long lastCheckpointMillis;
        final AtomicInteger failovers = new AtomicInteger();
        final AtomicInteger restarts = new AtomicInteger();
        final AtomicInteger rebalances = new AtomicInteger();
        /** Why the tasks do not run (yet), or null while they do. */
        volatile String notRunning = "starting";

        public long lastCompletedCheckpoint() {
            return lastCompletedCheckpoint;
        }

        public long lastCheckpointMillis() {
            return lastCheckpointMillis;
        }

        public int failovers() {
            return failovers.get();
        }

        /** Executions started again after a failover. */
        public int restarts() {
            return restarts.get();
        }

        /** Partition assignments received from the group. */
        public int rebalances() {
            return rebalances.get();
        }

        /** Why the tasks are not running: starting, restoring, failing over; null while they run. */
        public String notRunning() {
            return notRunning;
        }
    }

    private final Seams seams;
    private RecordLimits limits = RecordLimits.defaults();
    private RepartitionPurge purge;
    /** Purges repartition topics and looks for departed instances' transactions. */
    private Admin backgroundAdmin;
    /** The checkpoint topic as read so far, shared by the restores and the standby rounds. */
    private CheckpointReader checkpoints;

    private DepartedTransactions departed;
    /**
     * Follows the checkpoint topic: {@link Standby} rounds when processing.standby asks for warm
     * copies, else the checkpoint reader's {@link CheckpointReader#follow}.
     */
    private volatile ScheduledExecutorService followLoop;
    /** The partition-count check of {@link #start()}; an execution waits for it before it runs. */
    private volatile PartitionCounts.Pending countsChecked;
    /**
     * The partition counts of every stage's inputs at the start: the group's leader refuses to assign
     * under other counts, and this member refuses a partition beyond them (read on the source thread).
     */
    private volatile Map<String, Integer> startCounts = Map.of();
    /** Set by close(), possibly from a shutdown hook while start() still waits for input topics. */
    private volatile boolean closing;

    private final List<InstanceEvents> listeners = new ArrayList<>();
    private InstanceEvents events = InstanceEvents.all(List.of());
    /** The next execution replaces one that failed. */
    private final java.util.concurrent.atomic.AtomicBoolean failedOver =
            new java.util.concurrent.atomic.AtomicBoolean();
    /** Transactional-id slots of the executions running side by side. */
    private ProducerSlots producerSlots;
    /** Reads the group's committed offsets for restores. */
    private CommittedOffsets committedOffsets;

    public Instance(InstanceSettings settings, KafkaClients clients) {
        this(settings, clients, Seams.NONE);
    }

    public Instance(InstanceSettings settings, KafkaClients clients, Seams seams) {
        this.settings = settings;
        this.clients = clients;
        this.seams = seams;
    }

    /** Registers an observer; only before {@link #start()}. */
    public void listen(InstanceEvents listener) {
        if (source != null) {
            throw new IllegalStateException("listeners are registered before the instance starts");
        }
        listeners.add(listener);
        events = InstanceEvents.all(listeners);
    }

    public Counters counters() {
        return counters;
    }

    /** The RocksDB backend's shared block cache figures; empty with the memory backend or when closed. */
    public java.util.Optional<RocksDbBackend.BlockCacheCounts> blockCache() {
        return backend instanceof RocksDbBackend rocks ? rocks.blockCache() : java.util.Optional.empty();
    }

    public Stats stats() {
        return stats;
    }

    public InstanceSettings settings() {
        return settings;
    }

    /** Ready once its tasks are restored and running. */
    public boolean ready() {
        return source != null && source.ready();
    }

    /** Whether the group's last assignment gave this member no partition: it runs no task. */
    public boolean assignedNothing() {
        return source != null && source.assignedNothing();
    }

    public Map<InputPartition, Long> lag() {
        return source == null ? Map.of() : source.lag();
    }

    /** Checks the broker and topics, then starts the source loop. Throws when a start-up check fails. */
    public void start() throws IOException {
        LOG.info("starting {} as instance {}; Kafka {}", settings.application(), settings.instanceId(), clients);
        StartTimes took = new StartTimes(clock);
        if (settings.state().backend() == StateSettings.Backend.ROCKSDB) {
            // Loading the native library takes a few hundred ms: overlap it with the checks below.
            Thread preload = named("weir-rocksdb-load").newThread(org.rocksdb.RocksDB::loadLibrary);
            preload.start();
        }
        producerSlots = new ProducerSlots(Execution.poolSize(settings));
        // One read of the checkpoint topic, begun here: it finds the partition counts recorded, and
        // the first restore continues it instead of reading the topic from the beginning.
        checkpoints = new CheckpointReader(clients, settings.checkpointTopic());
        PartitionCounts partitionCounts = new PartitionCounts(
                clients,
                settings.checkpointTopic(),
                checkpoints,
                settings.state().retain());
        var recordedCounts = partitionCounts.scanAsync(Duration.ofSeconds(60));
        int partitions;
        try (Admin admin = clients.admin(settings.application() + "-admin")) {
            Topics topics = new Topics(admin, settings.replicationFactor());
            TransactionChecks transactions = null;
            try {
                Map<String, Integer> inputs;
                try {
                    inputs = topics.awaitPartitions(
                            settings.firstStage().inputTopics(), () -> !closing, Duration.ofSeconds(10));
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
                if (settings.exactlyOnce()) {
                    transactions = TransactionChecks.start(topics, settings, clients); // beside the checks below
                    // The first execution's producers: their ids depend on the instance alone, so they are
                    // initialised beside the checks below instead of after the group's assignment.
                    producerSlots.initialiseAhead(this::initialiseProducers);
                }
                committedOffsets = new CommittedOffsets(
                        clients,
                        settings.application(),
                        clientId() + "-offsets",
                        settings.checkpointTopic(),
                        named("weir-offsets-init"));
                topics.ensureInternal(settings.checkpointTopic(), settings.snapshotTopic());
                for (OutputTopic out : settings.outputs()) {
                    int count = out.partitions() == 0 ? partitions : out.partitions();
                    // Repartition topics are purged up to what every checkpoint has consumed instead of
                    // by age: a job stopped for a week must still find what it had not read yet.
                    topics.ensure(out.name(), count, out.repartition() ? Map.of("retention.ms", "-1") : Map.of());
                }
                Map<String, Integer> allInputs = new HashMap<>(inputs);
                for (Stage stage :
                        settings.stages().subList(1, settings.stages().size())) {
                    // Just created (by the loop above) a repartition topic may not be described yet by
                    // the broker the admin client asks: wait for it like for a missing input.
                    Map<String, Integer> counts;
                    try {
                        counts = topics.awaitPartitions(stage.inputTopics(), () -> !closing, Duration.ofSeconds(10));
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
                startCounts = Map.copyOf(allInputs);
                topics.require(Topics.internalRequirements(
                        settings.checkpointTopic(),
                        settings.snapshotTopic(),
                        settings.outputs().stream()
                                .filter(OutputTopic::repartition)
                                .map(OutputTopic::name)
                                .toList()));
                List<String> written = new ArrayList<>();
                settings.outputs().forEach(o -> written.add(o.name()));
                Map<String, Integer> maxBytes = topics.maxRecordBytes(written, KafkaClients.MAX_REQUEST_BYTES);
                limits = new RecordLimits(
                        topic -> maxBytes.getOrDefault(topic, RecordLimits.DEFAULT_MAX_BYTES),
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
        StateSettings state = settings.state();
        KafkaSnapshotStore inKafka = state.snapshots() == StateSettings.SnapshotStoreKind.KAFKA
                ? new KafkaSnapshotStore(clients, settings.snapshotTopic(), clientId())
                : null;
        snapshots = seams.snapshots().apply(inKafka != null ? inKafka : new FileSnapshotStore(state.snapshotDir()));
        // A new pod (no local state: every restore downloads) connects its snapshot reader while it
        // starts; a restarted one recovers from its local files and needs its CPU for the start.
        if (inKafka != null
                && (state.backend() != StateSettings.Backend.ROCKSDB
                        || RocksDbBackend.holdsNothing(settings.localStateDir()))) {
            named("weir-snapshots-connect").newThread(inKafka::connectAhead).start();
        }
        try {
            backend = state.backend() == StateSettings.Backend.ROCKSDB
                    ? new RocksDbBackend(settings.localStateDir(), state.rocksdb())
                    : new MemoryBackend();
        } catch (IOException e) {
            throw new Topics.StartupException(
                    "cannot use " + settings.localStateDir() + " for RocksDB state " + "(processing.state.dir): " + e,
                    e);
        }
        coordinatorLoop = Executors.newSingleThreadScheduledExecutor(named("weir-coordinator"));
        uploads = Executors.newFixedThreadPool(2, named("weir-upload"));
        committer = Executors.newSingleThreadExecutor(named("weir-committer"));
        housekeeping = Executors.newSingleThreadExecutor(named("weir-housekeeping"));
        Set<String> repartitions = new HashSet<>();
        settings.outputs().stream().filter(OutputTopic::repartition).forEach(o -> repartitions.add(o.name()));
        if (!repartitions.isEmpty() || settings.exactlyOnce() || settings.standby() > 0) {
            backgroundAdmin = clients.admin(clientId() + "-background");
        }
        departed = settings.exactlyOnce() ? new DepartedTransactions(clients, settings, backgroundAdmin) : null;
        purge = new RepartitionPurge(repartitions, backgroundAdmin, housekeeping, clock, 30_000);
        RestartStrategy restart = new RestartStrategy(settings.restart(), ThreadLocalRandom.current()::nextDouble);
        Standby standby = settings.standby() > 0 && backend instanceof RocksDbBackend rocksdb
                ? new Standby(settings, backgroundAdmin, checkpoints, rocksdb, snapshots, events)
                : null;
        RebalanceHold hold = new RebalanceHold();
        var consumer = clients.sourceConsumer(
                settings.application(),
                settings.instanceId(),
                clientId(),
                settings.resetToEarliest(),
                standby == null ? java.util.Set::of : standby.warmPartitions(),
                startCounts,
                hold);
        events.sourceConsumer(consumer);
        stats.notRunning = "waiting for a partition assignment";
        source = new SourceLoop(
                consumer,
                settings.inputTopics(),
                new SourceLoop.Lifecycle() {
                    @Override
                    public SourceLoop.Execution start(
                            java.util.Set<InputPartition> assigned, java.util.function.BooleanSupplier ended)
                            throws Exception {
                        return startExecution(assigned, ended, () -> committedOffsets.checkpoints(assigned));
                    }

                    @Override
                    public void failedOver(Throwable cause) {
                        stats.failovers.incrementAndGet();
                        stats.notRunning = "failing over after: " + cause;
                        failedOver.set(true);
                        events.failedOver(cause);
                    }

                    @Override
                    public void assigned(java.util.Set<InputPartition> partitions) {
                        String beyond = PartitionCounts.beyond(partitions, startCounts);
                        if (beyond != null) {
                            throw new SourceLoop.FatalException(beyond, null);
                        }
                        stats.rebalances.incrementAndGet();
                        if (partitions.isEmpty()) {
                            stats.notRunning = null; // a member with nothing assigned runs nothing
                        }
                        java.util.Set<String> names = new java.util.TreeSet<>();
                        partitions.forEach(p -> names.add(p.toString()));
                        events.assigned(names);
                    }
                },
                restart,
                settings.resetToEarliest(),
                clock,
                Executors.newSingleThreadExecutor(named("weir-restore")),
                hold);
        sourceThread = named("weir-source").newThread(source);
        sourceThread.start();
        if (standby != null && !closing) {
            long every = Standby.period(settings).toMillis();
            followLoop = Executors.newSingleThreadScheduledExecutor(named("weir-standby"));
            followLoop.scheduleWithFixedDelay(standby, every, every, TimeUnit.MILLISECONDS);
        } else if (!closing) {
            // The standby's rounds read the checkpoint topic; without them the reader follows it
            // on its own, so that a restore reads only the last seconds' checkpoints.
            long every = FOLLOW_CHECKPOINTS_EVERY.toMillis();
            followLoop = Executors.newSingleThreadScheduledExecutor(named("weir-checkpoint-follow"));
            followLoop.scheduleWithFixedDelay(this::followCheckpoints, every, every, TimeUnit.MILLISECONDS);
        }
        if (closing && followLoop != null) {
            followLoop.shutdownNow(); // a close that ran meanwhile did not see it
        }
        took.mark("state and clients");
        try {
            countsChecked.await();
        } catch (IOException | RuntimeException e) {
            // The source loop may have joined the group meanwhile (static membership: it would hold
            // its partitions until the session timeout, and `weir rescale` would wait for it).
            source.shutdownAndLeave();
            throw e;
        }
        took.mark("partition counts");
        LOG.info(
                "{} started as instance {} ({}, {} partitions per input; start-up checks: {})",
                settings.application(),
                settings.instanceId(),
                settings.exactlyOnce() ? "exactly-once" : "at-least-once",
                partitions,
                took);
    }

    private void followCheckpoints() {
        try {
            checkpoints.follow(FOLLOW_CHECKPOINTS_EVERY);
        } catch (IOException | RuntimeException e) {
            LOG.debug("following {}: {}", settings.checkpointTopic(), e.toString()); // the next restore reads it all
        }
    }

    /** Starts initialising, on a thread of its own, the producers of the block starting at {@code firstSlot}. */
    private CompletableFuture<TransactionalProducers> initialiseProducers(int firstSlot) {
        CompletableFuture<TransactionalProducers> init = new CompletableFuture<>();
        named("weir-producer-init")
                .newThread(() -> {
                    try {
                        init.complete(new TransactionalProducers(
                                clients,
                                settings.transactionalIdPrefix(),
                                firstSlot,
                                Execution.poolSize(settings),
                                settings.transactionTimeout().toMillis(),
                                settings.checkpointTopic()));
                    } catch (Throwable t) {
                        init.completeExceptionally(t);
                    }
                })
                .start();
        return init;
    }

    /** How long each part of {@link #start()} took, for its log line. */
    private static final class StartTimes {
        private final LongSupplier clock;
        private final java.util.StringJoiner parts = new java.util.StringJoiner(", ");
        private long last;

        StartTimes(LongSupplier clock) {
            this.clock = clock;
            this.last = clock.getAsLong();
        }

        void mark(String part) {
            long now = clock.getAsLong();
            parts.add(part + " " + (now - last) + " ms");
            last = now;
        }

        @Override
        public String toString() {
            return parts.toString();
        }
    }

    private SourceLoop.Execution startExecution(
            java.util.Set<InputPartition> assigned,
            java.util.function.BooleanSupplier ended,
            Execution.CommittedCheckpoints committedCheckpoints)
            throws Exception {
        java.util.Set<String> names = new java.util.TreeSet<>();
        for (InputPartition ip : assigned) {
            Stage stage = settings.stageReading(ip.topic());
            names.add(stage == null ? ip.toString() : stage.taskName(ip.partition()));
        }
        List<String> tasks = List.copyOf(names);
        stats.notRunning = "restoring tasks " + String.join(", ", tasks);
        if (failedOver.getAndSet(false)) {
            stats.restarts.incrementAndGet();
        }
        events.restoring(tasks);
        long started = clock.getAsLong();
        Execution execution = Execution.start(
                new Execution.Context(
                        settings,
                        clients,
                        snapshots,
                        backend,
                        coordinatorLoop,
                        uploads,
                        committer,
                        housekeeping,
                        purge,
                        clock,
                        counters,
                        limits,
                        stats,
                        source,
                        seams,
                        events,
                        departed,
                        producerSlots,
                        seams.startGate().apply(() -> countsChecked.await()),
                        checkpoints),
                assigned,
                committedCheckpoints,
                ended);
        stats.notRunning = null;
        events.restored(tasks, clock.getAsLong() - started, execution.restoreSizes());
        return execution;
    }

    /** Whether the instance stopped (a fatal error, or closed). */
    public boolean stopped() {
        return source != null && !source.running();
    }

    /** Waits until the instance stops by itself (fatal error) or is closed; returns the fatal error or null. */
    public Throwable awaitTermination() throws InterruptedException {
        source.awaitTermination();
        return source.fatal();
    }

    /**
     * Stops gracefully: stops reading, commits what was read in a last checkpoint (at most
     * {@code timeout}), then closes. Used on SIGTERM, so a rolling restart redoes nothing.
     */
    public void stopGracefully(Duration timeout) {
        if (source != null) {
            source.shutdownGracefully(timeout);
            try {
                source.awaitTermination();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        close();
    }

    /** Stops processing; output of the open epochs is aborted and processed again after a restart. */
    @Override
    public void close() {
        closing = true;
        if (source != null) {
            source.shutdown();
            try {
                source.awaitTermination();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (producerSlots != null) {
            producerSlots.closeAhead(CLEANING_WAIT_ON_CLOSE); // initialised ahead or kept, and not taken
            // A stopped run whose workers hung aborts its transactions on a thread of its own; a
            // new instance with the same id in this JVM would otherwise meet it (and be fenced).
            try {
                if (!producerSlots.awaitCleaned(CLEANING_WAIT_ON_CLOSE)) {
                    LOG.warn(
                            "closing while open transactions are still being aborted; the broker aborts"
                                    + " them after {} ms",
                            settings.transactionTimeout().toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (ExecutorService e :
                new ExecutorService[] {followLoop, coordinatorLoop, uploads, committer, housekeeping}) {
            if (e != null) {
                e.shutdownNow();
                try {
                    e.awaitTermination(10, TimeUnit.SECONDS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        if (committedOffsets != null) {
            committedOffsets.close(); // the source loop waited for the restore thread
        }
        if (checkpoints != null) {
            checkpoints.close();
        }
        if (backend != null) {
            backend.close(); // after the source loop stopped its execution, which closed every store
        }
        if (snapshots != null) {
            snapshots.close();
        }
        if (backgroundAdmin != null) {
            backgroundAdmin.close(java.time.Duration.ofSeconds(5));
        }
    }

    private String clientId() {
        return settings.application() + "-" + settings.instanceId();
    }

    static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
    }
}
