package io.weir.checkpoint;

import java.util.BitSet;
import java.util.TreeMap;

/**
 * The barrier protocol of one task over its input channels, as a small state machine with no I/O.
 *
 * <p><b>Align</b> (exactly-once): the first barrier n blocks its channel; each further channel that
 * delivers barrier n is blocked too; when the last one does, the decision is {@code Snapshot(n)}
 * and every channel unblocks. No record behind barrier n of any (aligned) channel is processed
 * before the snapshot, so snapshot n holds exactly the records before the cut. <b>Track</b> (at-least-once):
 * nothing blocks; the snapshot is taken when barrier n arrived on the last channel, so it may
 * include records after the cut of the channels that were faster — after a restore those are
 * processed again.
 *
 * <p>An <b>unaligned</b> channel (a table a lookup reads: applying a table record twice leaves the
 * table as applying it once) is not blocked by its barrier n while the others align: its records
 * after the barrier go on in step with theirs, and are read again after a restore of n. Its next
 * barrier waits until n is snapshotted ({@link #passed}).
 *
 * <p>Threading: owned by the task's worker thread.
 */
public final class BarrierHandler {
    private final int channels;
    private final boolean align;
    private final BitSet blocked;
    /** Align mode: channels that delivered the barrier being aligned (the blocked ones and unaligned ones). */
    private final BitSet arrived;
    /** Channels whose records go on past the barrier being aligned. */
    private final BitSet unaligned;
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
        this.arrived = new BitSet(channels);
        this.unaligned = new BitSet(channels);
    }

    /** Makes {@code channel} unaligned: its barrier never blocks it (see the class comment). */
    public BarrierHandler unaligned(int channel) {
        unaligned.set(channel);
        return this;
    }

    /**
     * Whether {@code channel} delivered the barrier being aligned: a blocked channel, or an unaligned
     * one whose records now come after the cut and whose next barrier must wait.
     */
    public boolean passed(int channel) {
        return aligning != 0 && arrived.get(channel);
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
            arrived.clear();
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
        } else if (arrived.get(channel)) {
            throw new IllegalStateException(
                    "barrier " + id + " arrived twice on channel " + channel + " while aligning");
        }
        arrived.set(channel);
        if (!unaligned.get(channel)) {
            blocked.set(channel);
        }
        if (arrived.cardinality() < channels) {
            return new BarrierDecision.Block(channel);
        }
        blocked.clear();
        arrived.clear();
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
