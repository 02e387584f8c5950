package io.weir.ops;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weir.app.InstanceEvents;
import io.weir.checkpoint.CheckpointStats;
import io.weir.checkpoint.FailureReason;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The last {@code capacity} checkpoints of an instance, newest first, as {@code /checkpoints} shows
 * them: in progress, completed (with phases and sizes), failed or skipped. A skipped id is reused by
 * the next trigger, which replaces its entry, so an idle job does not push real checkpoints out.
 *
 * <p>Threading: written by the coordinator's thread, read by the HTTP server's; synchronised.
 */
public final class CheckpointHistory implements InstanceEvents {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final int capacity;
    private final LongSupplier clock;
    private final Deque<Entry> entries = new ArrayDeque<>();
    private CheckpointStats lastCompleted;
    private long lastCompletedAt = -1;
    private long lastSettledAt = -1;

    private static final class Entry {
        final long id;
        final long startedAt;
        String status = "in-progress";
        CheckpointStats stats;
        String failure;

        Entry(long id, long startedAt) {
            this.id = id;
            this.startedAt = startedAt;
        }
    }

    public CheckpointHistory(int capacity, LongSupplier clock) {
        this.capacity = capacity;
        this.clock = clock;
    }

    @Override
    public synchronized void checkpointTriggered(long checkpointId, long startedAt) {
        Entry newest = entries.peekFirst();
        if (newest != null && newest.id == checkpointId && newest.status.equals("skipped")) {
            entries.removeFirst();
        }
        entries.addFirst(new Entry(checkpointId, startedAt));
        while (entries.size() > capacity) {
            entries.removeLast();
        }
    }

    @Override
    public synchronized void checkpointSkipped(long checkpointId, boolean idle) {
        find(checkpointId).ifPresent(e -> e.status = "skipped");
        if (idle) {
            lastSettledAt = clock.getAsLong();
        }
    }

    @Override
    public synchronized void checkpointCompleted(CheckpointStats stats) {
        find(stats.checkpointId()).ifPresent(e -> {
            e.status = "completed";
            e.stats = stats;
        });
        lastCompleted = stats;
        lastCompletedAt = clock.getAsLong();
        lastSettledAt = lastCompletedAt;
    }

    @Override
    public synchronized void checkpointFailed(long checkpointId, FailureReason reason, Throwable cause) {
        find(checkpointId).ifPresent(e -> {
            e.status = "failed";
            e.failure = reason + ": " + cause.getMessage();
        });
    }

    @Override
    public synchronized void failedOver(Throwable cause) {
        // Checkpoints the failed execution left in flight will never finish.
        for (Entry e : entries) {
            if (e.status.equals("in-progress")) {
                e.status = "failed";
                e.failure = "aborted by failover: " + cause.getMessage();
            }
        }
    }

    private Optional<Entry> find(long id) {
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.id == id) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** The newest completed checkpoint, if any. */
    public synchronized Optional<CheckpointStats> lastCompleted() {
        return Optional.ofNullable(lastCompleted);
    }

    /** When the newest checkpoint completed (clock millis), or -1. */
    public synchronized long lastCompletedAt() {
        return lastCompletedAt;
    }

    /**
     * When checkpointing last showed it works: a checkpoint completed, or one was skipped because
     * nothing new was read (an idle job commits nothing) while no earlier one was in flight. -1
     * before either happened.
     */
    public synchronized long lastSettledAt() {
        return lastSettledAt;
    }

    /** The JSON document of {@code /checkpoints}. */
    public synchronized String json() {
        ObjectNode root = JSON.createObjectNode();
        if (lastCompleted != null) {
            root.put("lastCompletedId", lastCompleted.checkpointId());
            root.put("lastCompletedAgeMillis", clock.getAsLong() - lastCompletedAt);
        }
        ArrayNode list = root.putArray("checkpoints");
        for (Entry e : entries) {
            ObjectNode n = list.addObject();
            n.put("id", e.id);
            n.put("status", e.status);
            n.put("startTime", java.time.Instant.ofEpochMilli(e.startedAt).toString());
            if (e.stats != null) {
                CheckpointStats s = e.stats;
                ObjectNode d = n.putObject("durationsMillis");
                d.put("alignment", s.alignmentMillis());
                d.put("sync", s.syncMillis());
                d.put("upload", s.uploadMillis());
                d.put("commit", s.commitMillis());
                d.put("total", s.totalMillis());
                n.put("uploadedBytes", s.uploadedBytes());
                ObjectNode sizes = n.putObject("stateBytes");
                new TreeMap<>(s.stateBytes()).forEach(sizes::put);
            }
            if (e.failure != null) {
                n.put("failure", e.failure);
            }
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot write the checkpoint history", e);
        }
    }
}
