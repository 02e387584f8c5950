package io.weir.checkpoint;

/** Why a checkpoint was aborted. Every abort fails the execution over to the last completed one. */
public enum FailureReason {
    TIMEOUT,
    SNAPSHOT_FAILED,
    COMMIT_FAILED,
    TASK_FAILED
}
