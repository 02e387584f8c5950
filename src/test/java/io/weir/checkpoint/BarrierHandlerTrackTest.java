package io.weir.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.BarrierDecision.Snapshot;
import io.weir.checkpoint.BarrierDecision.Stale;
import io.weir.checkpoint.BarrierDecision.Track;
import org.junit.jupiter.api.Test;

class BarrierHandlerTrackTest {
    private static void assertNothingBlocked(BarrierHandler handler, int channels) {
        for (int c = 0; c < channels; c++) {
            assertFalse(handler.isBlocked(c), "channel " + c + " is blocked");
        }
        assertEquals(0, handler.aligning());
    }

    @Test
    void trackingNeverBlocks() {
        BarrierHandler handler = new BarrierHandler(3, false);

        assertEquals(new Track(1), handler.onBarrier(0, 1));
        assertEquals(new Track(2), handler.onBarrier(0, 2));
        assertEquals(new Track(1), handler.onBarrier(1, 1));

        assertNothingBlocked(handler, 3);
    }

    @Test
    void theSnapshotIsTakenWhenTheLastChannelDeliveredTheBarrier() {
        BarrierHandler handler = new BarrierHandler(3, false);
        handler.onBarrier(2, 1);
        handler.onBarrier(0, 1);

        assertEquals(new Snapshot(1), handler.onBarrier(1, 1));
        assertEquals(new Stale(1), handler.onBarrier(1, 1));
    }

    @Test
    void severalCheckpointsAreTrackedAtOnce() {
        BarrierHandler handler = new BarrierHandler(2, false);
        handler.onBarrier(0, 1);
        handler.onBarrier(0, 2);
        handler.onBarrier(0, 3);

        assertEquals(new Snapshot(1), handler.onBarrier(1, 1));
        assertEquals(new Snapshot(2), handler.onBarrier(1, 2));
        assertEquals(new Snapshot(3), handler.onBarrier(1, 3));
    }

    @Test
    void aSingleChannelCompletesAtOnce() {
        assertEquals(new Snapshot(1), new BarrierHandler(1, false).onBarrier(0, 1));
    }

    @Test
    void aCompletedNewerCheckpointDropsAnOlderIncompleteOne() {
        BarrierHandler handler = new BarrierHandler(2, false);
        handler.onBarrier(0, 1);
        handler.onBarrier(0, 2);
        // Channel 1 lost barrier 1.
        assertEquals(new Snapshot(2), handler.onBarrier(1, 2));

        assertEquals(new Stale(1), handler.onBarrier(1, 1));
    }

    @Test
    void barriersUpToTheRestoredCheckpointAreStale() {
        BarrierHandler handler = new BarrierHandler(2, false).startingAfter(3);

        assertEquals(new Stale(3), handler.onBarrier(0, 3));
        assertEquals(new Track(4), handler.onBarrier(0, 4));
    }

    @Test
    void abortForgetsTheTrackedProgress() {
        BarrierHandler handler = new BarrierHandler(2, false);
        handler.onBarrier(0, 1);
        handler.onBarrier(0, 2);

        assertTrue(handler.abort(1));

        assertEquals(new Stale(1), handler.onBarrier(1, 1));
        assertEquals(new Snapshot(2), handler.onBarrier(1, 2));
    }

    @Test
    void aDuplicateBarrierOnAChannelThrows() {
        BarrierHandler handler = new BarrierHandler(2, false);
        handler.onBarrier(1, 1);

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> handler.onBarrier(1, 1));
        assertTrue(e.getMessage().contains("channel 1"), e.getMessage());
    }
}
