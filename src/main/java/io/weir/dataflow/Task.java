package io.weir.dataflow;

import io.weir.checkpoint.BarrierDecision;
import io.weir.element.Barrier;
import io.weir.element.Element;
import io.weir.element.Header;
import io.weir.element.InputPartition;
import io.weir.element.Record;
import io.weir.element.Watermark;
import io.weir.state.KeyedState;
import io.weir.state.SnapshotPart;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage × partition: reads its channels, runs its operator chain over keyed state, writes to the
 * output of its current epoch, and takes its part of every checkpoint at the barrier.
 *
 * <p>The next element comes from the input its {@link InputOrder} chooses (the lowest timestamp
 * first, under the barrier protocol). A bad record goes to the dead-letter topic in the same epoch
 * as the outputs, so it is written exactly once too.
 *
 * <p>Its operators run in its {@link OperatorChain}; what it writes goes through its
 * {@link TaskOutput}.
 *
 * <p>Threading: owned by one worker thread; only the producer's send callback touches its output's
 * send failure ({@link TaskOutput}), to hand an error to the owner.
 */
public final class Task {
    private static final Logger LOG = LoggerFactory.getLogger(Task.class);
    private static final String WATERMARKS = "watermarks";
    /** Header of a watermark marker: the upstream task's watermark, or "idle". */
    public static final String MARKER = "weir.watermark";

    /**
     * How often a task writes its moved watermark downstream at most, besides every barrier. A
     * marker goes into every partition of the repartition topic: written at every run that found
     * nothing, a slow input (600 records/s in a helper's soak) made four in five records of the
     * repartition topic markers. Flink sends watermarks every 200 ms by default as well.
     */
    static final long MARKER_EVERY_MS = 200;
    /** Header of a watermark marker: the upstream task's name. */
    public static final String MARKER_TASK = "weir.watermark.task";
    /** Header of a watermark marker: how many tasks the upstream stage has. */
    public static final String MARKER_TASKS = "weir.watermark.tasks";

    private final Stage stage;
    private final String name;
    /** Which input the next element comes from, and the barrier protocol over them. */
    private final InputOrder order;

    private final KeyedState state;
    private final TaskEnvironment env;
    private final InputPartition[] inputs;
    /** Per channel: the side input it belongs to, null for the stage's own input. */
    private final Stage.SideInput[] sides;

    private final OperatorChain chain;
    private final WatermarkTracker time;
    private final Watermarks watermarks;
    private final OperatorContext timestampContext;
    private final TaskOutput output;
    /** The watermark and idleness last written as markers downstream. */
    private long markedWatermark = Long.MIN_VALUE;

    private boolean markedIdle;
    /** When they were written (by the task's clock); the first run that finds nothing writes at once. */
    private long markedAt = Long.MIN_VALUE / 2;
    /** When this task last took its part of a checkpoint, and whether its store prepares the next. */
    private long lastSnapshotAt;

    private boolean snapshotPrepared;
    /** Records read since the shared counters were last told (once per {@link #run}). */
    private long countedIn;

    /** The task watermark {@code state}'s checkpointed watermarks hold; MIN_VALUE when none. */
    public static long recordedWatermark(KeyedState state) {
        byte[] recorded = state.taskEntry(WATERMARKS);
        return recorded == null ? Long.MIN_VALUE : WatermarkTracker.watermarkOf(recorded);
    }

    /**
     * Makes a task restored from {@code state} start its watermark at {@code floor} at least (its
     * channels as recorded, or from nothing): a task a rescale made, which holds keys of tasks whose
     * watermarks had passed its own.
     */
    public static void raiseWatermark(KeyedState state, long floor) {
        state.putTaskEntry(WATERMARKS, WatermarkTracker.raised(state.taskEntry(WATERMARKS), floor));
    }

    /**
     * @param firstEpoch the epoch this task writes to first: the id of the next checkpoint its
     *     coordinator triggers; barriers with lower ids are stale
     */
    public Task(
            Stage stage,
            int partition,
            List<Channel> channels,
            KeyedState state,
            TaskEnvironment env,
            long firstEpoch) {
        this.stage = stage;
        this.name = stage.taskName(partition);
        this.order = new InputOrder(channels, env.align(), firstEpoch);
        this.state = state;
        this.env = env;
        this.output = new TaskOutput(name, stage.name(), stage.deadLetterTopic(), env, firstEpoch);
        this.inputs = channels.stream().map(c -> InputPartition.parse(c.name())).toArray(InputPartition[]::new);
        this.watermarks = stage.watermarks();
        this.time = new WatermarkTracker(
                channels.stream().map(Channel::name).toArray(String[]::new),
                watermarks.maxOutOfOrdernessMs(),
                watermarks.idleAfterMs(),
                env.clock().getAsLong());
        this.sides = new Stage.SideInput[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            sides[i] = stage.sideInput(inputs[i].topic());
            if (sides[i] != null && sides[i].table()) {
                time.exclude(i);
                order.table(i);
            }
        }
        this.lastSnapshotAt = env.clock().getAsLong();
        long watermark = Long.MIN_VALUE;
        byte[] restoredTime = state.taskEntry(WATERMARKS);
        if (restoredTime != null) {
            time.restore(restoredTime);
            watermark = time.watermark();
            markedWatermark = watermark;
        }
        this.chain = new OperatorChain(name, stage, state, env, output, inputs, watermark);
        this.timestampContext = chain.context("timestamp");
    }

    public String name() {
        return name;
    }

    public KeyedState state() {
        return state;
    }

    /** The epoch whose output this task writes now: the checkpoint its next barrier completes. */
    public long epoch() {
        return output.epoch();
    }

    /**
     * Processes up to {@code budget} elements; returns how many. Throws what the chain threw or a
     * send failed with: the worker turns that into a failover.
     */
    public int run(int budget) throws Exception {
        try {
            int done = runElements(budget);
            // A task that ran out of input sends now; one with more to do may leave its outputs
            // for its next batch while the other worker is sending.
            output.sendPending(done < budget);
            return done;
        } finally {
            // Shared counters are contended between workers: told once per run, not per record.
            if (countedIn > 0) {
                env.counters().recordsIn.add(countedIn);
                countedIn = 0;
            }
            output.tellCounters();
        }
    }

    /**
     * Fires the processing-time timers due by the clock now (a run checks them every few ms): for a
     * clock that jumps, such as {@code weir test}'s, whose processing time is the latest input's
     * timestamp, so that a timer due before a record fires before that record is processed. What
     * they emit is sent with the next {@link #run}.
     */
    public void fireDueProcessingTimers() throws Exception {
        chain.fireDueProcessingTimers();
    }

    private int runElements(int budget) throws Exception {
        output.throwSendFailure();
        int done = 0;
        while (done < budget) {
            Channel channel = order.next();
            if (channel == null) {
                break;
            }
            Element element = order.take(channel);
            if (element instanceof Record r) {
                process(channel, r);
            } else if (element instanceof Barrier b) {
                handle(order.onBarrier(channel, b.checkpointId()));
            } else if (element instanceof Watermark w) {
                onWatermark(channel.index(), w.timestamp());
            }
            done++;
        }
        chain.fireProcessingTimers();
        if (!snapshotPrepared && env.clock().getAsLong() - lastSnapshotAt >= env.prepareSnapshotAfterMs()) {
            snapshotPrepared = true;
            state.store().prepareSnapshot();
        }
        if (stage.eventTime() && time.checkIdle(env.clock().getAsLong())) {
            advanceWatermark();
        }
        if (env.clock().getAsLong() - markedAt >= MARKER_EVERY_MS) {
            // A watermark that moved goes downstream in band, behind the records before it, at most
            // every MARKER_EVERY_MS (and at every barrier): the next stage then judges lateness by
            // a watermark at most that old, not one a checkpoint interval old. Sent by run().
            markWatermark();
        }
        return done;
    }

    private void process(Channel channel, Record record) throws Exception {
        if (watermarks.fromUpstream() && record.key() == null && marker(channel, record)) {
            return;
        }
        countedIn++;
        state.setCurrentKey(record.key());
        Stage.SideInput side = sides[channel.index()];
        RecordKey key = RecordKey.ofBytes(record.key(), side == null ? stage.keyCodec() : side.keyCodec());
        chain.enter(channel, record.offset(), key);
        long timestamp = Long.MIN_VALUE;
        boolean timed = false;
        try {
            Object value;
            try {
                if (side == null) {
                    value = stage.valueCodec().decode(record.value());
                } else {
                    // A table's tombstone deletes its key: it reaches the lookup as a null value.
                    value = side.table() && record.value() == null
                            ? null
                            : side.valueCodec().decode(record.value());
                }
            } catch (BadRecordException e) {
                // Named as the step the record could not reach: the first one of the stage, or the
                // join or lookup that reads the side input.
                int first = side == null ? 0 : side.operator();
                throw first < stage.operators().size()
                        ? e.at(stage.operators().get(first).step())
                        : e;
            }
            Codec format = side == null ? stage.valueCodec() : side.valueCodec();
            Event event = new Event(key, value, record.timestamp(), record.headers(), record.value(), format);
            TimestampAssigner assigner = side == null ? watermarks.timestamps() : side.timestamps();
            if (assigner != null && value != null) {
                try {
                    event = event.withTimestamp(assigner.timestamp(event, timestampContext));
                } catch (BadRecordException e) {
                    throw e.at(side == null ? "pipeline.0.source.timestamp" : side.timestampStep());
                }
            }
            timestamp = event.timestamp();
            timed = true;
            chain.invoke(side == null ? 0 : side.operator(), event);
        } catch (BadRecordException e) { // a late record too: to its late topic
            output.deadLetter(channel, record, e, order.afterCut(channel));
        }
        if (stage.eventTime() && !watermarks.fromUpstream()) {
            // A partition's watermark is the highest timestamp read from it less the disorder
            // allowed; the task's is the lowest over its active inputs.
            long now = env.clock().getAsLong();
            if (timed ? time.onRecord(channel.index(), timestamp, now) : time.onActivity(channel.index(), now)) {
                advanceWatermark();
            }
        }
    }

    /**
     * Handles {@code record} if it is a watermark marker of an upstream task (no key, the marker
     * headers): it updates event time and goes no further, never reaching an operator or a sink.
     */
    private boolean marker(Channel channel, Record record) throws Exception {
        String w = null;
        String task = null;
        int tasks = 0;
        for (Header h : record.headers()) {
            String v = new String(h.value(), StandardCharsets.UTF_8);
            switch (h.key()) {
                case MARKER -> w = v;
                case MARKER_TASK -> task = v;
                case MARKER_TASKS -> tasks = Integer.parseInt(v);
                default -> {}
            }
        }
        if (w == null || task == null || tasks < 1) {
            return false;
        }
        long value = w.equals("idle") ? WatermarkTracker.IDLE : Long.parseLong(w);
        if (time.onMarker(channel.index(), task, tasks, value)) {
            advanceWatermark();
        }
        return true;
    }

    private void handle(BarrierDecision decision) throws Exception {
        if (decision instanceof BarrierDecision.Snapshot s) {
            snapshot(s.checkpointId());
        } else if (decision instanceof BarrierDecision.Overtaken o) {
            LOG.warn("{}: checkpoint {} overtaken by a newer barrier before it aligned", name, o.abortedId());
            output.releaseHeldForNextEpoch(); // no cut was made: they are this epoch's
            handle(o.then());
        }
        // Block, Track and Stale need nothing more here: a blocked channel is skipped by InputOrder.next.
    }

    /**
     * Checkpoint n at this task: capture state (synchronous part), make sure every record of epoch
     * n is acknowledged before the first record of epoch n+1 is sent (else two producers could
     * reorder a key's updates), switch to epoch n+1's output and hand the asynchronous part to the
     * coordinator.
     */
    private void snapshot(long checkpointId) throws Exception {
        long started = env.clock().getAsLong();
        if (stage.eventTime()) {
            markWatermark(); // sent by endEpoch below
            state.putTaskEntry(WATERMARKS, time.snapshot());
        }
        SnapshotPart part = state.store().snapshot(checkpointId);
        output.endEpoch(checkpointId);
        lastSnapshotAt = env.clock().getAsLong();
        snapshotPrepared = false;
        env.acks().acknowledge(name, checkpointId, part, lastSnapshotAt - started);
    }

    private void onWatermark(int channel, long timestamp) throws Exception {
        if (time.onChannelWatermark(channel, timestamp)) {
            advanceWatermark();
        }
    }

    /** The task's watermark advanced: event-time timers due fire, then operators hear of it. */
    private void advanceWatermark() throws Exception {
        chain.advanceWatermark(time.watermark());
    }

    /**
     * Writes the task's watermark (or that it is idle) into every partition of the next stage's
     * repartition topic, as a marker record in the current epoch, if it changed since the last
     * marker. The next stage takes the lowest over all upstream tasks. {@code weir test} calls it
     * after every input; the runtime at every barrier and at most every {@link #MARKER_EVERY_MS}.
     */
    public void publishWatermark() {
        if (markWatermark()) {
            output.sendPending(true); // weir test calls this between runs
        }
    }

    /** Holds the markers publishWatermark sends; the runtime sends them with the run's outputs. */
    private boolean markWatermark() {
        String topic = watermarks.markerTopic();
        if (topic == null) {
            return false;
        }
        boolean idle = time.idle();
        long watermark = chain.watermark();
        if (idle == markedIdle && (idle || watermark <= markedWatermark)) {
            return false;
        }
        markedIdle = idle;
        markedWatermark = watermark;
        markedAt = env.clock().getAsLong();
        List<Header> headers = List.of(
                TaskOutput.header(MARKER, idle ? "idle" : Long.toString(watermark)),
                TaskOutput.header(MARKER_TASK, name),
                TaskOutput.header(
                        MARKER_TASKS,
                        Integer.toString(output.partitions(stage.inputTopics().get(0)))));
        int partitions = output.partitions(topic);
        for (int p = 0; p < partitions; p++) {
            output.hold(topic, p, null, null, -1, headers);
        }
        return true;
    }

    /** A failure of an operator or of the task's output: ends the execution and fails over. */
    public static final class OperatorFailure extends RuntimeException {
        OperatorFailure(String task, Throwable cause) {
            super(task + ": " + cause, cause);
        }
    }
}
