package io.weir.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.BarrierDecision.Block;
import io.weir.checkpoint.BarrierDecision.Overtaken;
import io.weir.checkpoint.BarrierDecision.Snapshot;
import io.weir.checkpoint.BarrierDecision.Stale;
import org.junit.jupiter.api.Test;

class BarrierHandlerAlignTest {

    private static void assertNothingBlocked(BarrierHandler handler, int channels) {
        for (int c = 0; c < channels; c++) {
            assertFalse(handler.isBlocked(c), "channel " + c + " is blocked");
        }
        assertEquals(0, handler.aligning());
    }

    @Test
    void aTaskNeedsAtLeastOneChannel() {
        assertThrows(IllegalArgumentException.class, () -> new BarrierHandler(0, true));
    }

    @Test
    void aBarrierOnAnUnknownChannelIsRejected() {
        BarrierHandler handler = new BarrierHandler(2, true);
        assertThrows(IllegalArgumentException.class, () -> handler.onBarrier(2, 1));
        assertThrows(IllegalArgumentException.class, () -> handler.onBarrier(-1, 1));
    }

    @Test
    void barrierOnEveryChannelCompletesAlignment() {
        BarrierHandler handler = new BarrierHandler(3, true);

        assertEquals(new Block(0), handler.onBarrier(0, 1));
        assertEquals(new Block(2), handler.onBarrier(2, 1));
        assertEquals(new Snapshot(1), handler.onBarrier(1, 1));

        assertNothingBlocked(handler, 3);
    }

    @Test
    void anUnalignedChannelGoesOnPastItsBarrierWhichStillCountsForTheSnapshot() {
        BarrierHandler handler = new BarrierHandler(2, true).unaligned(1);

        assertEquals(new Block(1), handler.onBarrier(1, 1));
        assertFalse(handler.isBlocked(1), "the unaligned channel goes on");
        assertTrue(handler.passed(1), "its records now come after the cut, its next barrier waits");
        assertFalse(handler.passed(0));
        assertEquals(new Snapshot(1), handler.onBarrier(0, 1), "its barrier counted: the last one completes");
        assertFalse(handler.passed(1), "after the snapshot its next barrier may come");
        assertNothingBlocked(handler, 2);

        assertEquals(new Block(0), handler.onBarrier(0, 2));
        assertTrue(handler.isBlocked(0), "an aligned channel is blocked as before");
        assertEquals(new Snapshot(2), handler.onBarrier(1, 2));
    }

    @Test
    void aChannelStaysBlockedUntilTheBarrierArrivedOnAllChannels() {
        BarrierHandler handler = new BarrierHandler(3, true);

        handler.onBarrier(1, 1);
        assertTrue(handler.isBlocked(1));
        assertFalse(handler.isBlocked(0));
        assertFalse(handler.isBlocked(2));
        assertEquals(1, handler.aligning());

        handler.onBarrier(0, 1);
        assertTrue(handler.isBlocked(0));
        assertTrue(handler.isBlocked(1));
        assertFalse(handler.isBlocked(2));
    }

    @Test
    void aSingleChannelCompletesAtOnce() {
        BarrierHandler handler = new BarrierHandler(1, true);

        assertEquals(new Snapshot(1), handler.onBarrier(0, 1));
        assertEquals(new Snapshot(2), handler.onBarrier(0, 2));
        assertNothingBlocked(handler, 1);
    }

    @Test
    void barriersUpToTheRestoredCheckpointAreStale() {
        BarrierHandler handler = new BarrierHandler(2, true).startingAfter(7);

        assertEquals(new Stale(6), handler.onBarrier(0, 6));
        assertEquals(new Stale(7), handler.onBarrier(1, 7));
        assertNothingBlocked(handler, 2);
        assertEquals(new Block(0), handler.onBarrier(0, 8));
    }

    @Test
    void aBarrierOfACompletedCheckpointIsStale() {
        BarrierHandler handler = new BarrierHandler(1, true);
        handler.onBarrier(0, 4);

        assertEquals(new Stale(4), handler.onBarrier(0, 4));
        assertEquals(new Stale(3), handler.onBarrier(0, 3));
    }

    @Test
    void aNewerBarrierOvertakingAnUnfinishedAlignmentAbortsItAndUnblocks() {
        BarrierHandler handler = new BarrierHandler(3, true);
        handler.onBarrier(0, 1);

        // Channel 1 lost barrier 1 (it delivers barrier 2 first): checkpoint 1 cannot complete.
        BarrierDecision decision = handler.onBarrier(1, 2);

        assertEquals(new Overtaken(1, new Block(1)), decision);
        assertFalse(handler.isBlocked(0), "channel 0 was blocked for the overtaken checkpoint");
        assertTrue(handler.isBlocked(1));
        assertEquals(2, handler.aligning());
        assertEquals(new Stale(1), handler.onBarrier(2, 1));
    }

    @Test
    void theOvertakingCheckpointAlignsNormally() {
        BarrierHandler handler = new BarrierHandler(2, true);
        handler.onBarrier(0, 1);
        handler.onBarrier(1, 2); // overtakes 1, blocks channel 1

        assertEquals(new Snapshot(2), handler.onBarrier(0, 2));
        assertNothingBlocked(handler, 2);
    }

    @Test
    void anOlderBarrierArrivingWhileANewerOneAlignsIsStale() {
        BarrierHandler handler = new BarrierHandler(2, true);
        // Channel 0 never delivered barrier 2, so checkpoint 2 can never align; its barrier on
        // channel 1 must not count towards checkpoint 3.
        assertEquals(new Block(0), handler.onBarrier(0, 3));

        assertEquals(new Stale(2), handler.onBarrier(1, 2));

        assertFalse(handler.isBlocked(1), "channel 1 was blocked by a barrier of another checkpoint");
        assertEquals(3, handler.aligning());
        assertEquals(new Snapshot(3), handler.onBarrier(1, 3));
    }

    @Test
    void abortLeavesNothingBehind() {
        BarrierHandler handler = new BarrierHandler(3, true);
        handler.onBarrier(0, 5);
        handler.onBarrier(2, 5);

        assertTrue(handler.abort(5));

        assertNothingBlocked(handler, 3);
        assertEquals(new Stale(5), handler.onBarrier(1, 5));
        assertEquals(new Stale(5), handler.onBarrier(0, 5));
        assertNothingBlocked(handler, 3);
        assertEquals(new Block(1), handler.onBarrier(1, 6));
    }

    @Test
    void abortOfACheckpointNotStartedHereMakesItsBarriersStale() {
        BarrierHandler handler = new BarrierHandler(2, true);

        assertFalse(handler.abort(2));

        assertEquals(new Stale(1), handler.onBarrier(0, 1));
        assertEquals(new Stale(2), handler.onBarrier(0, 2));
        assertNothingBlocked(handler, 2);
    }

    @Test
    void abortOfANewerCheckpointAlsoGivesUpTheOneAligning() {
        BarrierHandler handler = new BarrierHandler(2, true);
        handler.onBarrier(0, 3);

        handler.abort(4);

        // Every id up to 4 is finished here, so checkpoint 3 can never align: nothing may stay
        // blocked for it.
        assertNothingBlocked(handler, 2);
        assertEquals(new Stale(3), handler.onBarrier(1, 3));
        assertEquals(new Block(0), handler.onBarrier(0, 5));
    }

    @Test
    void abortOfAnOlderCheckpointKeepsTheNewerAlignment() {
        BarrierHandler handler = new BarrierHandler(2, true);
        handler.onBarrier(0, 3);

        assertFalse(handler.abort(2));

        assertTrue(handler.isBlocked(0));
        assertEquals(new Snapshot(3), handler.onBarrier(1, 3));
    }

    @Test
    void aDuplicateBarrierOnABlockedChannelThrows() {
        BarrierHandler handler = new BarrierHandler(2, true);
        handler.onBarrier(0, 1);

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> handler.onBarrier(0, 1));
        assertTrue(e.getMessage().contains("channel 0"), e.getMessage());
    }

    @Test
    void consecutiveCheckpointsAlignOneAfterTheOther() {
        BarrierHandler handler = new BarrierHandler(2, true);
        for (long id = 1; id <= 5; id++) {
            assertEquals(new Block(1), handler.onBarrier(1, id));
            assertEquals(new Snapshot(id), handler.onBarrier(0, id));
            assertNothingBlocked(handler, 2);
        }
    }
}
