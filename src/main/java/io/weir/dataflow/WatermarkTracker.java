package io.weir.dataflow;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The event time of one task: a watermark per input channel and the task's, the lowest over the
 * channels that are not idle. It never goes back.
 *
 * <p>A channel of a source stage has the highest timestamp read from it minus the allowed disorder;
 * it is idle once it delivered nothing for {@code idleAfterMs} of processing time, and active again
 * with its next record. A channel of a repartition topic has the lowest watermark among the
 * upstream tasks' markers, once it heard from all of them (each marker says how many there are),
 * leaving out those that said they are idle; when all are idle, so is the channel. While every
 * channel is idle the watermark stays where it is.
 *
 * <p>Its content is part of the task's checkpoint ({@link #snapshot}, {@link #restore}), keyed by
 * channel name, so a restart neither closes a window twice nor forgets how far time went.
 * Threading: the task's.
 */
final class WatermarkTracker {
    /** The watermark an upstream task sends while all its inputs are idle. */
    static final long IDLE = Long.MAX_VALUE;

    private final String[] names;
    private final long boundMs;
    private final long idleAfterMs;
    private final long[] channelWatermark;
    private final long[] lastInputAt;
    private final boolean[] idle;
    private final boolean[] excluded;
    private final int[] upstreamTasks;
    private final Map<String, Long>[] upstream;
    private long watermark = Long.MIN_VALUE;

    @SuppressWarnings("unchecked")
    WatermarkTracker(String[] channelNames, long boundMs, long idleAfterMs, long now) {
        this.names = channelNames.clone();
        this.boundMs = boundMs;
        this.idleAfterMs = idleAfterMs;
        int n = names.length;
        channelWatermark = new long[n];
        Arrays.fill(channelWatermark, Long.MIN_VALUE);
        lastInputAt = new long[n];
        Arrays.fill(lastInputAt, now);
        idle = new boolean[n];
        excluded = new boolean[n];
        upstreamTasks = new int[n];
        upstream = new Map[n];
        for (int i = 0; i < n; i++) {
            upstream[i] = new HashMap<>();
        }
    }

    /**
     * Leaves {@code channel} out of the watermark for good (a lookup's table: it changes now and
     * then and must never stall event time); its records are not timed.
     */
    void exclude(int channel) {
        excluded[channel] = true;
        idle[channel] = true;
    }

    long watermark() {
        return watermark;
    }

    /** Whether every channel is idle: the task holds nobody back downstream. */
    boolean idle() {
        for (boolean i : idle) {
            if (!i) {
                return false;
            }
        }
        return true;
    }

    /** A record of event time {@code ts} was read from {@code channel}; true when the watermark advanced. */
    boolean onRecord(int channel, long ts, long now) {
        if (excluded[channel]) {
            return false;
        }
        lastInputAt[channel] = now;
        idle[channel] = false;
        long w = ts < Long.MIN_VALUE + boundMs ? Long.MIN_VALUE : ts - boundMs;
        channelWatermark[channel] = Math.max(channelWatermark[channel], w);
        return advance();
    }

    /** Data arrived on {@code channel} without a timestamp of its own (a bad record): it is active. */
    boolean onActivity(int channel, long now) {
        if (excluded[channel]) {
            return false;
        }
        lastInputAt[channel] = now;
        boolean wasIdle = idle[channel];
        idle[channel] = false;
        return wasIdle && advance();
    }

    /** A channel's watermark given directly; true when the task's advanced. */
    boolean onChannelWatermark(int channel, long w) {
        channelWatermark[channel] = Math.max(channelWatermark[channel], w);
        return advance();
    }

    /**
     * Upstream task {@code task}, one of {@code tasks}, says through {@code channel} that its
     * watermark is {@code w} ({@link #IDLE}: it is idle); true when the task's watermark advanced.
     */
    boolean onMarker(int channel, String task, int tasks, long w) {
        upstreamTasks[channel] = Math.max(upstreamTasks[channel], tasks);
        Map<String, Long> heard = upstream[channel];
        heard.merge(task, w, (old, now) -> now == IDLE || old == IDLE ? now : Math.max(old, now));
        if (heard.size() < upstreamTasks[channel]) {
            return false;
        }
        long min = IDLE;
        for (long v : heard.values()) {
            min = Math.min(min, v);
        }
        idle[channel] = min == IDLE;
        if (min != IDLE) {
            channelWatermark[channel] = Math.max(channelWatermark[channel], min);
        }
        return advance();
    }

    /** Marks channels idle that delivered nothing for idle-after; true when the watermark advanced. */
    boolean checkIdle(long now) {
        if (idleAfterMs <= 0) {
            return false;
        }
        boolean changed = false;
        for (int i = 0; i < names.length; i++) {
            if (!idle[i] && upstreamTasks[i] == 0 && now - lastInputAt[i] >= idleAfterMs) {
                idle[i] = true;
                changed = true;
            }
        }
        return changed && advance();
    }

    private boolean advance() {
        long min = Long.MAX_VALUE;
        boolean any = false;
        for (int i = 0; i < names.length; i++) {
            if (!idle[i]) {
                any = true;
                min = Math.min(min, channelWatermark[i]);
            }
        }
        if (!any || min <= watermark) {
            return false;
        }
        watermark = min;
        return true;
    }

    /** The watermarks as bytes, for the task's checkpoint. */
    byte[] snapshot() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(watermark);
            out.writeInt(names.length);
            for (int i = 0; i < names.length; i++) {
                out.writeUTF(names[i]);
                out.writeLong(channelWatermark[i]);
                out.writeInt(upstreamTasks[i]);
                Map<String, Long> heard = new TreeMap<>(upstream[i]);
                out.writeInt(heard.size());
                for (Map.Entry<String, Long> e : heard.entrySet()) {
                    out.writeUTF(e.getKey());
                    out.writeLong(e.getValue());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * {@code snapshot} (null: none, as of a task that never had one) with its task watermark raised
     * to at least {@code floor}; its channels as they were.
     */
    static byte[] raised(byte[] snapshot, long floor) {
        if (snapshot == null) {
            return java.nio.ByteBuffer.allocate(12).putLong(floor).putInt(0).array();
        }
        byte[] out = snapshot.clone();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(out);
        b.putLong(0, Math.max(b.getLong(0), floor));
        return out;
    }

    /** The task watermark a {@link #snapshot} holds. */
    static long watermarkOf(byte[] snapshot) {
        return java.nio.ByteBuffer.wrap(snapshot).getLong();
    }

    /** Restores what {@link #snapshot} wrote; channels it does not name start from nothing. */
    void restore(byte[] snapshot) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(snapshot))) {
            watermark = in.readLong();
            int n = in.readInt();
            for (int k = 0; k < n; k++) {
                String name = in.readUTF();
                long w = in.readLong();
                int tasks = in.readInt();
                int heard = in.readInt();
                Map<String, Long> marks = new HashMap<>();
                for (int j = 0; j < heard; j++) {
                    marks.put(in.readUTF(), in.readLong());
                }
                int i = Arrays.asList(names).indexOf(name);
                if (i >= 0) {
                    channelWatermark[i] = w;
                    upstreamTasks[i] = tasks;
                    upstream[i].putAll(marks);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the task's watermarks in its checkpoint are corrupt", e);
        }
    }
}
