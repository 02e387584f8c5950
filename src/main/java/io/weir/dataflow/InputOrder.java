package io.weir.dataflow;

import io.weir.checkpoint.BarrierDecision;
import io.weir.checkpoint.BarrierHandler;
import io.weir.element.Barrier;
import io.weir.element.Element;
import io.weir.element.Record;
import java.util.List;

/**
 * Which of a task's input channels its next element comes from, under the barrier protocol over
 * them ({@link BarrierHandler}): the unblocked channel whose head has the lowest timestamp, so
 * multi-input operators see their inputs in time order; while an input is empty but has records on
 * the broker ({@link Channel#behind()}), no record is taken from the others.
 *
 * <p>A lookup's table is an unaligned input ({@link #table}): it goes on past its barrier while the
 * stream aligns, so the stream never runs ahead of table records earlier in time held behind it
 * (applying one twice, after a restore, is as applying it once); it goes first on a timestamp tie,
 * so a stream record sees the table as of its own millisecond.
 *
 * <p>Threading: its task's worker thread only.
 */
final class InputOrder {
    /**
     * Records an unaligned input may go past the cut of the checkpoint aligning; then it waits like
     * an aligned one. Enough for the stream's records before their barrier to meet the table versions
     * of their time (the source hands over a channel's capacity at most), and a bound on how long a
     * table backlog older than the stream can hold an alignment up.
     */
    static final int MAX_PAST_CUT = 100_000;

    private final Channel[] channels;
    private final BarrierHandler barriers;
    /** Per channel: whether it reads a lookup's table. */
    private final boolean[] table;
    /** Records taken past the cut of the checkpoint aligning (see {@link #MAX_PAST_CUT}). */
    private int pastCut;

    /**
     * @param align exactly-once: barriers align (else they are only tracked)
     * @param firstEpoch the first checkpoint whose barriers count; lower ids are stale
     */
    InputOrder(List<Channel> channels, boolean align, long firstEpoch) {
        this.channels = channels.toArray(Channel[]::new);
        this.barriers = new BarrierHandler(channels.size(), align).startingAfter(firstEpoch - 1);
        this.table = new boolean[channels.size()];
    }

    /** Channel {@code index} reads a lookup's table: unaligned, and first on a tie. */
    void table(int index) {
        table[index] = true;
        barriers.unaligned(index);
    }

    /** The channel to take the next element from, or null when none may give one now. */
    Channel next() {
        if (channels.length == 1) {
            Channel only = channels[0];
            return only.isEmpty() || barriers.isBlocked(0) ? null : only;
        }
        Channel best = null;
        long bestTime = Long.MAX_VALUE;
        boolean waiting = false;
        for (Channel c : channels) {
            if (barriers.isBlocked(c.index())) {
                continue;
            }
            Element head = c.peek();
            if (barriers.passed(c.index()) && (head instanceof Barrier || pastCut >= MAX_PAST_CUT)) {
                // An unaligned input's next barrier waits for the one aligning, and so does the
                // input once it went far past the cut: a table backlog older than the stream would
                // otherwise keep the checkpoint from aligning until all of it was applied.
                continue;
            }
            if (head == null) {
                // An input with records still on the broker may hold a lower timestamp: wait for it.
                waiting |= c.behind();
                continue;
            }
            // Barriers and watermarks go first: they carry no data and may unblock others.
            long t = head instanceof Record r ? r.timestamp() : Long.MIN_VALUE;
            if (best == null || t < bestTime || (t == bestTime && table[c.index()])) {
                best = c;
                bestTime = t;
            }
        }
        return waiting && bestTime != Long.MIN_VALUE ? null : best;
    }

    /** Takes the head of {@code channel}, which {@link #next} gave. */
    Element take(Channel channel) {
        Element e = channel.poll();
        if (e instanceof Record && afterCut(channel)) {
            pastCut++;
        }
        return e;
    }

    /**
     * Whether a record of {@code channel} comes after the cut of the checkpoint aligning (an
     * unaligned input past its barrier): the checkpoint's positions put it after, so its dead letter
     * belongs to the next epoch.
     */
    boolean afterCut(Channel channel) {
        return barriers.passed(channel.index());
    }

    /** Barrier {@code checkpointId} taken from {@code channel}: what the task does next. */
    BarrierDecision onBarrier(Channel channel, long checkpointId) {
        BarrierDecision decision = barriers.onBarrier(channel.index(), checkpointId);
        if (decision instanceof BarrierDecision.Snapshot || decision instanceof BarrierDecision.Overtaken) {
            pastCut = 0;
        }
        return decision;
    }
}
