package io.weir.operators;

import java.util.ArrayList;
import java.util.List;

/**
 * Which event-time windows a record belongs to. Windows are half-open, {@code [start, end)}, in
 * epoch milliseconds. Tumbling windows are hopping windows whose advance is their size; both are
 * aligned to the epoch (a window starts at a multiple of the advance). A session window of a key
 * starts at a record and ends {@code gap} after the last record within it: a record at most
 * {@code gap} after a session's last record (or before its first) joins it, merging sessions it
 * bridges — sessions that touch merge, as in Flink and Kafka Streams, so two records exactly
 * {@code gap} apart are one session.
 */
public record Windows(Kind kind, long size, long advance, long gap) {
    /** The window types of the configuration. */
    public enum Kind {
        TUMBLING,
        HOPPING,
        SESSION
    }

    public Windows {
        if (kind == Kind.SESSION ? gap <= 0 : size <= 0 || advance <= 0 || advance > size) {
            throw new IllegalArgumentException("windows need a positive size, a positive advance of at most the size,"
                    + " or a positive gap; was " + kind + " size " + size + " advance " + advance + " gap " + gap);
        }
    }

    public static Windows tumbling(long size) {
        return new Windows(Kind.TUMBLING, size, size, 0);
    }

    public static Windows hopping(long size, long advance) {
        return new Windows(Kind.HOPPING, size, advance, 0);
    }

    public static Windows session(long gap) {
        return new Windows(Kind.SESSION, 0, 0, gap);
    }

    /**
     * The start of every fixed window (tumbling or hopping) holding {@code ts}, latest first; each
     * ends at start + size. Sessions are not fixed: see {@link #sessionOf}.
     */
    public List<Long> starts(long ts) {
        if (kind == Kind.SESSION) {
            throw new IllegalStateException("session windows are not fixed");
        }
        List<Long> starts = new ArrayList<>((int) Math.min(size / advance + 1, 1024));
        long last = ts - Math.floorMod(ts, advance);
        for (long start = last; start > ts - size; start -= advance) {
            starts.add(start);
        }
        return starts;
    }

    /** The session a record at {@code ts} opens on its own: {@code [ts, ts + gap)}. */
    public long[] sessionOf(long ts) {
        return new long[] {ts, saturatedAdd(ts, gap)};
    }

    /**
     * Whether session {@code [start, end)} and the new one of a record at {@code ts},
     * {@code [ts, ts + gap)}, merge: when they overlap or touch.
     */
    public boolean joins(long start, long end, long ts) {
        return start <= saturatedAdd(ts, gap) && ts <= end;
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
    }
}
