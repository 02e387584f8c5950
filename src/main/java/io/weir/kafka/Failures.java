package io.weir.kafka;

import io.weir.dataflow.OperatorOpenException;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

/**
 * How a run's failure is handled: which no restart can fix, which only lost a race with a rebalance
 * (restored at once), and what to tell the operator about them.
 */
final class Failures {
    private Failures() {}

    /**
     * Whether {@code t} (or a cause of it) is beyond a restart: a second member with this
     * group.instance.id, missing permissions, or an operator that cannot open. A producer fenced by a transaction timeout is not:
     * new producers recover from it.
     */
    static boolean isFatal(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof FencedInstanceIdException
                    || c instanceof TransactionalIdAuthorizationException
                    || c instanceof GroupAuthorizationException
                    || c instanceof OperatorOpenException) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code t} (or a cause of it) says a second process joined the group under this instance id. */
    static boolean fencedInstance(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof FencedInstanceIdException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code t} is a transactional offset commit the group refused for its member data: the
     * group moved to a new generation (another member joined or left) while a checkpoint's offsets
     * were on their way with the old one — a race, nothing is broken — or it dropped this member
     * (the client reports both the same way). The transaction is aborted either way; the run
     * restores at once, and a dropped member's next poll ends it when it learns its partitions
     * are lost.
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
