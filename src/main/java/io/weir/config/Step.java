package io.weir.config;

/**
 * One step of a pipeline, written in the file as a single-key mapping (or, for {@code filter} and
 * the short {@code key-by}, a key with a CEL expression) whose key is the step's {@link #type()}.
 * A pipeline is a {@link SourceStep}, then {@link OperatorStep}s, then a {@link TerminalStep};
 * new kinds of steps join the model as further records permitted by these sealed interfaces, so
 * code switching over steps is told by the compiler where they need handling.
 */
public sealed interface Step permits SourceStep, OperatorStep, TerminalStep {

    /** The key naming this step in the file, such as {@code aggregate}. */
    String type();
}
