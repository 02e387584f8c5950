package io.weir.api;

/**
 * A custom operator: the code behind a {@code process} step of a pipeline.
 *
 * <pre>{@code
 * pipeline:
 *   - process: { class: com.example.FraudFlag, with: { threshold: 1000 } }
 * }</pre>
 *
 * <p>The runtime makes one instance per task (stage × input partition) through the class's public
 * no-argument constructor and calls it from that task's thread only, so an implementation needs no
 * synchronisation. It is keyed: every call happens for one record key, and the state it reads and
 * writes through {@link ProcessorContext} is that key's. Keep everything that must survive a restart
 * in that state (it is checkpointed with the task, exactly once); fields of the instance are lost on
 * every restart, rebalance and failover.
 *
 * <p>What a call of {@link #process} or {@link #onTimer} emits goes on to the next step when the
 * call returns. An exception thrown by {@link #process} sends the record to the job's dead-letter
 * topic, drops what the call emitted, and processing goes on with the next record. State changes
 * made before the throw stay, so check a record completely before changing state. An exception
 * thrown by {@link #open} stops the job.
 */
public interface Processor {
    /**
     * Called once before the first record: keep the context, create the state handles, read the
     * settings (and refuse wrong ones by throwing, which stops the job with that message). The
     * runtime also opens one instance at the start to check the step, with state of its own that
     * it then throws away, so keep this to settings and state handles.
     */
    default void open(ProcessorContext context) throws Exception {}

    /** Processes one record; emits zero or more values for the record's key through {@code out}. */
    void process(Record record, Output out) throws Exception;

    /**
     * A timer this processor registered fired for {@link TimerEvent#key()}; state calls now read and
     * write that key's state. An exception thrown here is logged and the timer's output is lost.
     */
    default void onTimer(TimerEvent timer, Output out) throws Exception {}
}
