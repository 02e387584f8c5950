package io.weir.checkpoint;

import java.util.BitSet;
import java.util.TreeMap;

/**
 * The barrier protocol of one task over its input channels, as a small state machine with no I/O.
 *
 * <p><b>Align</b> (exactly-once): the first barrier n blocks its channel; each further channel that
 * delivers barrier n is blocked too; when the last one does, the decision is {@code Snapshot(n)}
 * and every channel unblocks. No record behind barrier n of any channel is processed before the
 * snapshot, so snapshot n holds exactly the records before the cut. <b>Track</b> (at-least-once):
 * nothing blocks; the snapshot is taken when barrier n arrived on the last channel, so it may
 * include records after the cut of the channels that were faster — after a restore those are
 * processed again.
 *
 * <p>Threading: owned by the task's worker thread.
 */
public final class BarrierHandler {
    private final int channels;
    private final boolean align;
    private final BitSet blocked;
    /** Track mode: checkpoint id → channels that delivered its barrier. */
    private final TreeMap<Long, BitSet> tracked = new TreeMap<>();
    /** Align mode: the checkpoint currently aligning, or 0. */
    private long aligning;
    /** Every checkpoint id at or below this one is finished here (snapshotted or aborted). */
    private long finishedUpTo;

    public BarrierHandler(int channels, boolean align) {
        if (channels < 1) {
            throw new IllegalArgumentException("a task needs at least one channel, had " + channels);
        }
        this.channels = channels;
        this.align = align;
        this.blocked = new BitSet(channels);
    }

    /** Starts after a restored checkpoint: barriers up to {@code checkpointId} are stale. */
    public BarrierHandler startingAfter(long checkpointId) {
        finishedUpTo = checkpointId;
        return this;
    }

    public boolean isBlocked(int channel) {
        return blocked.get(channel);
    }

    /** The checkpoint being aligned, or 0 when none. */
    public long aligning() {
        return aligning;
    }

    public BarrierDecision onBarrier(int channel, long checkpointId) {
        if (channel < 0 || channel >= channels) {
            throw new IllegalArgumentException("channel " + channel + " outside 0.." + (channels - 1));
        }
        if (checkpointId <= finishedUpTo) {
            return new BarrierDecision.Stale(checkpointId);
        }
        return align ? alignBarrier(channel, checkpointId) : trackBarrier(channel, checkpointId);
    }

    /**
     * Gives up checkpoint {@code checkpointId} here (coordinator abort or timeout): unblocks the
     * channels and forgets its progress; its later barriers are stale. Returns whether it was
     * in progress.
     */
    public boolean abort(long checkpointId) {
        boolean inProgress = align ? aligning == checkpointId : tracked.containsKey(checkpointId);
        // Every id up to checkpointId is finished below, so an older alignment can never complete.
        if (align && aligning != 0 && aligning <= checkpointId) {
            blocked.clear();
            aligning = 0;
        }
        tracked.headMap(checkpointId, true).clear();
        finishedUpTo = Math.max(finishedUpTo, checkpointId);
        return inProgress;
    }

    private BarrierDecision alignBarrier(int channel, long id) {
        if (aligning != 0 && id > aligning) {
            long overtaken = aligning;
            abort(overtaken);
            return new BarrierDecision.Overtaken(overtaken, alignBarrier(channel, id));
        }
        if (aligning != 0 && id < aligning) {
            // The channels blocked for the newer checkpoint passed its barrier without this one, and a
            // channel delivers barriers in order: checkpoint id can never align here.
            return new BarrierDecision.Stale(id);
        }
        if (aligning == 0) {
            aligning = id;
        } else if (blocked.get(channel)) {
            throw new IllegalStateException(
                    "barrier " + id + " arrived twice on blocked channel " + channel + " while aligning");
        }
        blocked.set(channel);
        if (blocked.cardinality() < channels) {
            return new BarrierDecision.Block(channel);
        }
        blocked.clear();
        aligning = 0;
        finishedUpTo = id;
        return new BarrierDecision.Snapshot(id);
    }

    private BarrierDecision trackBarrier(int channel, long id) {
        BitSet seen = tracked.computeIfAbsent(id, k -> new BitSet(channels));
        if (seen.get(channel)) {
            throw new IllegalStateException("barrier " + id + " arrived twice on channel " + channel);
        }
        seen.set(channel);
        if (seen.cardinality() < channels) {
            return new BarrierDecision.Track(id);
        }
        // A channel delivers barriers in order, so every older tracked checkpoint that is still
        // incomplete lost a barrier (its channel was reset): it can never complete, drop it.
        tracked.headMap(id, true).clear();
        finishedUpTo = id;
        return new BarrierDecision.Snapshot(id);
    }
}
