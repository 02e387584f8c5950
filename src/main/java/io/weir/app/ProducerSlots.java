package io.weir.app;

import io.weir.kafka.EpochProducers;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
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
 * first execution that acquires the first block takes them ({@link #takeAhead}), which starts the
 * second block's initialisation for the execution that may run beside it (a cooperative rebalance
 * adds partitions as a run of their own: a join's second round, another member's leave). An
 * execution that stops cleanly leaves its producers to the next one on its block ({@link #keep});
 * any other initialises its own producers, which aborts what the one before left open.
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

    /** Starts the initialisation of a block's producers, given its first slot; null: nothing ahead. */
    private IntFunction<CompletableFuture<? extends EpochProducers>> initialiser;
    /**
     * Per block, producers for the next execution on it: being initialised ahead, or kept from the
     * execution before ({@link #keep}); not taken yet.
     */
    private final Map<Integer, CompletableFuture<? extends EpochProducers>> ahead = new HashMap<>();
    /** The second block's initialisation was started (once, when the first block's were taken). */
    private boolean secondStarted;
    /** {@link #closeAhead} ran: producers kept after it are closed at once. */
    private boolean closed;

    ProducerSlots(int blockSize) {
        this.blockSize = blockSize;
    }

    /**
     * Starts initialising the first block's producers with {@code init} (given a block's first slot,
     * it starts the initialisation of that block's producers), for the first execution on it; after
     * {@link #closeAhead}, nothing.
     */
    synchronized void initialiseAhead(IntFunction<CompletableFuture<? extends EpochProducers>> init) {
        if (initialiser != null) {
            throw new IllegalStateException("producers are initialised ahead from one initialiser");
        }
        if (closed) {
            return; // closed while the instance started: nothing to initialise, nobody to close them
        }
        initialiser = init;
        ahead.put(0, init.apply(0));
    }

    /**
     * The producers initialised ahead for the block starting at {@code firstSlot}, for the
     * execution that acquired it: waits for their initialisation. Null when none were (or they
     * were taken already), or when their initialisation failed (the execution makes its own, and
     * meets the failure's cause again if it stays). Taking the first block's starts the second's.
     */
    EpochProducers takeAhead(int firstSlot) {
        CompletableFuture<? extends EpochProducers> init;
        synchronized (this) {
            int block = firstSlot / blockSize;
            init = ahead.remove(block);
            if (init == null) {
                return null;
            }
            if (block == 0 && initialiser != null && !secondStarted && !used.get(1)) {
                // Not while an execution holds the second block: initialising its ids would fence it.
                secondStarted = true;
                ahead.putIfAbsent(1, initialiser.apply(blockSize)); // for an execution beside this one
            }
        }
        try {
            return init.join();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            LOG.debug("the producers initialised ahead failed: {}", e.toString());
            return null;
        }
    }

    /**
     * Keeps the producers of an execution that stopped cleanly (every transaction it had open
     * aborted, nothing of it still using them) for the next execution on the block starting at
     * {@code firstSlot}, which then starts without initialising producers: a run restarted after a
     * rebalance took some of its partitions, or after a failover. Called before the block is
     * released. Producers kept after {@link #closeAhead}, for a block that has producers waiting
     * already, or for a block a cleaner still works on, are closed.
     */
    void keep(int firstSlot, EpochProducers producers) {
        int block = firstSlot / blockSize;
        synchronized (this) {
            // A cleaner this execution took the block over from and stopped waiting for may still
            // initialise one of its ids, which would fence the kept producers: not kept then.
            boolean cleaned = running.stream().anyMatch(c -> c.block == block);
            if (!closed && !cleaned && ahead.putIfAbsent(block, CompletableFuture.completedFuture(producers)) == null) {
                return;
            }
        }
        producers.close();
    }

    /**
     * Closes the producers initialised ahead or kept that no execution took: waits at most {@code wait} for
     * their initialisation (a new instance with the same id in this JVM would otherwise meet a late
     * one, and be fenced), else closes them once it ends.
     */
    void closeAhead(Duration wait) {
        List<CompletableFuture<? extends EpochProducers>> left;
        synchronized (this) {
            left = List.copyOf(ahead.values());
            ahead.clear();
            initialiser = null;
            closed = true;
        }
        long deadline = System.nanoTime() + wait.toNanos();
        for (CompletableFuture<? extends EpochProducers> init : left) {
            try {
                init.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // failed: nothing to close; still initialising: closed when it ends
            }
            init.thenAccept(EpochProducers::close);
        }
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
