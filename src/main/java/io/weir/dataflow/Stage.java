package io.weir.dataflow;

import java.util.List;

/**
 * The static description of a stage: its input topics (co-partitioned: task p reads partition p of
 * each), how their keys and values are decoded, the operator chain (a fresh chain per task; the
 * operators at its end write the outputs), where bad records go, and which of the inputs are
 * {@link SideInput}s of a join or lookup. {@code eventTime} says whether an
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
        Watermarks watermarks,
        List<SideInput> sideInputs) {

    /**
     * A further input of the stage (a join's other stream, a lookup's table), read partition p with
     * partition p of the stage's own input: its formats, its event time (null: the Kafka
     * timestamps), the index of the operator its records go to (they skip the operators before it
     * and go no further), and whether it is a table, whose records never hold the watermark back and
     * are read from the beginning on a fresh start.
     *
     * @param timestampStep the step of the timestamp expression, named in dead letters
     */
    public record SideInput(
            String topic,
            Codec keyCodec,
            Codec valueCodec,
            TimestampAssigner timestamps,
            String timestampStep,
            int operator,
            boolean table) {}

    public Stage {
        watermarks = watermarks == null ? Watermarks.STREAM_TIME : watermarks;
        sideInputs = sideInputs == null ? List.of() : List.copyOf(sideInputs);
        inputTopics = List.copyOf(inputTopics);
        operators = List.copyOf(operators);
        if (inputTopics.isEmpty()) {
            throw new IllegalArgumentException("stage " + name + " needs at least one input topic");
        }
    }

    /** A stage without side inputs. */
    public Stage(
            String name,
            List<String> inputTopics,
            Codec keyCodec,
            Codec valueCodec,
            List<ChainedOperator> operators,
            String deadLetterTopic,
            boolean eventTime,
            Watermarks watermarks) {
        this(name, inputTopics, keyCodec, valueCodec, operators, deadLetterTopic, eventTime, watermarks, List.of());
    }

    /** The side input reading {@code topic}, or null when it is the stage's own input. */
    public SideInput sideInput(String topic) {
        for (SideInput s : sideInputs) {
            if (s.topic().equals(topic)) {
                return s;
            }
        }
        return null;
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
