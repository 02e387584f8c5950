package io.weir.app;

import io.weir.kafka.EpochProducers;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which transactional-id slots the running executions of an instance hold. Executions run side by
 * side (one per group of partitions assigned together), so each takes its own block of
 * {@code blockSize} consecutive slots: block b holds slots {@code b × blockSize} to
 * {@code (b + 1) × blockSize − 1}. The lowest free block is taken, so an instance running one
 * execution always uses slots 0 to blockSize − 1, and an execution started again after a failover
 * reuses — and, by initialising its producers, aborts — what the stopped one left.
 *
 * <p>A stopped execution whose workers hung (the broker unreachable) leaves its transactions open
 * and cleans its block itself, on a thread of its own: {@link #cleaning}. Such a block counts as
 * free for the next {@link #acquire}, which takes it over: the cleaner stops before its next slot,
 * and the new owner waits (bounded) for the slot it is on, so that the two do not initialise the
 * same transactional id at once (the later would fence the other: one more failover, never a wrong
 * commit). A cleaner still running when its block is given back keeps the block until it ends, and
 * {@link #awaitCleaned} waits for every cleaner, taken over or not. Taking a block being cleaned instead
 * of the next one keeps an instance on its first block: a new block's producers would leave the
 * old block's transactions open until the broker's transaction timeout, and read_committed readers
 * and the group's committed offsets wait behind them.
 *
 * <p>The first block's producers can be initialised while the instance starts, before the group
 * assigns anything ({@link #initialiseAhead}): their ids depend on the instance alone, and an
 * initialisation is a few round trips to the transaction coordinator (more when it aborts what a
 * crashed predecessor left open) that a restart would otherwise wait for after its assignment. The
 * first execution that acquires the first block takes them ({@link #takeAhead}); every later one
 * initialises its own, which aborts what the one before left open.
 */
final class ProducerSlots {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerSlots.class);

    private final int blockSize;
    /** Blocks held by an execution or by a cleaner. */
    private final BitSet used = new BitSet();

    /**
     * Every cleaning still running: those not taken over are what {@link #acquire} may take over,
     * all are what {@link #awaitCleaned} waits for.
     */
    private final Set<Cleaning> running = new HashSet<>();

    /** The first block's producers being initialised ahead; null when never made or taken. */
    private CompletableFuture<? extends EpochProducers> ahead;

    ProducerSlots(int blockSize) {
        this.blockSize = blockSize;
    }

    /** Keeps the first block's producers, initialised by {@code init}, for the first execution on it. */
    synchronized void initialiseAhead(CompletableFuture<? extends EpochProducers> init) {
        if (ahead != null) {
            throw new IllegalStateException("the first block's producers are initialised ahead once");
        }
        ahead = init;
    }

    /**
     * The producers initialised ahead, for an execution that acquired the block starting at {@code
     * firstSlot}: waits for their initialisation. Null when the block is not the first, when they
     * were taken already or never made, or when their initialisation failed (the execution makes its
     * own, and meets the failure's cause again if it stays).
     */
    EpochProducers takeAhead(int firstSlot) {
        CompletableFuture<? extends EpochProducers> init;
        synchronized (this) {
            if (firstSlot != 0 || ahead == null) {
                return null;
            }
            init = ahead;
            ahead = null;
        }
        try {
            return init.join();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            LOG.debug("the producers initialised ahead failed: {}", e.toString());
            return null;
        }
    }

    /**
     * Closes the producers initialised ahead if no execution took them: waits at most {@code wait}
     * for their initialisation (a new instance with the same id in this JVM would otherwise meet a
     * late one, and be fenced), else closes them once it ends.
     */
    void closeAhead(Duration wait) {
        CompletableFuture<? extends EpochProducers> init;
        synchronized (this) {
            init = ahead;
            ahead = null;
        }
        if (init == null) {
            return;
        }
        try {
            init.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // failed: nothing to close; still initialising: closed when it ends
        }
        init.thenAccept(EpochProducers::close);
    }

    /** The cleaning of one block, by the execution that held it. */
    final class Cleaning {
        private final int block;
        private final CountDownLatch done = new CountDownLatch(1);
        private boolean takenOver;
        /** The execution that took the block over released it while this cleaner still ran. */
        private boolean releaseWhenDone;

        private Cleaning(int block) {
            this.block = block;
        }

        /** Whether a new execution took the block over: the cleaner must start no further slot. */
        boolean takenOver() {
            synchronized (ProducerSlots.this) {
                return takenOver;
            }
        }

        /**
         * The cleaner is done (or gave up): the block is free unless it was taken over (and is still
         * held by the execution that took it).
         */
        void done() {
            synchronized (ProducerSlots.this) {
                running.remove(this);
                if (!takenOver || releaseWhenDone) {
                    used.clear(block);
                }
            }
            done.countDown();
        }
    }

    /**
     * Takes the lowest block that is free or being cleaned; returns its first slot. A block being
     * cleaned is taken over: this waits, at most {@code wait}, for its cleaner to finish the slot it
     * is on. Interrupted, it returns the block at once with the interrupt status set.
     */
    int acquire(Duration wait) {
        Cleaning over;
        int block;
        synchronized (this) {
            block = used.nextClearBit(0);
            over = null;
            for (Cleaning c : running) {
                if (c.block < block && !c.takenOver) {
                    block = c.block;
                    over = c;
                }
            }
            if (over != null) {
                over.takenOver = true;
            }
            used.set(block);
        }
        if (over != null && !awaitDone(over, wait)) {
            LOG.warn(
                    "the transactions of slots {} to {} were still being aborted after {} ms; initialising"
                            + " producers with these ids anyway",
                    block * blockSize,
                    (block + 1) * blockSize - 1,
                    wait.toMillis());
        }
        return block * blockSize;
    }

    private static boolean awaitDone(Cleaning c, Duration wait) {
        try {
            return c.done.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Gives back the block that starts at {@code firstSlot}: its transactions were aborted. A
     * cleaner the execution took the block over from and stopped waiting for keeps it until done.
     */
    synchronized void release(int firstSlot) {
        int block = firstSlot / blockSize;
        for (Cleaning c : running) {
            if (c.block == block && c.takenOver) {
                c.releaseWhenDone = true;
                return;
            }
        }
        used.clear(block);
    }

    /**
     * The block that starts at {@code firstSlot} stays taken while its open transactions are
     * aborted; the cleaner calls {@link Cleaning#done} when it ends.
     */
    synchronized Cleaning cleaning(int firstSlot) {
        Cleaning c = new Cleaning(firstSlot / blockSize);
        running.add(c);
        return c;
    }

    /** Waits, at most {@code wait}, for the cleanings under way; whether none is left. */
    boolean awaitCleaned(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Cleaning next;
            synchronized (this) {
                if (running.isEmpty()) {
                    return true;
                }
                next = running.iterator().next();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !next.done.await(left, TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
    }
}
