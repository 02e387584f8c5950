package io.weir.app;

import io.weir.kafka.KafkaClients;
import io.weir.kafka.KafkaSnapshotStore;
import io.weir.kafka.Topics;
import io.weir.state.FileSnapshotStore;
import io.weir.state.MemoryBackend;
import io.weir.state.RocksDbBackend;
import io.weir.state.SnapshotStore;
import io.weir.state.StateBackend;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;

/**
 * What every execution of an instance shares, opened in the "state and clients" step of
 * {@link Instance#start()}: the snapshot store and the state backend, the coordinator, upload,
 * committer and housekeeping threads, and the background admin client with the work done on it
 * (repartition purges, departed instances' transactions). Each is null until opened.
 */
final class ExecutionResources {
    private final InstanceSettings settings;
    private final KafkaClients clients;
    private final Seams seams;
    private final LongSupplier clock;

    private SnapshotStore snapshots;
    private StateBackend backend;
    private ScheduledExecutorService coordinatorLoop;
    private ExecutorService uploads;
    private ExecutorService committer;
    /** Deletes snapshot files (retention, orphan sweeps) without taking an upload thread. */
    private ExecutorService housekeeping;

    private RepartitionPurge purge;
    /** Purges repartition topics and looks for departed instances' transactions. */
    private Admin backgroundAdmin;

    private DepartedTransactions departed;

    ExecutionResources(InstanceSettings settings, KafkaClients clients, Seams seams, LongSupplier clock) {
        this.settings = settings;
        this.clients = clients;
        this.seams = seams;
        this.clock = clock;
    }

    /**
     * Opens them in order, the clients named after {@code clientId}; throws {@link IOException} when
     * the snapshot directory cannot be made and {@link Topics.StartupException} when the state
     * directory cannot be used. What opened before a failure is closed by {@link #stopThreads} and
     * {@link #close}.
     */
    void open(String clientId) throws IOException {
        StateSettings state = settings.state();
        KafkaSnapshotStore inKafka = state.snapshots() == StateSettings.SnapshotStoreKind.KAFKA
                ? new KafkaSnapshotStore(clients, settings.snapshotTopic(), clientId)
                : null;
        snapshots = seams.snapshots().apply(inKafka != null ? inKafka : new FileSnapshotStore(state.snapshotDir()));
        // A new pod (no local state: every restore downloads) connects its snapshot reader while it
        // starts; a restarted one recovers from its local files and needs its CPU for the start.
        if (inKafka != null
                && (state.backend() != StateSettings.Backend.ROCKSDB
                        || RocksDbBackend.holdsNothing(settings.localStateDir()))) {
            Instance.named("weir-snapshots-connect")
                    .newThread(inKafka::connectAhead)
                    .start();
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
        coordinatorLoop = Executors.newSingleThreadScheduledExecutor(Instance.named("weir-coordinator"));
        uploads = Executors.newFixedThreadPool(2, Instance.named("weir-upload"));
        committer = Executors.newSingleThreadExecutor(Instance.named("weir-committer"));
        housekeeping = Executors.newSingleThreadExecutor(Instance.named("weir-housekeeping"));
        Set<String> repartitions = new HashSet<>();
        settings.outputs().stream().filter(OutputTopic::repartition).forEach(o -> repartitions.add(o.name()));
        if (!repartitions.isEmpty() || settings.exactlyOnce() || settings.standby() > 0) {
            backgroundAdmin = clients.admin(clientId + "-background");
        }
        departed = settings.exactlyOnce() ? new DepartedTransactions(clients, settings, backgroundAdmin) : null;
        purge = new RepartitionPurge(repartitions, backgroundAdmin, housekeeping, clock, 30_000);
    }

    SnapshotStore snapshots() {
        return snapshots;
    }

    StateBackend backend() {
        return backend;
    }

    ScheduledExecutorService coordinatorLoop() {
        return coordinatorLoop;
    }

    ExecutorService uploads() {
        return uploads;
    }

    ExecutorService committer() {
        return committer;
    }

    ExecutorService housekeeping() {
        return housekeeping;
    }

    RepartitionPurge purge() {
        return purge;
    }

    Admin backgroundAdmin() {
        return backgroundAdmin;
    }

    DepartedTransactions departed() {
        return departed;
    }

    /** Stops the threads, one after the other, each waited for up to 10 s. */
    void stopThreads() {
        for (ExecutorService e : new ExecutorService[] {coordinatorLoop, uploads, committer, housekeeping}) {
            stop(e);
        }
    }

    /** Closes the state backend, the snapshot store and the admin client, after {@link #stopThreads}. */
    void close() {
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

    /** Stops {@code e} (null: nothing) and waits up to 10 s for its thread(s). */
    static void stop(ExecutorService e) {
        if (e != null) {
            e.shutdownNow();
            try {
                e.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
