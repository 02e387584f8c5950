package io.weir.dataflow;

import java.util.concurrent.atomic.LongAdder;

/**
 * Records in, out and dead-lettered, summed over the tasks of an instance. The metrics binders and
 * the dev console read them; the tasks only add.
 */
public final class Counters {
    public final LongAdder recordsIn = new LongAdder();
    public final LongAdder recordsOut = new LongAdder();
    public final LongAdder deadLetters = new LongAdder();
    /** Records a filter, a dedupe or a route without a default dropped on purpose. */
    public final LongAdder dropped = new LongAdder();
    /** Dead letters whose key or value was cut or dropped to fit the dead-letter topic's limit. */
    public final LongAdder oversizedDeadLetters = new LongAdder();
    /** Records whose window had closed, sent to the late topic or the dead-letter topic. */
    public final LongAdder late = new LongAdder();
}
