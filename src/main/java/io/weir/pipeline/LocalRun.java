package io.weir.pipeline;

import io.weir.checkpoint.EpochOutput;
import io.weir.checkpoint.EpochOutputs;
import io.weir.dataflow.Channel;
import io.weir.dataflow.Counters;
import io.weir.dataflow.RecordLimits;
import io.weir.dataflow.Stage;
import io.weir.dataflow.Task;
import io.weir.dataflow.TaskEnvironment;
import io.weir.element.Header;
import io.weir.element.Record;
import io.weir.state.KeyedState;
import io.weir.state.MemoryStateStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs a job's stages in this process without Kafka, for {@code weir test}: the real tasks and
 * operators over memory state, one task per stage (state is per key, so one task computes what
 * many would), each stage fed what the one before wrote to its repartition topic, in order. Event
 * time and dead letters behave as in a real run; there are no checkpoints, and processing time is
 * the timestamp of the latest input. Each stage has one task reading one partition, so a
 * watermark's {@code idle-after} never matters here; a stage's watermark goes to the next stage
 * after every input record (as markers in its repartition topic, as in a real run). Input ends
 * without a final watermark: a window closes only when later input moves the watermark past it.
 */
public final class LocalRun {
    /**
     * An input record of the first stage: of its source, or, when {@code topic} names one, of the
     * topic a join or lookup reads.
     */
    public record Input(String topic, byte[] key, byte[] value, long timestamp, List<Header> headers) {
        public Input(byte[] key, byte[] value, long timestamp, List<Header> headers) {
            this(null, key, value, timestamp, headers);
        }
    }

    /** A record a stage wrote. */
    public record Output(String topic, byte[] key, byte[] value, long timestamp, List<Header> headers) {}

    private LocalRun() {}

    /** Every record the stages wrote to sinks and the dead-letter topic, in the order written. */
    public static List<Output> run(List<Stage> stages, List<Input> inputs) throws Exception {
        List<Output> written = new ArrayList<>();
        List<Input> next = inputs;
        for (int i = 0; i < stages.size(); i++) {
            Stage stage = stages.get(i);
            String feeds =
                    i + 1 < stages.size() ? stages.get(i + 1).inputTopics().get(0) : null;
            List<Output> out = runStage(stage, next);
            next = new ArrayList<>();
            for (Output o : out) {
                if (o.topic().equals(feeds)) {
                    next.add(new Input(o.key(), o.value(), o.timestamp(), o.headers()));
                } else {
                    written.add(o);
                }
            }
        }
        return written;
    }

    private static List<Output> runStage(Stage stage, List<Input> inputs) throws Exception {
        List<Output> out = new ArrayList<>();
        long[] now = {0};
        EpochOutput capture = new EpochOutput() {
            @Override
            public long epoch() {
                return 1;
            }

            @Override
            public void send(
                    String topic,
                    byte[] key,
                    byte[] value,
                    long timestamp,
                    List<Header> headers,
                    Consumer<Exception> onFailure) {
                out.add(new Output(topic, key, value, timestamp, List.copyOf(headers)));
            }

            @Override
            public void flush() {}
        };
        EpochOutputs outputs = epoch -> capture;
        TaskEnvironment env = new TaskEnvironment(
                true,
                outputs,
                (task, id, part) -> {},
                () -> now[0],
                new Counters(),
                RecordLimits.defaults(), // no broker's settings: Kafka's size limit, no timestamp window
                Long.MAX_VALUE);
        Map<String, Channel> channels = new LinkedHashMap<>();
        for (String topic : stage.inputTopics()) {
            channels.put(topic, new Channel(channels.size(), topic + "-0", Integer.MAX_VALUE));
        }
        Map<String, Long> offsets = new HashMap<>();
        try (MemoryStateStore store = new MemoryStateStore(stage.taskName(0))) {
            Task task = new Task(stage, 0, List.copyOf(channels.values()), new KeyedState(store), env, 1);
            for (Input in : inputs) {
                String topic = in.topic() == null ? stage.inputTopics().get(0) : in.topic();
                Channel channel = channels.get(topic);
                if (channel == null) {
                    throw new IllegalArgumentException(
                            "the job reads no topic " + topic + "; it reads " + String.join(", ", stage.inputTopics()));
                }
                // Processing time is this record's arrival: timers due by then fire before it, also one
                // the record before set for that same moment.
                now[0] = Math.max(now[0], in.timestamp());
                task.fireDueProcessingTimers();
                long offset = offsets.merge(topic, 1L, Long::sum) - 1;
                channel.put(new Record(in.key(), in.value(), in.timestamp(), offset, in.headers()));
                while (!channel.isEmpty()) {
                    task.run(1024);
                }
                task.publishWatermark(); // the next stage's windows close as in a real run
            }
            task.fireDueProcessingTimers(); // due at the last input's time
            task.run(0);
        }
        return out;
    }
}
