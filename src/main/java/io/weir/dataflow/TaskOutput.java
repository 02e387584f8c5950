package io.weir.dataflow;

import io.weir.checkpoint.EpochOutput;
import io.weir.element.Header;
import io.weir.element.Record;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a task writes, to the output of its current epoch: its operators' records (within their
 * topic's size limit), dead letters and watermark markers, held until the end of a batch
 * ({@link PendingSends}) and sent under the execution's send turn.
 *
 * <p>Threading: owned by its task's worker thread; only the producer's send callback touches
 * {@link #sendFailure}, to hand an error to the owner.
 */
final class TaskOutput {
    /** Logs as its task. */
    private static final Logger LOG = LoggerFactory.getLogger(Task.class);

    private final String name;
    private final String stage;
    /** Where refused records go; a late one goes to its late topic if it has one. */
    private final String deadLetterTopic;

    private final TaskEnvironment env;
    private final AtomicReference<Exception> sendFailure = new AtomicReference<>();
    private final java.util.function.Consumer<Exception> onSendFailure = e -> sendFailure.compareAndSet(null, e);
    private EpochOutput output;
    /** Outputs made in the current batch, sent at its end (see {@link PendingSends}). */
    private final PendingSends pending = new PendingSends();
    /** The output topic {@link #send} looked up last, and its limits. */
    private String limitTopic;

    private RecordLimits.Topic limit;
    /**
     * The clock as last read for the timestamp check: it only moves on, so a record within the
     * window of this reading is within the window of the clock now (ahead), and the clock is read
     * again only for a record beyond it.
     */
    private long clockSeen = Long.MIN_VALUE;
    /** A dead letter held for the next epoch. */
    private record Held(String topic, byte[] key, byte[] value, long timestamp, List<Header> headers) {}

    /** Dead letters of records after the cut of the checkpoint aligning; sent once it is snapshotted. */
    private final List<Held> heldForNextEpoch = new ArrayList<>();

    private boolean forNextEpoch;
    /** Records written since the shared counters were last told (once per {@link Task#run}). */
    private long countedOut;

    /**
     * @param name the task's name
     * @param stage the task's stage's name
     * @param firstEpoch the epoch written to first
     */
    TaskOutput(String name, String stage, String deadLetterTopic, TaskEnvironment env, long firstEpoch) {
        this.name = name;
        this.stage = stage;
        this.deadLetterTopic = deadLetterTopic;
        this.env = env;
        this.output = env.outputs().output(firstEpoch);
    }

    /** The epoch whose output this task writes now: the checkpoint its next barrier completes. */
    long epoch() {
        return output.epoch();
    }

    /** How many partitions {@code topic} has. */
    int partitions(String topic) {
        return output.partitions(topic);
    }

    /** Tells the shared counters of the records written since they were last told. */
    void tellCounters() {
        if (countedOut > 0) {
            env.counters().recordsOut.add(countedOut);
            countedOut = 0;
        }
    }

    void send(String topic, byte[] key, byte[] value, long timestamp, List<Header> headers) {
        int size = RecordLimits.sizeUpperBound(key, value, headers);
        if (topic != limitTopic) { // a sink sends to one topic: its limit is looked up once
            limitTopic = topic;
            limit = env.limits().of(topic);
        }
        int max = limit.maxBytes();
        if (size > max) {
            throw new BadRecordException("an output record of about " + size + " bytes exceeds the limit of " + max
                    + " bytes of topic " + topic);
        }
        if (timestamp >= 0 && !withinWindow(timestamp, limit)) {
            throw new BadRecordException("an output record's timestamp " + timestamp + " is more than "
                    + (timestamp > clockSeen
                            ? limit.maxAheadMs() + " ms ahead of the clock, which topic " + topic + " refuses"
                                    + " (message.timestamp.after.max.ms)"
                            : limit.maxBehindMs() + " ms behind the clock, which topic " + topic + " refuses"
                                    + " (message.timestamp.before.max.ms)"));
        }
        hold(topic, -1, key, value, timestamp, headers);
        countedOut++;
    }

    /** Whether the broker takes {@code timestamp} for a topic of {@code limits}; reads the clock only when it must. */
    private boolean withinWindow(long timestamp, RecordLimits.Topic limits) {
        long ahead = limits.maxAheadMs();
        if (ahead != Long.MAX_VALUE && (clockSeen == Long.MIN_VALUE || timestamp - clockSeen > ahead)) {
            clockSeen = env.clock().getAsLong();
            if (timestamp - clockSeen > ahead) {
                return false;
            }
        }
        long behind = limits.maxBehindMs();
        if (behind != Long.MAX_VALUE) {
            clockSeen = env.clock().getAsLong(); // a stale reading would let a record too old pass
            return clockSeen - timestamp <= behind;
        }
        return true;
    }

    /**
     * {@code record} of {@code channel}, refused for {@code e}, to {@code topic} with the reasons
     * and its provenance.
     *
     * @param nextEpoch the record comes after the cut of the checkpoint being aligned (an unaligned
     *     input past its barrier): its dead letter is held for the next epoch, which a restore of
     *     that checkpoint reads the record again for
     */
    void deadLetter(Channel channel, Record record, BadRecordException e, boolean nextEpoch) {
        String topic = topicFor(e);
        List<Header> ours = reasons(e);
        ours.add(header("weir.source", channel.name()));
        int dash = channel.name().lastIndexOf('-');
        ours.add(header("weir.topic", channel.name().substring(0, dash)));
        ours.add(header("weir.partition", channel.name().substring(dash + 1)));
        ours.add(header("weir.offset", Long.toString(record.offset())));
        forNextEpoch = nextEpoch;
        try {
            writeDeadLetter(record.key(), record.value(), record.timestamp(), record.headers(), ours, e, topic);
        } finally {
            forNextEpoch = false;
        }
        LOG.debug("{}: record at {}@{} sent to {}: {}", name, channel, record.offset(), topic, e.getMessage());
    }

    /**
     * A record an operator emitted on a timer (a window's result, a left join's unmatched record)
     * that a later step refused: it goes to {@code topic} as it was emitted, with {@code
     * weir.emitted-by} naming the step whose timer emitted it, as it has no input record to point at.
     */
    void deadLetterEmitted(
            String emittedBy, byte[] key, byte[] value, long timestamp, List<Header> headers, BadRecordException e) {
        String topic = topicFor(e);
        List<Header> ours = reasons(e);
        ours.add(header("weir.emitted-by", emittedBy));
        writeDeadLetter(key, value, timestamp, headers, ours, e, topic);
        LOG.debug("{}: a record {} emitted on a timer sent to {}: {}", name, emittedBy, topic, e.getMessage());
    }

    /** The dead-letter topic, or a late record's late topic (a late record is counted). */
    private String topicFor(BadRecordException e) {
        if (e instanceof LateRecordException late) {
            env.counters().late.increment();
            if (late.topic() != null) {
                return late.topic();
            }
        }
        return deadLetterTopic;
    }

    /** Why a record is a dead letter, and where: the headers every dead letter carries. */
    private List<Header> reasons(BadRecordException e) {
        List<Header> ours = new ArrayList<>();
        ours.add(header("weir.error", e.getMessage()));
        if (e.step() != null) {
            ours.add(header("weir.step", e.step()));
        }
        if (e.expression() != null) {
            ours.add(header("weir.expression", e.expression()));
        }
        ours.add(header("weir.stage", stage));
        ours.add(header("weir.task", name));
        return ours;
    }

    /**
     * Holds a dead letter: the record's own headers, then {@code ours}; key and value cut (or
     * dropped) to fit the topic's size limit, as {@code dead-letter.oversized} says.
     */
    private void writeDeadLetter(
            byte[] key,
            byte[] value,
            long timestamp,
            List<Header> original,
            List<Header> ours,
            BadRecordException e,
            String topic) {
        if (timestamp >= 0 && !withinWindow(timestamp, env.limits().of(topic))) {
            // The dead-letter topic would refuse the record (and fail the epoch again and again):
            // written at the broker's time, its own timestamp said in a header.
            ours.add(header("weir.timestamp", Long.toString(timestamp)));
            timestamp = -1;
        }
        List<Header> headers = new ArrayList<>(original.size() + ours.size());
        headers.addAll(original);
        headers.addAll(ours);
        int max = env.limits().of(topic).maxBytes();
        if (RecordLimits.sizeUpperBound(key, value, headers) > max) {
            env.counters().oversizedDeadLetters.increment();
            if (RecordLimits.sizeUpperBound(null, null, headers) > max / 2) {
                // The original headers alone are too large: keep only ours.
                headers = new ArrayList<>(ours);
                headers.add(header("weir.headers-dropped", Integer.toString(original.size())));
            }
            int room = max - RecordLimits.sizeUpperBound(null, null, headers) - 200;
            if (!env.limits().truncateDeadLetters()) {
                room = 0;
            }
            if (key != null && key.length > room / 2) {
                headers.add(header("weir.key-truncated", Integer.toString(key.length)));
                key = Arrays.copyOf(key, Math.max(0, room / 2));
            }
            int valueRoom = room - (key == null ? 0 : key.length);
            if (value != null && value.length > valueRoom) {
                headers.add(header("weir.value-truncated", Integer.toString(value.length)));
                value = Arrays.copyOf(value, Math.max(0, valueRoom));
            }
        }
        if (forNextEpoch) {
            heldForNextEpoch.add(new Held(topic, key, value, timestamp, headers));
        } else {
            hold(topic, -1, key, value, timestamp, headers);
        }
        if (!(e instanceof LateRecordException)) {
            env.counters().deadLetters.increment();
        }
    }

    static Header header(String key, String value) {
        return new Header(key, String.valueOf(value).getBytes(StandardCharsets.UTF_8));
    }

    void hold(String topic, int partition, byte[] key, byte[] value, long timestamp, List<Header> headers) {
        if (pending.size() >= PendingSends.BURST) {
            sendPending(pending.size() >= PendingSends.MAX);
        }
        pending.add(topic, partition, key, value, timestamp, headers);
    }

    /**
     * Sends the outputs held, in one burst under the execution's send turn; unless {@code now},
     * only when no other task holds the turn (they are then kept for a later call).
     */
    void sendPending(boolean now) {
        if (pending.isEmpty()) {
            return;
        }
        java.util.concurrent.locks.Lock turn = env.sendTurn();
        if (now) {
            turn.lock();
        } else if (!turn.tryLock()) {
            return;
        }
        try {
            pending.sendTo(output, onSendFailure, sendFailure);
        } finally {
            turn.unlock();
        }
    }

    /**
     * Ends epoch n at checkpoint n: sends what is held and makes sure every record of epoch n is
     * acknowledged before the first record of epoch n+1 is sent (else two producers could reorder a
     * key's updates), then switches to epoch n+1's output.
     */
    void endEpoch(long checkpointId) throws Exception {
        sendPending(true);
        output.flush();
        throwSendFailure();
        output = env.outputs().output(checkpointId + 1);
        releaseHeldForNextEpoch();
    }

    /** Sends the dead letters held for the next epoch with this one's outputs. */
    void releaseHeldForNextEpoch() {
        for (Held h : heldForNextEpoch) {
            hold(h.topic(), -1, h.key(), h.value(), h.timestamp(), h.headers());
        }
        heldForNextEpoch.clear();
    }

    void throwSendFailure() throws Exception {
        Exception e = sendFailure.get();
        if (e != null) {
            throw new Task.OperatorFailure(name + ": sending output failed", e);
        }
    }
}
