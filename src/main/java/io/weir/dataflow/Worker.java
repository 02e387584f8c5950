package io.weir.dataflow;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A worker thread's loop over the fixed set of tasks it owns: round-robin batches, parking when no
 * task had anything to do. The source loop wakes it when it fills one of its channels.
 *
 * <p>Threading: {@link #run} is the owner thread of all its tasks; {@link #wake} and {@link #stop}
 * may be called from any thread.
 */
public final class Worker implements Runnable {
    private static final int BATCH = 512;
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final String name;
    private final List<Task> tasks;
    private final Consumer<Throwable> onFailure;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile Thread thread;

    public Worker(String name, List<Task> tasks, Consumer<Throwable> onFailure) {
        this.name = name;
        this.tasks = List.copyOf(tasks);
        this.onFailure = onFailure;
    }

    public String name() {
        return name;
    }

    public List<Task> tasks() {
        return tasks;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            while (running) {
                int done = 0;
                for (Task task : tasks) {
                    done += task.run(BATCH);
                }
                if (done == 0 && running) {
                    LockSupport.parkNanos(this, IDLE_PARK_NANOS);
                }
            }
        } catch (Throwable t) {
            if (running) {
                running = false;
                onFailure.accept(t);
            }
        } finally {
            finished.countDown();
        }
    }

    public void wake() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Asks the loop to end after its current batch; {@link #awaitStopped} waits for it. */
    public void requestStop() {
        running = false;
        wake();
    }

    public void awaitStopped() throws InterruptedException {
        finished.await();
    }

    public boolean awaitStopped(java.time.Duration timeout) throws InterruptedException {
        return finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Ends the loop without waiting; for a worker that was never started. */
    public void markFinished() {
        running = false;
        finished.countDown();
    }
}
