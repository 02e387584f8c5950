package io.weir.dataflow;

import java.util.List;
import java.util.function.Supplier;

/**
 * The static description of a stage: its input topics (co-partitioned: task p reads partition p of
 * each), how to decode them, the operator chain (a fresh chain per task), where the results go and
 * where bad records go.
 */
public record Stage(
        String name,
        List<String> inputTopics,
        Codec sourceCodec,
        List<Supplier<Operator>> operators,
        String sinkTopic,
        Codec sinkCodec,
        String deadLetterTopic) {
    public Stage {
        inputTopics = List.copyOf(inputTopics);
        operators = List.copyOf(operators);
        if (inputTopics.isEmpty()) {
            throw new IllegalArgumentException("stage " + name + " needs at least one input topic");
        }
    }

    /** The task name of partition p: stable across restarts, it keys the task's checkpoints. */
    public String taskName(int partition) {
        return name + "-" + partition;
    }
}
