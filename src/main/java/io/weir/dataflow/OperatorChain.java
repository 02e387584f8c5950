package io.weir.dataflow;

import io.weir.element.Header;
import io.weir.element.InputPartition;
import io.weir.state.KeyedState;
import io.weir.state.Timer;
import io.weir.state.TimerDomain;
import io.weir.state.Timers;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's operators, one per step of its stage in order: runs them on an event, on their timers
 * when due and on a new watermark, and gives each the context it sees (its task's state, its own
 * timers, the record or timer being processed, the task's clocks and output).
 *
 * <p>Threading: its task's worker thread only.
 */
final class OperatorChain {
    /** Logs as its task. */
    private static final Logger LOG = LoggerFactory.getLogger(Task.class);

    private static final long PROCESSING_TIMER_PERIOD_MS = 10;

    private final String name;
    private final Stage stage;
    private final KeyedState state;
    private final TaskEnvironment env;
    private final TaskOutput output;
    private final InputPartition[] inputs;
    private final Operator[] operators;
    private final String[] steps;
    private final Collector[] downstream;
    /**
     * What operator i emits on a timer goes on through these: a record a later step refuses goes to
     * the dead-letter topic (or its late topic) as emitted, and the timer's other records go on.
     */
    private final Collector[] timerDownstream;
    /** The task's watermark, as its operators last heard of it. */
    private long watermark;

    private long nextProcessingTimerCheck;
    private Channel currentInput;
    private long currentOffset = -1;
    private RecordKey currentKey;

    /**
     * Makes and opens the operators of {@code stage}.
     *
     * @param name the task's name
     * @param inputs the task's input partitions, by channel index
     * @param watermark the task's watermark to start from
     */
    OperatorChain(
            String name,
            Stage stage,
            KeyedState state,
            TaskEnvironment env,
            TaskOutput output,
            InputPartition[] inputs,
            long watermark) {
        this.name = name;
        this.stage = stage;
        this.state = state;
        this.env = env;
        this.output = output;
        this.inputs = inputs;
        this.watermark = watermark;
        this.operators = new Operator[stage.operators().size()];
        this.steps = new String[operators.length];
        for (int i = 0; i < operators.length; i++) {
            operators[i] = stage.operators().get(i).factory().get();
            steps[i] = stage.operators().get(i).step();
        }
        this.downstream = new Collector[operators.length];
        for (int i = 0; i < operators.length; i++) {
            int next = i + 1;
            downstream[i] = e -> invoke(next, e);
        }
        this.timerDownstream = new Collector[operators.length];
        for (int i = 0; i < operators.length; i++) {
            int next = i + 1;
            String emitter = steps[i];
            timerDownstream[i] = e -> {
                try {
                    invoke(next, e);
                } catch (BadRecordException refused) {
                    deadLetterEmitted(emitter, e, refused);
                }
            };
        }
        for (int i = 0; i < operators.length; i++) {
            operators[i].open(context(ownerOf(i)));
        }
    }

    /** The task's watermark, as its operators last heard of it. */
    long watermark() {
        return watermark;
    }

    /** The record now processed: from {@code input} at {@code offset}, with {@code key}. */
    void enter(Channel input, long offset, RecordKey key) {
        currentInput = input;
        currentOffset = offset;
        currentKey = key;
    }

    /** Runs operator {@code index} of the chain on {@code event}; past the last one, nothing remains. */
    void invoke(int index, Event event) {
        if (index == operators.length) {
            return;
        }
        try {
            operators[index].process(event, downstream[index]);
        } catch (BadRecordException e) {
            throw e.at(steps[index]);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new Task.OperatorFailure(name, e);
        }
    }

    /** The task's watermark advanced to {@code to}: event-time timers due fire, then operators hear of it. */
    void advanceWatermark(long to) throws Exception {
        watermark = to;
        fireTimers(TimerDomain.EVENT_TIME, watermark);
        for (int i = 0; i < operators.length; i++) {
            operators[i].onWatermark(watermark, timerDownstream[i]);
        }
    }

    void fireProcessingTimers() throws Exception {
        long now = env.clock().getAsLong();
        if (now >= nextProcessingTimerCheck) {
            fireDueProcessingTimers();
        }
    }

    /** Fires the processing-time timers due by the clock now, without waiting for the next check. */
    void fireDueProcessingTimers() throws Exception {
        long now = env.clock().getAsLong();
        nextProcessingTimerCheck = now + PROCESSING_TIMER_PERIOD_MS;
        fireTimers(TimerDomain.PROCESSING_TIME, now);
    }

    private void fireTimers(TimerDomain domain, long upTo) throws Exception {
        List<Timer> due = state.takeDueTimers(domain, upTo);
        while (!due.isEmpty()) {
            for (Timer timer : due) {
                int owner = Integer.parseInt(timer.owner());
                state.setCurrentKey(timer.key());
                currentInput = null;
                currentOffset = -1;
                currentKey = RecordKey.ofBytes(timer.key().length == 0 ? null : timer.key(), stage.keyCodec());
                try {
                    operators[owner].onTimer(timer, timerDownstream[owner]);
                } catch (BadRecordException e) {
                    // The timer's own operator failed before it emitted a record (a later step's refusal of
                    // one it emitted is a dead letter): nothing to send to the dead-letter topic, said here.
                    LOG.warn(
                            "{}: {} failed on a timer at {}: {}",
                            name,
                            steps[owner],
                            timer.timestamp(),
                            e.getMessage());
                }
            }
            due = state.takeDueTimers(domain, upTo);
        }
    }

    /** {@code event}, emitted on a timer by {@code emitter}, refused by a later step: a dead letter. */
    private void deadLetterEmitted(String emitter, Event event, BadRecordException refused) {
        byte[] key;
        byte[] value;
        try {
            key = event.key() == null ? null : event.key().bytesIn(stage.keyCodec());
        } catch (RuntimeException e) {
            key = null; // a key its format cannot write: the reason header still tells the record
        }
        try {
            value = event.value() == null ? null : event.valueIn(stage.valueCodec());
        } catch (RuntimeException e) {
            value = null;
        }
        output.deadLetterEmitted(emitter, key, value, event.timestamp(), event.headers(), refused);
    }

    private static String ownerOf(int operatorIndex) {
        return Integer.toString(operatorIndex);
    }

    /** What the operator (or other part of the task) {@code owner} sees: its timers are its own. */
    OperatorContext context(String owner) {
        Timers timers = state.timers(owner);
        return new OperatorContext() {
            @Override
            public KeyedState state() {
                return state;
            }

            @Override
            public Timers timers() {
                return timers;
            }

            @Override
            public String taskName() {
                return name;
            }

            @Override
            public long currentProcessingTime() {
                return env.clock().getAsLong();
            }

            @Override
            public long currentWatermark() {
                return watermark;
            }

            @Override
            public InputPartition currentInput() {
                return currentInput == null ? null : inputs[currentInput.index()];
            }

            @Override
            public long currentOffset() {
                return currentOffset;
            }

            @Override
            public RecordKey currentKey() {
                return currentKey;
            }

            @Override
            public void send(String topic, byte[] key, byte[] value, long timestamp, List<Header> headers) {
                output.send(topic, key, value, timestamp, headers);
            }
        };
    }
}
