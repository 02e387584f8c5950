package io.weir.dataflow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weir.api.Output;
import io.weir.api.Processor;
import io.weir.api.ProcessorContext;
import io.weir.api.Record;
import io.weir.api.TimerEvent;
import io.weir.api.ValueState;
import io.weir.operators.ProcessOperator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** A custom operator's timers in a real {@link Task}: they fire to it, with its key and state. */
class ProcessOperatorTimersTest {

    /** Counts records per key; a timer {@code delay} after the first record emits and clears the count. */
    public static final class CountThenReport implements Processor {
        private final TimerEvent.Domain domain;
        private ProcessorContext context;
        private ValueState<Long> count;

        CountThenReport(TimerEvent.Domain domain) {
            this.domain = domain;
        }

        @Override
        public void open(ProcessorContext context) {
            this.context = context;
            count = context.valueState("count", Long.class);
        }

        @Override
        public void process(Record record, Output out) {
            Long before = count.value();
            count.update(before == null ? 1 : before + 1);
            if (before == null) {
                long delay = context.settings().duration("delay", Duration.ZERO).toMillis();
                if (domain == TimerEvent.Domain.EVENT_TIME) {
                    context.timers().registerEventTime(record.timestamp() + delay);
                } else {
                    context.timers().registerProcessingTime(context.currentProcessingTime() + delay);
                }
            }
        }

        @Override
        public void onTimer(TimerEvent timer, Output out) {
            out.emit(timer.key() + " " + count.value() + " " + timer.domain() + "@" + timer.timestamp());
            count.clear();
        }
    }

    private static TaskRig rig(TimerEvent.Domain domain) {
        Supplier<Operator> process = ProcessOperator.factory(
                "pipeline.1.process", () -> new CountThenReport(domain), Map.of("delay", "10ms"));
        return new TaskRig(1, true, 1, List.of(process));
    }

    @Test
    void eventTimeTimersFireWithTheirKeyAndItsState() throws Exception {
        TaskRig rig = rig(TimerEvent.Domain.EVENT_TIME);
        rig.record(0, "a", "x", 100);
        rig.record(0, "b", "y", 101);
        rig.record(0, "a", "z", 105);
        rig.drain();
        assertEquals(List.of(), rig.outputs.values(1, TaskRig.SINK));

        rig.watermark(0, 110);
        rig.drain();

        assertEquals(List.of("a 2 EVENT_TIME@110"), rig.outputs.values(1, TaskRig.SINK));
        rig.record(0, "a", "again", 120);
        rig.watermark(0, 200);
        rig.drain();
        assertEquals(
                List.of("a 2 EVENT_TIME@110", "b 1 EVENT_TIME@111", "a 1 EVENT_TIME@130"),
                rig.outputs.values(1, TaskRig.SINK));
    }

    @Test
    void processingTimeTimersFireFromTheTasksClock() throws Exception {
        TaskRig rig = rig(TimerEvent.Domain.PROCESSING_TIME);
        rig.clock.set(1_000);
        rig.record(0, "k", "v", 1);
        rig.drain();

        rig.clock.advance(Duration.ofMillis(10));
        rig.run(1);

        assertEquals(List.of("k 1 PROCESSING_TIME@1010"), rig.outputs.values(1, TaskRig.SINK));
    }
}
