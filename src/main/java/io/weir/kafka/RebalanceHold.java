package io.weir.kafka;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this member's transactional commits and its rejoins apart. A commit names the group's
 * generation; the broker moves to the next generation once every member has rejoined, and until
 * this member's rebalance callbacks run, its consumer knows only the old one: a commit whose offsets
 * reach the broker in that time fails ({@code ILLEGAL_GENERATION}) and its run fails over, although
 * the rebalance may leave its partitions where they are (a member joining or leaving elsewhere).
 * So a member about to ask to rejoin (its assignor is asked for the subscription's user data just
 * before the request) first lets the commits in flight finish, at most {@link #REJOIN_WAIT} (the
 * consumer holds its coordinator's lock meanwhile), and commits that start from then until its next
 * rebalance callback (the consumer holds the new generation by then) wait for it, at most {@link
 * #longest()} in all, and take the new generation. After either limit the other side goes on: a
 * commit that then fails fails its run over, as without the hold. Kafka Streams defers its commits
 * during a rebalance for the same reason.
 *
 * <p>It also holds the group metadata the last rebalance callback published, which commits take.
 *
 * <p>Threading: {@link #rejoining} and {@link #rebalanced} on the source loop's thread, commits on
 * the committer thread.
 */
public final class RebalanceHold {
    private static final Logger LOG = LoggerFactory.getLogger(RebalanceHold.class);

    /**
     * How long a rejoin holds the commits that start after it, at the least: a healthy group's
     * rebalance takes well under a second with heartbeats every 200 ms (the other members learn of
     * it from their next heartbeat); one that waits for a member that neither rejoins nor has timed
     * out yet (a paused process) lasts up to the session timeout, and every member's output waits
     * this long, plus a checkpoint interval, before its commits go on with the old generation, still
     * valid then. With a longer heartbeat interval the hold is that interval plus a second.
     */
    static final Duration LONGEST = Duration.ofSeconds(2);

    private final Duration longest;

    /** A hold for heartbeats every 200 ms: {@link #LONGEST}. */
    public RebalanceHold() {
        this(Duration.ofMillis(KafkaClients.SOURCE_HEARTBEAT_INTERVAL_MS));
    }

    /** A hold for a consumer that heartbeats every {@code heartbeatInterval}. */
    public RebalanceHold(Duration heartbeatInterval) {
        Duration afterHeartbeat = heartbeatInterval.plusSeconds(1);
        this.longest = afterHeartbeat.compareTo(LONGEST) > 0 ? afterHeartbeat : LONGEST;
    }

    /** How long a rejoin holds the commits that start after it. */
    Duration longest() {
        return longest;
    }
    /** How long a rejoin waits for the commits in flight, which take milliseconds. */
    static final Duration REJOIN_WAIT = Duration.ofSeconds(1);

    private boolean rejoining;
    private int committing;
    /** The group metadata of the current generation (null before the first callback). */
    private ConsumerGroupMetadata generation;

    /** The poll thread, before asking to rejoin: waits for the commits in flight, holds new ones. */
    public synchronized void rejoining() {
        rejoining = true;
        try {
            awaitWhile(() -> committing > 0, REJOIN_WAIT);
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
     * A rebalance callback runs: publishes the consumer's group metadata (it updates its generation
     * before it calls the callbacks) and lets commits go on. A run whose partitions this rebalance
     * revokes is ended by the callback after this, and its commit in flight (which the end waits
     * for) may commit with the new generation: the partitions go to their next owner only in the
     * following rebalance, after this member gave them up.
     */
    synchronized void rebalanced(ConsumerGroupMetadata current) {
        generation = current;
        rebalanced();
    }

    /**
     * Runs a commit with the group metadata current when it starts: while this member rejoins the
     * group, it first waits for the rebalance's end (at most {@link #longest()}; then it takes its
     * chance with the metadata there is), and a rejoin waits for it.
     */
    void commit(java.util.function.Consumer<ConsumerGroupMetadata> commit) {
        ConsumerGroupMetadata current;
        try {
            if (!commitStarts(longest)) {
                LOG.debug(
                        "a rejoin held commits for {} ms; committing with the generation at hand", longest.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.apache.kafka.common.errors.InterruptException(e);
        }
        synchronized (this) {
            current = generation;
        }
        try {
            commit.accept(current);
        } finally {
            commitEnded();
        }
    }

    /**
     * A commit starts: waits while this member rejoins, at most {@code longest}, and counts it in
     * flight until {@link #commitEnded}. Returns false when the wait ran out; the commits of the
     * same rejoin then go on at once (a long rebalance, waiting for a member that neither rejoins
     * nor has timed out, keeps the old generation valid meanwhile).
     */
    synchronized boolean commitStarts(Duration longest) throws InterruptedException {
        boolean ended = awaitWhile(() -> rejoining, longest);
        if (!ended) {
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

    private boolean awaitWhile(BooleanSupplier condition, Duration longest) throws InterruptedException {
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
