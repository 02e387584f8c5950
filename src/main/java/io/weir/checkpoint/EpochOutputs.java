package io.weir.checkpoint;

/** The open epochs' outputs, looked up by epoch when a task crosses a barrier. */
public interface EpochOutputs {
    /** The output of an open epoch; an epoch is opened before the barrier that starts it is injected. */
    EpochOutput output(long epoch);
}
