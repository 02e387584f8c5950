package io.weir.kafka;

import io.weir.dataflow.Channel;
import io.weir.element.Barrier;
import io.weir.element.Element;
import io.weir.element.Header;
import io.weir.element.InputPartition;
import io.weir.element.Record;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hand-off from the consumer to the tasks: every running partition has a feed that puts its
 * records into the partition's channel, keeps what does not fit in an overflow, pauses the
 * partition while the overflow is not empty and resumes it once the channel drained it. Barriers
 * go in behind the records read so far. Source loop thread only.
 */
final class Feeds {
    private static final Logger LOG = LoggerFactory.getLogger(Feeds.class);
    /**
     * Records a partition hands over before the first barrier after its execution started; the rest
     * of that poll waits behind the barrier. The first checkpoint after a restore then covers a few
     * hundred records per partition, which a cold JVM processes in tens of milliseconds, instead of
     * a whole poll — and until it commits nothing of the restarted job is visible.
     */
    static final int FIRST_EPOCH_RECORDS = 256;
    /** Wakeups a position lookup while a run starts outlasts before the run fails over. */
    static final int WAKEUPS_PER_LOOKUP = 3;

    /** One running partition. */
    static final class Feed {
        final InputPartition partition;
        final Channel channel;
        final Run run;
        final ArrayDeque<Element> overflow = new ArrayDeque<>();
        /** Records read beyond {@link #FIRST_EPOCH_RECORDS} before the first barrier; they go in behind it. */
        final ArrayDeque<Record> deferred = new ArrayDeque<>();
        /** Offset after the last deferred record. */
        long deferredNext;

        int firstEpochLeft = FIRST_EPOCH_RECORDS;
        long nextOffset;
        boolean paused;

        Feed(InputPartition partition, Channel channel, Run run, long nextOffset) {
            this.partition = partition;
            this.channel = channel;
            this.run = run;
            this.nextOffset = nextOffset;
        }
    }

    private final Consumer<byte[], byte[]> consumer;
    private final Map<TopicPartition, Feed> feeds = new HashMap<>();
    /** A channel drained while the overflow was looked at: poll without waiting. */
    private boolean refillAgain;

    Feeds(Consumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
    }

    /**
     * Starts handing {@code tp} over. Its lag is not known before its first fetch, so it counts as
     * behind until {@link #markBehind} knows better: a task reading it with other inputs must not
     * take their records first (they may be later in time than what this partition holds).
     */
    void add(TopicPartition tp, Feed feed) {
        feed.channel.behind(true);
        feeds.put(tp, feed);
    }

    /**
     * Starts handing over {@code run}'s partitions to the channels of its restored {@code
     * execution}: each is seeked to the execution's start position, else to its beginning ({@code
     * resetToEarliest}, or an input the execution reads from its beginning) or its end.
     */
    void start(Run run, SourceLoop.Execution execution, boolean resetToEarliest) {
        List<TopicPartition> fromStart = new ArrayList<>();
        List<TopicPartition> fromEnd = new ArrayList<>();
        for (TopicPartition tp : run.partitions) {
            InputPartition ip = Run.input(tp);
            if (execution.channels().get(ip) == null) {
                throw new IllegalStateException("the execution has no channel for " + ip);
            }
            Long position = execution.startPositions().get(ip);
            if (position != null) {
                consumer.seek(tp, position);
            } else {
                (resetToEarliest || execution.readsFromBeginning(ip) ? fromStart : fromEnd).add(tp);
            }
        }
        // An empty list would mean "all assigned partitions" to these two calls.
        if (!fromStart.isEmpty()) {
            consumer.seekToBeginning(fromStart);
        }
        if (!fromEnd.isEmpty()) {
            consumer.seekToEnd(fromEnd);
        }
        for (TopicPartition tp : run.partitions) {
            InputPartition ip = Run.input(tp);
            add(tp, new Feed(ip, execution.channels().get(ip), run, position(tp)));
        }
    }

    /**
     * The consumer's position of {@code tp}, which it may have to look up (after a seek to the
     * beginning or end). The lookup throws a wakeup meant for the poll — another thread queued a
     * command, which the loop runs after this one — and that alone must not fail the run over: it
     * asks again, at most {@value #WAKEUPS_PER_LOOKUP} times, so a lookup that cannot finish while
     * commands keep coming (a stop among them) fails the run over instead of holding the loop.
     */
    private long position(TopicPartition tp) {
        for (int wakeups = 0; ; wakeups++) {
            try {
                return consumer.position(tp);
            } catch (WakeupException e) {
                if (wakeups == WAKEUPS_PER_LOOKUP) {
                    throw e;
                }
                LOG.debug("position of {} interrupted by a wakeup for the poll; asking again", tp);
            }
        }
    }

    /** Forgets the feeds of {@code partitions}; what their overflows held is processed again later. */
    void removeAll(Collection<TopicPartition> partitions) {
        partitions.forEach(feeds::remove);
    }

    boolean isEmpty() {
        return feeds.isEmpty();
    }

    /** Hands {@code records} to their channels; records of a partition without a feed are dropped. */
    void distribute(ConsumerRecords<byte[], byte[]> records) {
        if (records.isEmpty()) {
            return;
        }
        Set<Run> asked = null; // runs asked for their first barrier in this call
        for (TopicPartition tp : records.partitions()) {
            Feed feed = feeds.get(tp);
            if (feed == null) {
                // Not running (restoring, failing over): paused, and seeked again when it starts.
                continue;
            }
            List<ConsumerRecord<byte[], byte[]>> rs = records.records(tp);
            boolean firstEpoch = !feed.run.injectedSinceStart;
            int handed = 0;
            for (ConsumerRecord<byte[], byte[]> r : rs) {
                Record record = new Record(r.key(), r.value(), r.timestamp(), r.offset(), headers(r));
                if (firstEpoch && (feed.firstEpochLeft == 0 || !feed.deferred.isEmpty())) {
                    if (asked == null) {
                        asked = new HashSet<>(2);
                    }
                    if (feed.run.held == null && asked.add(feed.run)) {
                        // No barrier is held for the first input (none was asked for before input
                        // arrived, or it was skipped): the deferred records would wait up to an
                        // interval for one. Asked again at every poll that defers, in case the
                        // coordinator's rules refused the last request; one pending request is
                        // all it keeps, so a repeat adds no checkpoint.
                        feed.run.execution.checkpointSoon();
                    }
                    feed.deferred.addLast(record);
                    feed.deferredNext = r.offset() + 1;
                    continue;
                }
                if (firstEpoch) {
                    feed.firstEpochLeft--;
                }
                if (feed.overflow.isEmpty() && feed.channel.remainingCapacity() > 0) {
                    feed.channel.put(record);
                } else {
                    feed.overflow.addLast(record);
                }
                feed.nextOffset = r.offset() + 1;
                handed++;
            }
            feed.run.recordsSinceBarrier += handed;
            if ((!feed.overflow.isEmpty() || !feed.deferred.isEmpty()) && !feed.paused) {
                consumer.pause(List.of(tp));
                feed.paused = true;
                feed.channel.wakeWhenDrained(consumer::wakeup);
            }
            feed.run.execution.wake(feed.partition);
        }
    }

    /**
     * Moves overflow into channels that drained; resumes partitions whose overflow is empty unless
     * {@code draining} (a graceful stop reads nothing more).
     */
    void refill(boolean draining) {
        refillAgain = false;
        for (Map.Entry<TopicPartition, Feed> e : feeds.entrySet()) {
            Feed f = e.getValue();
            if (f.overflow.isEmpty()) {
                continue;
            }
            boolean moved = false;
            while (!f.overflow.isEmpty()
                    && (!(f.overflow.peekFirst() instanceof Record) || f.channel.remainingCapacity() > 0)) {
                f.channel.put(f.overflow.pollFirst());
                moved = true;
            }
            if (moved) {
                f.run.execution.wake(f.partition);
            }
            if (f.overflow.isEmpty() && f.paused && !draining) {
                consumer.resume(List.of(e.getKey()));
                f.paused = false;
            } else if (!f.overflow.isEmpty() && !f.channel.wakeWhenDrained(consumer::wakeup)) {
                refillAgain = true;
            }
        }
    }

    /** Whether the last {@link #refill} found a channel drained while it looked: poll without waiting. */
    boolean refillAgain() {
        return refillAgain;
    }

    /** Marks every feed paused (a graceful stop): {@link #refill} resumes none. */
    void pauseAll() {
        feeds.values().forEach(f -> f.paused = true);
    }

    /** Puts barrier {@code checkpointId} behind what was read into every feed of {@code run}; returns Sn. */
    Map<InputPartition, Long> injectBarrier(Run run, long checkpointId) {
        Map<InputPartition, Long> positions = new HashMap<>();
        for (Feed f : feeds.values()) {
            if (f.run != run) {
                continue;
            }
            Barrier barrier = new Barrier(checkpointId);
            if (f.overflow.isEmpty()) {
                f.channel.put(barrier);
            } else {
                f.overflow.addLast(barrier);
            }
            positions.put(f.partition, f.nextOffset);
            if (!f.deferred.isEmpty()) {
                // Behind the first barrier now; refill moves them on as the channel drains.
                f.overflow.addAll(f.deferred);
                run.recordsSinceBarrier += f.deferred.size();
                f.deferred.clear();
                f.nextOffset = f.deferredNext;
            }
            run.execution.wake(f.partition);
        }
        return positions;
    }

    /**
     * Tells each channel whether its partition has records on the broker beyond what was fetched
     * (read_committed: up to the last stable offset), from the consumer's last fetch responses; not
     * known yet counts as behind. A task reading several topics waits for such an input instead of
     * running ahead of it (see {@link Channel#behind(boolean)}). While {@code draining} nothing more
     * is fetched: only what waits in the overflow is still to come.
     */
    void markBehind(boolean draining) {
        for (Map.Entry<TopicPartition, Feed> e : feeds.entrySet()) {
            Feed f = e.getValue();
            OptionalLong lag = draining ? OptionalLong.of(0) : consumer.currentLag(e.getKey());
            boolean behind = !f.overflow.isEmpty() || !f.deferred.isEmpty() || lag.isEmpty() || lag.getAsLong() > 0;
            if (f.channel.behind(behind) && !behind) {
                f.run.execution.wake(f.partition);
            }
        }
    }

    /** The next offset to read of a running partition, or null. */
    Long nextOffset(TopicPartition tp) {
        Feed f = feeds.get(tp);
        return f == null ? null : f.nextOffset;
    }

    /** Where the feeds of {@code run} stand, by partition. */
    Map<InputPartition, Long> positions(Run run) {
        Map<InputPartition, Long> p = new TreeMap<>();
        feeds.values().stream().filter(f -> f.run == run).forEach(f -> p.put(f.partition, f.nextOffset));
        return p;
    }

    private static List<Header> headers(ConsumerRecord<byte[], byte[]> r) {
        org.apache.kafka.common.header.Header[] hs = r.headers().toArray();
        if (hs.length == 0) {
            return List.of();
        }
        List<Header> out = new ArrayList<>(hs.length);
        for (org.apache.kafka.common.header.Header h : hs) {
            out.add(new Header(h.key(), h.value()));
        }
        return out;
    }
}
