package io.weir.kafka;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Keeps this member's transactional commits and its rejoins apart. A commit names the group's
 * generation; the broker moves to the next generation once every member has rejoined, and until
 * this member's rebalance callbacks run, its consumer knows only the old one: a commit whose offsets
 * reach the broker in that time fails ({@code ILLEGAL_GENERATION}) and its run fails over, although
 * the rebalance may leave its partitions where they are (a member joining or leaving elsewhere).
 * So a member about to ask to rejoin (its assignor is asked for the subscription's user data just
 * before the request) first lets the commits in flight finish, and commits that start from then
 * until its next rebalance callback (the consumer holds the new generation by then) wait for it and
 * take the new generation. Each wait lasts at most {@link #LONGEST}; after it, the other side goes
 * on (commits then take their chance until the next rejoin: a failed one fails its run over, as
 * without the hold). Kafka
 * Streams defers its commits during a rebalance for the same reason.
 */
public final class RebalanceHold {
    /** A commit takes milliseconds and a healthy group's rebalance a second or two: no wait is longer. */
    static final Duration LONGEST = Duration.ofSeconds(5);

    private boolean rejoining;
    private int committing;

    /** The poll thread, before asking to rejoin: waits for the commits in flight, holds new ones. */
    public synchronized void rejoining() {
        rejoining = true;
        try {
            awaitWhile(() -> committing > 0, LONGEST);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Commits go on: a rebalance callback runs (the consumer holds the new generation), the poll
     * thread is about to wait for a commit, or the consumer closes.
     */
    synchronized void rebalanced() {
        rejoining = false;
        notifyAll();
    }

    /**
     * A commit starts: waits while this member rejoins, at most {@code longest}, and counts it in
     * flight until {@link #commitEnded}. Returns whether the rejoin (if any) ended in time.
     */
    synchronized boolean commitStarts(Duration longest) throws InterruptedException {
        boolean ended = awaitWhile(() -> rejoining, longest);
        if (!ended) {
            // A long rebalance (a member that neither rejoins nor has timed out yet): its old
            // generation stays valid until every member rejoined, so the commits of this rejoin go
            // on from now instead of each waiting in turn.
            rejoining = false;
            notifyAll();
        }
        committing++;
        return ended;
    }

    synchronized void commitEnded() {
        committing--;
        notifyAll();
    }

    private boolean awaitWhile(java.util.function.BooleanSupplier condition, Duration longest)
            throws InterruptedException {
        long deadline = System.nanoTime() + longest.toNanos();
        while (condition.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }
}
