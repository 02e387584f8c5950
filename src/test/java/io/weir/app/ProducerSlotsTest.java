package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.EpochOutput;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import io.weir.kafka.EpochProducers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProducerSlotsTest {
    private static final Duration WAIT = Duration.ofMinutes(1);

    @Test
    void executionsSideBySideTakeTheLowestFreeBlocks() {
        ProducerSlots slots = new ProducerSlots(3);
        assertEquals(0, slots.acquire(WAIT));
        assertEquals(3, slots.acquire(WAIT));
        assertEquals(6, slots.acquire(WAIT));
        slots.release(3);
        assertEquals(3, slots.acquire(WAIT), "a released block is taken again first");
        assertEquals(9, slots.acquire(WAIT));
    }

    @Test
    void aBlockBeingCleanedIsTakenOverOnlyOnceItsCleanerFinishedTheSlotItIsOn() throws Exception {
        ProducerSlots slots = new ProducerSlots(3);
        int first = slots.acquire(WAIT);
        ProducerSlots.Cleaning cleaning = slots.cleaning(first);
        assertFalse(cleaning.takenOver());

        // The restarted execution must take the same block (its producers abort what is left open)
        // and must not initialise these ids while the cleaner is on one of them.
        CompletableFuture<Integer> taken = CompletableFuture.supplyAsync(() -> slots.acquire(WAIT));
        await("the new execution took the block over")
                .atMost(Duration.ofSeconds(30))
                .until(cleaning::takenOver);
        assertFalse(taken.isDone(), "the new execution went on while the cleaner was still on a slot");
        cleaning.done();
        assertEquals(first, taken.get(30, TimeUnit.SECONDS));
        assertEquals(3, slots.acquire(WAIT), "the cleaner's end left the block taken over with its new owner");
    }

    @Test
    void aFreeBlockBelowTheOneBeingCleanedIsTakenAndTheCleanerGoesOn() throws Exception {
        ProducerSlots slots = new ProducerSlots(2);
        assertEquals(0, slots.acquire(WAIT));
        int second = slots.acquire(WAIT);
        ProducerSlots.Cleaning cleaning = slots.cleaning(second);
        slots.release(0);

        assertEquals(0, slots.acquire(WAIT));
        assertFalse(cleaning.takenOver());
        cleaning.done();
        assertEquals(second, slots.acquire(WAIT), "a block cleaned and not taken over is free");
        assertEquals(4, slots.acquire(WAIT));
    }

    @Test
    void aCleanedBlockIsFreeAgainAndACloseWaitsForTheCleaningsUnderWay() throws Exception {
        ProducerSlots slots = new ProducerSlots(2);
        ProducerSlots.Cleaning cleaning = slots.cleaning(slots.acquire(WAIT));
        assertFalse(slots.awaitCleaned(Duration.ofMillis(50)), "a cleaning under way was not waited for");
        CompletableFuture.runAsync(cleaning::done);
        assertTrue(slots.awaitCleaned(WAIT));
        assertEquals(0, slots.acquire(WAIT));
    }

    @Test
    void anAcquireInterruptedWhileWaitingStillHoldsTheBlock() throws Exception {
        ProducerSlots slots = new ProducerSlots(2);
        ProducerSlots.Cleaning cleaning = slots.cleaning(slots.acquire(WAIT));
        Thread.currentThread().interrupt();
        try {
            assertEquals(0, slots.acquire(WAIT));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt status is kept");
        } finally {
            Thread.interrupted();
        }
        cleaning.done();
        assertEquals(2, slots.acquire(WAIT), "the interrupted acquire's block stays taken until released");
    }

    @Test
    void aCleanerOutlivingTheTakeoverKeepsItsBlockAndTheNextCleaningOfIt() throws Exception {
        ProducerSlots slots = new ProducerSlots(2);
        ProducerSlots.Cleaning first = slots.cleaning(slots.acquire(WAIT));
        // The new owner stops waiting for the first cleaner, then hangs in turn.
        assertEquals(0, slots.acquire(Duration.ofMillis(10)));
        ProducerSlots.Cleaning second = slots.cleaning(0);
        first.done();
        assertFalse(slots.awaitCleaned(Duration.ofMillis(10)), "the second cleaning was forgotten");
        CompletableFuture<Integer> taken = CompletableFuture.supplyAsync(() -> slots.acquire(WAIT));
        await("the second cleaning was taken over")
                .atMost(Duration.ofSeconds(30))
                .until(second::takenOver);
        second.done();
        assertEquals(0, taken.get(30, TimeUnit.SECONDS));

        // An owner that gives the block back while the cleaner it took it from still runs: the
        // block stays the cleaner's until it ends.
        ProducerSlots.Cleaning third = slots.cleaning(0);
        assertEquals(0, slots.acquire(Duration.ofMillis(10)));
        slots.release(0);
        assertEquals(2, slots.acquire(WAIT), "a block given back while its old cleaner runs was taken");
        assertFalse(slots.awaitCleaned(Duration.ofMillis(10)), "a cleaner taken over was not waited for");
        third.done();
        assertTrue(slots.awaitCleaned(WAIT));
        assertEquals(0, slots.acquire(WAIT));
    }

    @Test
    void theFirstExecutionGetsTheFirstBlocksProducersInitialisedAheadAndTheSecondBlocksStartThen() {
        ProducerSlots slots = new ProducerSlots(2);
        Map<Integer, CompletableFuture<Producers>> inits = new java.util.concurrent.ConcurrentHashMap<>();
        slots.initialiseAhead(firstSlot -> inits.computeIfAbsent(firstSlot, s -> new CompletableFuture<>()));
        assertEquals(java.util.Set.of(0), inits.keySet(), "only the first block starts with the instance");
        int first = slots.acquire(WAIT);
        int second = slots.acquire(WAIT);
        assertNull(slots.takeAhead(second), "the second block's execution got producers before the first");
        slots.release(second);

        Producers ahead = new Producers();
        CompletableFuture<Object> taken = CompletableFuture.supplyAsync(() -> slots.takeAhead(first));
        await("the take waits for the initialisation")
                .atMost(Duration.ofSeconds(30))
                .until(() -> inits.get(0).getNumberOfDependents() > 0);
        assertFalse(taken.isDone());
        inits.get(0).complete(ahead);
        assertSame(ahead, taken.join());
        assertEquals(java.util.Set.of(0, 2), inits.keySet(), "taking the first block's did not start the second's");

        Producers beside = new Producers();
        inits.get(2).complete(beside);
        assertEquals(2, slots.acquire(WAIT));
        assertSame(beside, slots.takeAhead(2), "the execution beside the first did not get the second block's");
        slots.release(first);
        assertEquals(0, slots.acquire(WAIT));
        assertNull(slots.takeAhead(0), "the producers initialised ahead were handed out twice");
        assertEquals(java.util.Set.of(0, 2), inits.keySet(), "more blocks than two were initialised ahead");
        slots.closeAhead(WAIT);
        assertFalse(ahead.closed || beside.closed, "producers in use were closed");
    }

    @Test
    void producersKeptByAStoppedExecutionGoToTheNextOnItsBlockOnceAndAreClosedWithTheInstanceOtherwise() {
        ProducerSlots slots = new ProducerSlots(2);
        java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
        slots.initialiseAhead(firstSlot -> {
            started.incrementAndGet();
            return CompletableFuture.completedFuture(new Producers());
        });
        int first = slots.acquire(WAIT);
        EpochProducers used = slots.takeAhead(first);
        assertEquals(2, started.get(), "the first and the second block");

        slots.keep(first, used);
        slots.release(first);
        assertEquals(0, slots.acquire(WAIT));
        assertSame(used, slots.takeAhead(0), "the next execution on the block did not get the kept producers");
        assertNull(slots.takeAhead(0), "kept producers were handed out twice");
        assertEquals(2, started.get(), "taking the first block's producers again started another block's");

        Producers spare = new Producers();
        slots.keep(0, used);
        slots.keep(0, spare);
        assertTrue(spare.closed, "producers kept for a block that had some waiting were left open");
        Producers second = (Producers) slots.takeAhead(2);
        slots.closeAhead(WAIT);
        assertTrue(((Producers) used).closed, "kept producers nobody took were left open at the close");
        assertFalse(second.closed, "producers in use were closed");
        Producers afterClose = new Producers();
        slots.keep(2, afterClose);
        assertTrue(afterClose.closed, "producers kept after the close were left open");
    }

    @Test
    void theSecondBlocksProducersAreNotInitialisedAheadWhileAnExecutionHoldsIt() {
        ProducerSlots slots = new ProducerSlots(2);
        Map<Integer, CompletableFuture<Producers>> inits = new java.util.concurrent.ConcurrentHashMap<>();
        slots.initialiseAhead(
                firstSlot -> inits.computeIfAbsent(firstSlot, s -> CompletableFuture.completedFuture(new Producers())));
        int first = slots.acquire(WAIT);
        slots.acquire(WAIT); // the second block, held by an execution with producers of its own
        assertNotNull(slots.takeAhead(first));
        assertEquals(java.util.Set.of(0), inits.keySet(), "the held second block's ids were initialised ahead");
    }

    @Test
    void producersKeptForABlockACleanerStillWorksOnAreClosed() {
        ProducerSlots slots = new ProducerSlots(2);
        int first = slots.acquire(WAIT);
        ProducerSlots.Cleaning cleaning = slots.cleaning(first); // the stopped execution's, stuck
        assertEquals(first, slots.acquire(Duration.ofMillis(10)), "the next execution did not take the block over");
        Producers kept = new Producers();
        slots.keep(first, kept); // the execution that took over stops cleanly while the cleaner runs
        assertTrue(kept.closed, "producers a late cleaner could fence were kept");
        slots.release(first);
        cleaning.done();
        assertEquals(first, slots.acquire(WAIT));
        assertNull(slots.takeAhead(first), "closed producers were handed out");
    }

    @Test
    void producersInitialisedAheadThatNobodyTookAreClosedWithTheInstanceAndAFailedInitialisationGivesNone() {
        ProducerSlots slots = new ProducerSlots(2);
        Producers ahead = new Producers();
        CompletableFuture<Producers> init = new CompletableFuture<>();
        slots.initialiseAhead(firstSlot -> init);
        slots.closeAhead(Duration.ofMillis(10));
        assertFalse(ahead.closed);
        init.complete(ahead);
        assertTrue(ahead.closed, "producers initialised after the close were left open");
        assertNull(slots.takeAhead(slots.acquire(WAIT)), "closed producers were handed out");

        // A close during the initialisation waits for it and closes what it made at once; the second
        // block's producers, started when the first's were taken and never taken, are closed too.
        ProducerSlots closing = new ProducerSlots(2);
        Producers first = new Producers();
        Producers late = new Producers();
        CompletableFuture<Producers> lateInit = new CompletableFuture<>();
        closing.initialiseAhead(firstSlot -> firstSlot == 0 ? CompletableFuture.completedFuture(first) : lateInit);
        assertSame(first, closing.takeAhead(closing.acquire(WAIT)));
        CompletableFuture.runAsync(() -> {
            await().atMost(Duration.ofSeconds(30)).until(() -> lateInit.getNumberOfDependents() > 0);
            lateInit.complete(late);
        });
        closing.closeAhead(WAIT);
        assertTrue(late.closed, "the close did not wait for the initialisation under way");
        assertFalse(first.closed, "producers in use were closed");

        ProducerSlots failing = new ProducerSlots(2);
        failing.initialiseAhead(firstSlot -> CompletableFuture.failedFuture(new IllegalStateException("broker gone")));
        assertNull(failing.takeAhead(failing.acquire(WAIT)), "a failed initialisation was handed out");
    }

    /** Stands in for an execution's producers: only whether they were closed matters here. */
    private static final class Producers implements EpochProducers {
        volatile boolean closed;

        @Override
        public boolean canOpenEpoch() {
            return true;
        }

        @Override
        public void openEpoch(long epoch) {}

        @Override
        public EpochOutput output(long epoch) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void commit(
                long checkpointId, List<TaskCheckpoint> tasks, Map<InputPartition, Long> positions, Object token) {}

        @Override
        public boolean abortOpen() {
            return true;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
