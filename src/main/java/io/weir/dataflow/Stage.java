package io.weir.dataflow;

import java.util.List;

/**
 * The static description of a stage: its input topics (co-partitioned: task p reads partition p of
 * each), how their keys and values are decoded, the operator chain (a fresh chain per task; the
 * operators at its end write the outputs) and where bad records go. {@code eventTime} says whether an
 * operator of the chain uses event-time timers, so that the task tracks its watermark;
 * {@code watermarks} says how.
 */
public record Stage(
        String name,
        List<String> inputTopics,
        Codec keyCodec,
        Codec valueCodec,
        List<ChainedOperator> operators,
        String deadLetterTopic,
        boolean eventTime,
        Watermarks watermarks) {
    public Stage {
        watermarks = watermarks == null ? Watermarks.STREAM_TIME : watermarks;
        inputTopics = List.copyOf(inputTopics);
        operators = List.copyOf(operators);
        if (inputTopics.isEmpty()) {
            throw new IllegalArgumentException("stage " + name + " needs at least one input topic");
        }
    }

    /** A stage in stream time: the Kafka timestamps, as before watermarks were configurable. */
    public Stage(
            String name,
            List<String> inputTopics,
            Codec keyCodec,
            Codec valueCodec,
            List<ChainedOperator> operators,
            String deadLetterTopic,
            boolean eventTime) {
        this(name, inputTopics, keyCodec, valueCodec, operators, deadLetterTopic, eventTime, Watermarks.STREAM_TIME);
    }

    /** The task name of partition p: stable across restarts, it keys the task's checkpoints. */
    public String taskName(int partition) {
        return name + "-" + partition;
    }
}
