package io.weir.kafka;

import io.weir.checkpoint.TaskCheckpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the latest committed checkpoint of tasks from {@code <app>-checkpoints}: the compacted
 * topic read read_committed from the beginning to its end. A task's checkpoint ids only grow, so
 * the highest id wins, not the last record: at-least-once writes these records without a
 * transaction, and a paused instance (a zombie) resuming after another took its tasks over can
 * append an older checkpoint after the new owner's; taking it would restore stale state, or stall
 * a reader that waits for the id the committed offsets name. Of two records with the same id (the
 * zombie and the new owner both completed it) the later one wins; either is a consistent pair of
 * state and positions.
 *
 * <p>Besides the tasks' checkpoints it keeps the partition counts the job recorded ({@link
 * PartitionCounts}): an instance's first read, at its start, serves that check and the first
 * restore alike.
 *
 * <p>The reader keeps its consumer and what it read: the next call reads only what was appended
 * since, up to the topic's end then (the last stable offset), and {@link #follow} keeps it close to
 * the end between restores. A restore at each rebalance and a
 * standby's round every few seconds would otherwise read the whole topic again — up to ten minutes
 * of every task's checkpoints, the segment time before compaction may run — each with a new
 * consumer. A read that fails midway drops what was kept; the next starts from the beginning.
 *
 * <p>Threading: calls are serialised by a lock (an instance's restores and its standby share one
 * reader); a caller waits for another's read at most its own timeout.
 */
public final class CheckpointReader implements AutoCloseable {
    private final KafkaClients clients;
    private final String topic;
    /** Volatile for {@link #close}, which wakes a read in progress up without waiting for it. */
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    private volatile boolean closed;
    private List<TopicPartition> parts;
    /** Per task, its last {@link #depth} checkpoints as read so far, oldest first. */
    private final Map<String, Deque<TaskCheckpoint>> read = new HashMap<>();
    /** How many checkpoints per task {@link #read} keeps: the most a call asked for. */
    private int depth;
    /** Records read since this reader was made; for tests. */
    private volatile long recordsRead;
    /** The last {@link PartitionCounts#KEY} record's value as read so far; null: none. */
    private byte[] partitionCounts;
    /** Whether a task's checkpoint record was read. */
    private boolean anyCheckpoint;

    private final ReentrantLock lock = new ReentrantLock();

    public CheckpointReader(KafkaClients clients, String topic) {
        this.clients = clients;
        this.topic = topic;
    }

    /** The latest checkpoint of each of {@code tasks} (all tasks when null) that has one. */
    public Map<String, TaskCheckpoint> latest(Set<String> tasks, Duration timeout) throws IOException {
        Map<String, TaskCheckpoint> latest = new HashMap<>();
        history(tasks, 1, timeout).forEach((task, h) -> latest.put(task, h.get(h.size() - 1)));
        return latest;
    }

    /**
     * Up to the last {@code depth} checkpoints of each of {@code tasks} (all when null), oldest
     * first: what retention keeps. Compaction may already have removed older records, so a task
     * may have fewer; the last one is always its latest. Waits at most {@code timeout} for another
     * caller's read, then as long again for its own.
     */
    public Map<String, List<TaskCheckpoint>> history(Set<String> tasks, int depth, Duration timeout)
            throws IOException {
        return read(tasks, depth, timeout, false);
    }

    /**
     * {@link #history} read from the beginning with a new consumer, forgetting what was kept: for a
     * restore that did not find what the committed offsets name and reads again, as it always did.
     */
    public Map<String, List<TaskCheckpoint>> freshHistory(Set<String> tasks, int depth, Duration timeout)
            throws IOException {
        return read(tasks, depth, timeout, true);
    }

    /**
     * Reads what was appended since the last call, if a call read before and no other holds the
     * reader now; never waits for another caller. An instance calls it every few seconds, so that
     * a restore after a rebalance or a failover finds the reader nearly at the topic's end instead
     * of reading every checkpoint the members committed since the last restore (hundreds of
     * milliseconds on the restart path). One that runs out of {@code timeout} (a slow or
     * unreachable broker) keeps what it read, which matches the consumer's position, and says it
     * did not read to the end; any other failure drops what was kept, as a failed read does.
     * Whether it read to the topic's end.
     */
    public boolean follow(Duration timeout) throws IOException {
        if (!lock.tryLock()) {
            return false; // a restore or a standby round is reading: it catches up itself
        }
        try {
            if (closed || consumer == null) {
                return false; // nothing read yet: the first read decides how many checkpoints to keep
            }
            try {
                catchUp(timeout);
                return true;
            } catch (TimedOut | org.apache.kafka.common.errors.TimeoutException e) {
                return false; // between two records: the next call goes on from here
            } catch (IOException | RuntimeException e) {
                reset();
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    /** A read that did not reach the topic's end within its timeout. */
    private static final class TimedOut extends IOException {
        TimedOut(String message) {
            super(message);
        }
    }

    /** What the topic holds besides the tasks' checkpoints, as of its end now. */
    record Recorded(byte[] partitionCounts, boolean anyCheckpoint) {}

    /**
     * The partition counts recorded and whether any task has a checkpoint, read to the topic's end,
     * keeping up to {@code depth} checkpoints per task for the {@link #history} calls that follow
     * (with the same depth, they read only what was appended since).
     */
    Recorded recorded(int depth, Duration timeout) throws IOException {
        return read(depth, timeout, false, () -> new Recorded(partitionCounts, anyCheckpoint));
    }

    private Map<String, List<TaskCheckpoint>> read(Set<String> tasks, int depth, Duration timeout, boolean fresh)
            throws IOException {
        return read(depth, timeout, fresh, () -> {
            Map<String, List<TaskCheckpoint>> result = new HashMap<>();
            read.forEach((task, h) -> {
                if (tasks == null || tasks.contains(task)) {
                    List<TaskCheckpoint> all = List.copyOf(h);
                    result.put(task, all.subList(Math.max(0, all.size() - depth), all.size()));
                }
            });
            return result;
        });
    }

    private <T> T read(int depth, Duration timeout, boolean fresh, java.util.function.Supplier<T> result)
            throws IOException {
        try {
            // Not synchronized: a read abandoned by a stopped restore, or a standby round, may hold the
            // reader while the broker is unreachable; the next caller gives up after its timeout.
            if (!lock.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("another read of " + topic + " did not end within " + timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting to read " + topic, e);
        }
        try {
            if (closed) {
                throw new IOException("the reader of " + topic + " is closed");
            }
            if (fresh || depth > this.depth) {
                reset(); // read from the beginning (keeping more per task when asked for more)
                this.depth = Math.max(depth, this.depth);
            }
            catchUpOrForget(timeout);
            return result.get();
        } finally {
            lock.unlock();
        }
    }

    /** {@link #catchUp}; a read that fails forgets what was kept: the next starts over. */
    private void catchUpOrForget(Duration timeout) throws IOException {
        boolean done = false;
        try {
            catchUp(timeout);
            done = true;
        } finally {
            if (!done) {
                reset();
            }
        }
    }

    /** Reads from where the last call stopped to the topic's end as of now. */
    private void catchUp(Duration timeout) throws IOException {
        if (consumer == null) {
            consumer = clients.reader(topic + "-reader", true);
            if (closed) {
                throw new IOException("the reader of " + topic + " is closed"); // close() missed this one
            }
            List<PartitionInfo> infos = KafkaClients.partitionsOf(consumer, topic, timeout);
            if (infos.isEmpty()) {
                throw new IOException("checkpoint topic " + topic + " does not exist");
            }
            parts = infos.stream()
                    .map(i -> new TopicPartition(topic, i.partition()))
                    .collect(Collectors.toList());
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
        }
        Map<TopicPartition, Long> end = consumer.endOffsets(parts, timeout);
        if (!end.keySet().containsAll(parts)) { // a zero timeout answers with what it has
            throw new TimedOut("the end of " + topic + " is not known within " + timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!reachedEnd(consumer, end)) {
            if (System.nanoTime() > deadline) {
                throw new TimedOut("reading " + topic + " to its end took longer than " + timeout);
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                apply(r);
            }
        }
    }

    private void apply(ConsumerRecord<byte[], byte[]> r) throws IOException {
        recordsRead++;
        if (r.key() == null) {
            return;
        }
        String task = new String(r.key(), StandardCharsets.UTF_8);
        if (PartitionCounts.KEY.equals(task)) {
            partitionCounts = r.value();
            return;
        }
        if (r.value() == null) {
            read.remove(task);
            return;
        }
        anyCheckpoint = true;
        Deque<TaskCheckpoint> h = read.computeIfAbsent(task, t -> new ArrayDeque<>());
        TaskCheckpoint c = CheckpointRecords.decode(r.value());
        long newest = h.isEmpty() ? 0 : h.peekLast().checkpointId();
        if (c.checkpointId() < newest) {
            return; // older than what this task already completed: a zombie's
        }
        if (c.checkpointId() == newest) {
            h.removeLast();
        }
        h.addLast(c);
        if (h.size() > depth) {
            h.removeFirst();
        }
    }

    /** Forgets what was read and the consumer: the next call reads from the beginning. */
    private void reset() {
        read.clear();
        partitionCounts = null;
        anyCheckpoint = false;
        if (consumer != null) {
            try {
                consumer.close(Duration.ZERO);
            } catch (RuntimeException e) {
                // closing a consumer that failed: nothing more to do
            }
            consumer = null;
        }
    }

    long recordsRead() {
        return recordsRead;
    }

    /** Ends a read in progress (it fails) and frees the consumer; later reads fail. */
    @Override
    public void close() {
        closed = true;
        KafkaConsumer<byte[], byte[]> reading = consumer;
        if (reading != null) {
            reading.wakeup(); // a read stuck on an unreachable broker would hold the lock for its timeout
        }
        lock.lock(); // the read in progress, if any, fails at once now
        try {
            reset();
        } finally {
            lock.unlock();
        }
    }

    private static boolean reachedEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
