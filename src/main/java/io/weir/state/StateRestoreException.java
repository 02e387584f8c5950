package io.weir.state;

import java.io.IOException;

/**
 * A task's state cannot be restored from its checkpoint: a file is missing or corrupt, or the
 * checkpoint was written by a backend that cannot read it. The message names the task, the
 * checkpoint and the file, because the user has to act on it; restoring never falls back to empty
 * state, which would silently lose everything before the checkpoint.
 */
public final class StateRestoreException extends IOException {
    public StateRestoreException(RestorePoint from, String file, String problem, Throwable cause) {
        super(
                "cannot restore task " + from.task() + " from checkpoint " + from.checkpointId()
                        + (file == null ? "" : ", file " + file) + ": " + problem,
                cause);
    }
}
