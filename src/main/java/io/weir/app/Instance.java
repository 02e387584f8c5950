package io.weir.app;

import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Counters;
import io.weir.dataflow.RecordLimits;
import io.weir.element.InputPartition;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.PartitionCounts;
import io.weir.kafka.RebalanceHold;
import io.weir.kafka.SourceLoop;
import io.weir.kafka.StaticMember;
import io.weir.kafka.TransactionalProducers;
import io.weir.state.RocksDbBackend;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
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
    /** The state, threads and background admin client that every execution of this instance shares. */
    private final ExecutionResources shared;

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
    /** The checkpoint topic as read so far, shared by the restores and the standby rounds. */
    private CheckpointReader checkpoints;

    /**
     * Follows the checkpoint topic: {@link Standby} rounds when processing.standby asks for warm
     * copies, else the checkpoint reader's {@link CheckpointReader#follow}.
     */
    private volatile ScheduledExecutorService followLoop;
    /** The partition-count check of {@link #start()}; an execution waits for it before it runs. */
    private volatile PartitionCounts.Pending countsChecked;
    /** Set by close(), possibly from a shutdown hook while start() still waits for input topics. */
    private volatile boolean closing;

    private final List<InstanceEvents> listeners = new ArrayList<>();
    private InstanceEvents events = InstanceEvents.all(List.of());
    /** Transactional-id slots of the executions running side by side. */
    private final ProducerSlots producerSlots;
    /** Reads the group's committed offsets for restores. */
    private CommittedOffsets committedOffsets;

    public Instance(InstanceSettings settings, KafkaClients clients) {
        this(settings, clients, Seams.NONE);
    }

    public Instance(InstanceSettings settings, KafkaClients clients, Seams seams) {
        this.settings = settings;
        this.clients = clients;
        this.seams = seams;
        this.shared = new ExecutionResources(settings, clients, seams, clock);
        this.producerSlots = new ProducerSlots(Execution.poolSize(settings));
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
        return shared.backend() instanceof RocksDbBackend rocks ? rocks.blockCache() : java.util.Optional.empty();
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
        // One read of the checkpoint topic, begun here: it finds the partition counts recorded, and
        // the first restore continues it instead of reading the topic from the beginning.
        checkpoints = new CheckpointReader(clients, settings.checkpointTopic());
        if (settings.exactlyOnce()) {
            // The first execution's producers: their ids depend on the instance alone, so they are
            // initialised beside the checks instead of after the group's assignment. Initialising
            // aborts what this instance left open before a crash, which holds back every reader of
            // the partitions it wrote (a later stage reads every repartition partition): first thing.
            producerSlots.initialiseAhead(this::initialiseProducers);
        }
        StartupChecks checks = new StartupChecks(settings, clients, checkpoints, took, () -> !closing);
        StartupChecks.Found found = checks.run(() -> {
            committedOffsets = new CommittedOffsets(
                    clients,
                    settings.application(),
                    clientId() + "-offsets",
                    settings.checkpointTopic(),
                    named("weir-offsets-init"));
        });
        int partitions = found.partitions();
        countsChecked = found.countsChecked();
        Map<String, Integer> startCounts = found.startCounts();
        limits = found.limits();
        shared.open(clientId());
        RestartStrategy restart = new RestartStrategy(settings.restart(), ThreadLocalRandom.current()::nextDouble);
        Standby standby = settings.standby() > 0 && shared.backend() instanceof RocksDbBackend rocksdb
                ? new Standby(settings, shared.backgroundAdmin(), checkpoints, rocksdb, shared.snapshots(), events)
                : null;
        RebalanceHold hold = new RebalanceHold(clients.sourceHeartbeatInterval());
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
                new ExecutionLifecycle(
                        settings, stats, events, clock, startCounts, committedOffsets, this::executionContext),
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
            // The source loop may have joined the group meanwhile, as a static member that would hold
            // its partitions (and make `weir rescale` wait) until the session timeout.
            source.shutdown();
            try {
                source.awaitTermination();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            StaticMember.remove(clients, settings.application(), settings.instanceId(), Duration.ofSeconds(10));
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

    /** What an execution is built from, made as it starts (on the restore thread). */
    private Execution.Context executionContext() {
        return new Execution.Context(
                settings,
                clients,
                shared.snapshots(),
                shared.backend(),
                shared.coordinatorLoop(),
                shared.uploads(),
                shared.committer(),
                shared.housekeeping(),
                shared.purge(),
                clock,
                counters,
                limits,
                stats,
                source,
                seams,
                events,
                shared.departed(),
                producerSlots,
                seams.startGate().apply(() -> countsChecked.await()),
                checkpoints);
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
        producerSlots.closeAhead(CLEANING_WAIT_ON_CLOSE); // initialised ahead or kept, and not taken
        // A stopped run whose workers hung aborts its transactions on a thread of its own; a new
        // instance with the same id in this JVM would otherwise meet it (and be fenced).
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
        ExecutionResources.stop(followLoop);
        shared.stopThreads();
        if (committedOffsets != null) {
            committedOffsets.close(); // the source loop waited for the restore thread
        }
        if (checkpoints != null) {
            checkpoints.close();
        }
        shared.close();
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
