package io.weir.kafka;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

/** Which failures of a run no restart can fix, and what to tell the operator about them. */
final class Failures {
    private Failures() {}

    /**
     * Whether {@code t} (or a cause of it) is beyond a restart: a second member with this
     * group.instance.id, or missing permissions. A producer fenced by a transaction timeout is not:
     * new producers recover from it.
     */
    static boolean isFatal(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof FencedInstanceIdException
                    || c instanceof TransactionalIdAuthorizationException
                    || c instanceof GroupAuthorizationException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code t} is a commit that lost a race with a rebalance: the group moved to a new
     * generation (another member joined or left) while a checkpoint's offsets were on their way
     * with the old one. The transaction is aborted, but nothing is broken: the run restores at once.
     */
    static boolean lostToARebalance(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof CommitFailedException) {
                return true;
            }
        }
        return false;
    }

    /** A hint for the log line of a fatal failure, or "". */
    static String hint(Throwable t) {
        return t instanceof FencedInstanceIdException
                ? " (another process joined the group with this instance-id: give every instance its own"
                        + " instance-id, e.g. the pod name)"
                : "";
    }
}
