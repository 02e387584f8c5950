package io.weir.app;

import io.weir.element.InputPartition;
import io.weir.kafka.AtLeastOnceProducers;
import io.weir.kafka.EpochProducers;
import io.weir.kafka.TransactionalProducers;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An execution's producers and the block of transactional-id slots they use ({@link
 * ProducerSlots}): taken when the execution starts, and when it stops, their open transactions
 * aborted without waiting long for an unreachable broker, the producers kept for the next execution
 * on the block or closed, and the block given back (or cleaned, when a worker did not stop).
 */
final class ProducerPool {
    private static final Logger LOG = LoggerFactory.getLogger(Execution.class); // its lines were Execution's
    /** How long a stop waits for the aborts of its open transactions (see {@link #runWithin}). */
    private static final Duration ABORT_WAIT = Duration.ofSeconds(5);
    /**
     * How long a new execution waits for the abort of the slot its block's cleaner is on: one
     * producer initialisation, which gives up after max.block.ms (60 s by default).
     */
    private static final Duration CLEANING_WAIT = Duration.ofSeconds(70);

    private final Execution.Context context;
    private EpochProducers producers;
    private ProducerSlots producerSlots;
    /** The first transactional-id slot of this execution's producers; -1: none taken. */
    private int firstSlot = -1;

    ProducerPool(Execution.Context context) {
        this.context = context;
    }

    /**
     * Takes the producers of an execution of {@code assigned}: with exactly-once, those of the
     * block of slots it acquires (initialised ahead, kept by the execution before, or new, which
     * aborts what that one left open), their metadata fetched for the topics a commit writes.
     */
    void open(Set<InputPartition> assigned) {
        Execution.Context ctx = context;
        InstanceSettings s = ctx.settings();
        EpochProducers ahead = null;
        if (s.exactlyOnce()) {
            producerSlots = ctx.producerSlots();
            firstSlot = producerSlots.acquire(CLEANING_WAIT);
            ahead = producerSlots.takeAhead(firstSlot); // the first execution's, initialised at start
        }
        producers = ahead != null
                ? ahead
                : s.exactlyOnce()
                        ? new TransactionalProducers(
                                ctx.clients(),
                                s.transactionalIdPrefix(),
                                firstSlot,
                                Execution.poolSize(s),
                                s.transactionTimeout().toMillis(),
                                s.checkpointTopic())
                        : new AtLeastOnceProducers(
                                ctx.clients(),
                                s.application() + "-" + s.instanceId(),
                                s.checkpointTopic(),
                                ctx.source()::commitOffsets);
        if (producers instanceof TransactionalProducers transactional) {
            Set<String> topics = new TreeSet<>();
            assigned.forEach(ip -> topics.add(ip.topic())); // the offsets each commit sends
            topics.add(s.checkpointTopic());
            s.outputs().forEach(o -> topics.add(o.name()));
            transactional.warmMetadata(topics);
        }
    }

    /** The producers {@link #open} took; null before. */
    EpochProducers producers() {
        return producers;
    }

    /**
     * A stop's step once the workers were asked to stop: when they all stopped, the open
     * transactions are aborted; the producers are closed unless they are kept. Whether they are kept
     * (for {@link #release}).
     */
    boolean abortOpen(boolean workersStopped, boolean commitEnded) {
        // Producers whose open transactions all ended in an abort serve the next execution on the
        // block (a restart after a rebalance or a failover) as they are: no initialisation.
        boolean keep = false;
        if (producers != null) {
            if (workersStopped) {
                EpochProducers p = producers;
                AtomicBoolean aborted = new AtomicBoolean();
                boolean ended = runWithin(ABORT_WAIT, () -> aborted.set(p.abortOpen())); // closing ends it
                keep = ended && aborted.get() && commitEnded && producers instanceof TransactionalProducers;
            }
            if (!keep) {
                producers.close(); // also unblocks a worker still waiting in flush or send
            }
        }
        return keep;
    }

    /**
     * A stop's last step: gives the block of slots back, with the producers if {@code keep}; when
     * not {@code workersStopped}, first cleans it.
     */
    void release(boolean workersStopped, boolean keep) {
        if (firstSlot >= 0) {
            int first = firstSlot;
            firstSlot = -1;
            if (workersStopped) {
                if (keep) {
                    producerSlots.keep(first, producers);
                }
                producerSlots.release(first);
            } else {
                // Its open transactions were not aborted: the partitions may go to another member,
                // which would wait for them until the transaction timeout. Fence and abort them now;
                // a new execution of this instance takes the block over (ProducerSlots.acquire) and
                // aborts the rest by initialising its own producers with these ids.
                InstanceSettings s = context.settings();
                ProducerSlots.Cleaning cleaning = producerSlots.cleaning(first);
                runWithin(ABORT_WAIT, () -> {
                    try {
                        for (int slot = first; slot < first + Execution.poolSize(s) && !cleaning.takenOver(); slot++) {
                            try {
                                TransactionalProducers.abortLeftover(
                                        context.clients(),
                                        s.transactionalIdPrefix() + slot,
                                        s.transactionTimeout().toMillis());
                            } catch (RuntimeException e) {
                                LOG.warn("aborting the transaction of slot {} failed: {}", slot, e.toString());
                            }
                        }
                    } finally {
                        cleaning.done();
                    }
                });
            }
        }
    }

    /**
     * Runs {@code abort} on a thread of its own, waiting for it at most {@code wait}. With the broker
     * unreachable an abort blocks for the producer's {@code max.block.ms} (60 s) per transaction,
     * and the source loop, which stops executions, would block with it: no polling, no failover of
     * other runs, minutes before this run restarts. An abort still running after that goes on alone
     * until the producers it uses are closed (for the producers of a normal stop: right after this
     * returns; for fresh producers of a stuck worker's slots: when it is done): an open transaction
     * it does not reach is aborted when its transactional id is initialised again, or by the broker
     * after the transaction timeout. Whether {@code abort} ended within {@code wait}.
     */
    private boolean runWithin(Duration wait, Runnable abort) {
        Thread aborting = new Thread(abort, "weir-abort");
        aborting.setDaemon(true);
        aborting.start();
        try {
            aborting.join(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (aborting.isAlive()) {
            LOG.warn(
                    "the open transactions were not aborted within {} ms (is the broker reachable?); the next"
                            + " producers with these transactional ids abort them, else the broker after {} ms",
                    wait.toMillis(),
                    context.settings().transactionTimeout().toMillis());
            return false;
        }
        return true;
    }
}
