package io.weir.dataflow;

import io.weir.element.Element;
import io.weir.element.Record;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One input partition of a task: a bounded queue of elements from the source loop to the task.
 *
 * <p>Threading: single producer (the source loop writes), single consumer (the task's worker
 * reads). The bound counts records only: a barrier or watermark is always accepted, so injecting a
 * barrier never waits for a slow task — it simply queues behind the records already there, which is
 * exactly the "barriers never overtake records" rule.
 */
public final class Channel {
    private final int index;
    private final String name;
    private final int capacity;
    private volatile boolean behind;
    private final ConcurrentLinkedQueue<Element> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger records = new AtomicInteger();
    /** Set by the writer when it holds records back; cleared by the reader when it wakes the writer. */
    private final java.util.concurrent.atomic.AtomicBoolean writerWaiting =
            new java.util.concurrent.atomic.AtomicBoolean();

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

    /** How many more records fit; the source loop pauses the partition at zero. */
    public int remainingCapacity() {
        return Math.max(0, capacity - records.get());
    }

    /** Writer side: appends an element; records beyond the capacity are still accepted. */
    public void put(Element element) {
        if (element instanceof Record) {
            records.incrementAndGet();
        }
        queue.add(element);
    }

    /** Reader side: the head without removing it, or null. */
    public Element peek() {
        return queue.peek();
    }

    /** Reader side: removes and returns the head, or null. */
    public Element poll() {
        Element e = queue.poll();
        if (e instanceof Record
                && records.decrementAndGet() <= capacity / 2
                && writerWaiting.get()
                && writerWaiting.compareAndSet(true, false)) {
            wakeWriter.run();
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
        if (records.get() <= capacity / 2) {
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

    public boolean isEmpty() {
        return queue.isEmpty();
    }

    @Override
    public String toString() {
        return name;
    }
}
