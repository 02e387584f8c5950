package io.weir.state;

/** The checkpoint a task's state is restored from: its id and the handle naming its files. */
public record RestorePoint(String task, long checkpointId, StateHandle handle) {
    public RestorePoint {
        if (checkpointId <= 0) {
            throw new IllegalArgumentException("checkpoint id must be positive, was " + checkpointId);
        }
    }
}
