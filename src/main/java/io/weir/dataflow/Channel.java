package io.weir.dataflow;

import io.weir.element.Element;
import io.weir.element.Record;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One input partition of a task: a bounded queue of elements from the source loop to the task.
 *
 * <p>Threading: single producer (the source loop writes), single consumer (the task's worker
 * reads). The bound counts records only: a barrier or watermark is always accepted, so injecting a
 * barrier never waits for a slow task — it simply queues behind the records already there, which is
 * exactly the "barriers never overtake records" rule.
 */
public final class Channel {
    /** Elements per chunk of the queue; the slot after them links the next chunk. */
    private static final int CHUNK = 512;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final VarHandle RECORDS_PUT;
    private static final VarHandle RECORDS_TAKEN;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            RECORDS_PUT = l.findVarHandle(Channel.class, "recordsPut", long.class);
            RECORDS_TAKEN = l.findVarHandle(Channel.class, "recordsTaken", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int index;
    private final String name;
    private final int capacity;
    private volatile boolean behind;

    // The queue: chunks of slots, the writer filling one while the reader empties an earlier one. A
    // slot is published with a release store and read with an acquire load (null: nothing yet), so
    // neither side ever waits for or writes to what the other side writes: no node per element and
    // no compare-and-set, as in a general concurrent queue.
    /** Writer side. */
    private Object[] writeChunk = new Object[CHUNK + 1];

    private int writeAt;
    /** Reader side. */
    private Object[] readChunk = writeChunk;

    private int readAt;

    /** Records put, by the writer (release stores); records taken, by the reader (volatile stores). */
    @SuppressWarnings("unused") // through RECORDS_PUT
    private long recordsPut;

    @SuppressWarnings("unused") // through RECORDS_TAKEN
    private long recordsTaken;

    /** Set by the writer when it holds records back; cleared by the reader when it wakes the writer. */
    private final AtomicBoolean writerWaiting = new AtomicBoolean();

    private volatile Runnable wakeWriter = () -> {};

    public Channel(int index, String name, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("channel capacity must be at least 1, was " + capacity);
        }
        this.index = index;
        this.name = name;
        this.capacity = capacity;
    }

    /** Position of this channel among its task's inputs. */
    public int index() {
        return index;
    }

    /** The source partition this channel carries, for messages and dead letters. */
    public String name() {
        return name;
    }

    /** Writer side: how many more records fit; the source loop pauses the partition at zero. */
    public int remainingCapacity() {
        long inside = (long) RECORDS_PUT.getOpaque(this) - (long) RECORDS_TAKEN.getVolatile(this);
        return (int) Math.max(0, capacity - inside);
    }

    /** Writer side: appends an element; records beyond the capacity are still accepted. */
    public void put(Element element) {
        if (writeAt == CHUNK) {
            Object[] next = new Object[CHUNK + 1];
            SLOT.setRelease(writeChunk, CHUNK, next);
            writeChunk = next;
            writeAt = 0;
        }
        if (element instanceof Record) {
            RECORDS_PUT.setRelease(this, (long) RECORDS_PUT.get(this) + 1);
        }
        SLOT.setRelease(writeChunk, writeAt++, element);
    }

    /** Reader side: the head without removing it, or null. */
    public Element peek() {
        if (readAt == CHUNK) {
            Object[] next = (Object[]) SLOT.getAcquire(readChunk, CHUNK);
            if (next == null) {
                return null;
            }
            readChunk = next;
            readAt = 0;
        }
        return (Element) SLOT.getAcquire(readChunk, readAt);
    }

    /** Reader side: removes and returns the head, or null. */
    public Element poll() {
        Element e = peek();
        if (e == null) {
            return null;
        }
        readChunk[readAt++] = null; // the writer never looks back at a slot it filled
        if (e instanceof Record) {
            long taken = (long) RECORDS_TAKEN.get(this) + 1;
            // A volatile store, then the load of writerWaiting: with the writer's store of
            // writerWaiting and its load of recordsTaken (wakeWhenDrained), one of the two sees
            // the other, so no wake-up is lost.
            RECORDS_TAKEN.setVolatile(this, taken);
            if (writerWaiting.get()
                    && (long) RECORDS_PUT.getAcquire(this) - taken <= capacity / 2
                    && writerWaiting.compareAndSet(true, false)) {
                wakeWriter.run();
            }
        }
        return e;
    }

    /**
     * Writer side: asks to be woken (by {@code wake}, on the reader's thread) once the channel has
     * drained to half its capacity. Returns false when it already has, so no wake-up is lost.
     */
    public boolean wakeWhenDrained(Runnable wake) {
        wakeWriter = wake;
        writerWaiting.set(true);
        if ((long) RECORDS_PUT.get(this) - (long) RECORDS_TAKEN.getVolatile(this) <= capacity / 2) {
            writerWaiting.set(false);
            return false;
        }
        return true;
    }

    /**
     * Writer side: whether the partition has records on the broker that are not in the channel yet
     * (or whether it does is not known yet). A task with several inputs does not take a record from
     * another input while such an input is empty, so that it reads them in timestamp order. Returns
     * whether the flag changed.
     */
    public boolean behind(boolean behind) {
        if (this.behind == behind) {
            return false;
        }
        this.behind = behind;
        return true;
    }

    /** Reader side: see {@link #behind(boolean)}. */
    public boolean behind() {
        return behind;
    }

    /** Reader side: whether nothing is queued. */
    public boolean isEmpty() {
        return peek() == null;
    }

    @Override
    public String toString() {
        return name;
    }
}
