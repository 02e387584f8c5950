package io.weir.app;

import io.weir.kafka.KafkaClients;
import io.weir.kafka.OpenTransactions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts the open transactions of this job's instances that are no longer members of its consumer
 * group (scaled in, renamed, or a zombie the group has already dropped). Such a transaction holds
 * back the last stable offset of what it wrote and keeps the group's offsets it sent pending, so a
 * new owner of its partitions would wait for the committed offsets, and read_committed readers of
 * its output, until the broker aborts it after the transaction timeout. Checked at every execution
 * start, on its own thread, so a start without such transactions waits for nothing.
 *
 * <p>Only transactions whose partitions all belong to topics this job writes (its outputs, its
 * checkpoint topic and the group offsets) are touched: another application whose name extends this
 * one's ({@code orders} and {@code orders-eu}) shares the transactional-id prefix, not the topics.
 * An instance that died keeps its static membership until the session timeout; until then its
 * transaction is left to its restart (which aborts it) or to the group dropping it.
 */
final class DepartedTransactions {
    private static final Logger LOG = LoggerFactory.getLogger(DepartedTransactions.class);

    private final KafkaClients clients;
    private final InstanceSettings settings;
    private final Set<String> ownTopics = new HashSet<>();
    private final Admin admin;

    DepartedTransactions(KafkaClients clients, InstanceSettings settings, Admin admin) {
        this.clients = clients;
        this.settings = settings;
        this.admin = admin;
        settings.outputs().forEach(o -> ownTopics.add(o.name()));
        ownTopics.add(settings.checkpointTopic());
        ownTopics.add("__consumer_offsets");
    }

    /** Starts a check on its own daemon thread. */
    void abortAsync() {
        Thread t = Instance.named("weir-departed-transactions").newThread(this::abortDeparted);
        t.setDaemon(true);
        t.start();
    }

    /** Aborts every open transaction of a departed instance of this job; returns how many. */
    int abortDeparted() {
        int aborted = 0;
        try {
            for (OpenTransactions.Open open : own()) {
                if (!open.ownerIsMember() && !open.owner().equals(settings.instanceId())) {
                    abort(open, "which is no longer in the group");
                    aborted++;
                }
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            // The broker aborts it after its transaction timeout at the latest.
            LOG.warn("cannot check for open transactions of departed instances: {}", e.toString());
        }
        return aborted;
    }

    /**
     * The open transactions of this job: those whose partitions all belong to topics it writes.
     * Throws when the broker cannot be asked.
     */
    List<OpenTransactions.Open> own() throws Exception {
        List<OpenTransactions.Open> own = new ArrayList<>();
        for (OpenTransactions.Open open : new OpenTransactions(admin, settings.application()).list()) {
            if (!open.partitions().isEmpty() && open.partitions().stream().allMatch(this::ownPartition)) {
                own.add(open);
            }
        }
        return own;
    }

    /**
     * Aborts every open transaction of this job, whoever opened it: for a tool that runs while no
     * instance does ({@code weir rescale}, once the group has no member). Returns how many; throws
     * when the broker cannot be asked or one cannot be aborted.
     */
    int abortAll() throws Exception {
        List<OpenTransactions.Open> own = own();
        for (OpenTransactions.Open open : own) {
            abort(open, "while no instance of the job runs");
        }
        return own.size();
    }

    private void abort(OpenTransactions.Open open, String why) {
        LOG.info(
                "aborting transaction {} of instance {}, {} (open since {}, on {}): it holds back what it wrote"
                        + " and the offsets it committed",
                open.transactionalId(),
                open.owner(),
                why,
                open.startMs().isPresent()
                        ? java.time.Instant.ofEpochMilli(open.startMs().getAsLong())
                        : "?",
                open.partitions());
        OpenTransactions.abort(
                clients, open.transactionalId(), settings.transactionTimeout().toMillis());
    }

    /** Whether {@code partition} ("topic-n") is of a topic this job writes. */
    private boolean ownPartition(String partition) {
        int dash = partition.lastIndexOf('-');
        return dash > 0 && ownTopics.contains(partition.substring(0, dash));
    }
}
