package io.weir.dataflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.element.InputPartition;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A lookup's table is an unaligned input in exactly-once alignment: past its barrier it goes on in
 * time order with the stream's records before theirs, within a bound, and the dead letters of its
 * records past the cut belong to the next epoch.
 */
class UnalignedTableTest {
    /** Notes each record it sees (table records as "t:value", stream records as "s:value"); refuses "bad". */
    private static final class Seen implements Operator {
        final List<String> seen;
        private OperatorContext context;

        Seen(List<String> seen) {
            this.seen = seen;
        }

        @Override
        public void open(OperatorContext context) {
            this.context = context;
        }

        @Override
        public void process(Event event, Collector out) {
            InputPartition input = context.currentInput();
            boolean table = input != null && input.topic().equals("table");
            if ("bad".equals(event.value())) {
                throw new BadRecordException("a bad table record");
            }
            seen.add((table ? "t:" : "s:") + event.value());
        }
    }

    private static TaskRig rig(List<String> seen) {
        return new TaskRig(2, true, 1, List.of(() -> new Seen(seen)), true);
    }

    @Test
    void tableRecordsEarlierThanTheStreamAfterTheTablesBarrierComeBeforeTheStreamsRecordsBeforeTheirs()
            throws Exception {
        List<String> seen = new ArrayList<>();
        TaskRig rig = rig(seen);
        // The first barrier went in before the table's first records arrived.
        rig.barrier(1, 1);
        rig.record(1, "k", "v1", 50);
        rig.record(1, "k", "v2", 60);
        rig.record(0, "k", "o1", 100);
        rig.barrier(0, 1);
        rig.record(0, "k", "o2", 200);
        rig.drain();
        assertEquals(List.of("t:v1", "t:v2", "s:o1", "s:o2"), seen, "in time order across the table's cut");
        assertEquals(List.of(1L), rig.acks.ids(), "the table's barrier counted for the snapshot");
    }

    @Test
    void theTableWaitsAtItsNextBarrierAndOnceFarPastTheCut() throws Exception {
        List<String> seen = new ArrayList<>();
        TaskRig rig = rig(seen);
        rig.barrier(1, 1);
        for (int i = 0; i < InputOrder.MAX_PAST_CUT + 5; i++) {
            rig.record(1, "k", "v" + i, i);
        }
        rig.barrier(1, 2);
        rig.record(0, "k", "o1", Long.MAX_VALUE - 1);
        rig.barrier(0, 1);
        rig.drain();
        int o1 = seen.indexOf("s:o1");
        assertEquals(
                InputOrder.MAX_PAST_CUT, o1, "the table stopped after the bound; the stream went on to its barrier");
        assertEquals(List.of(1L), rig.acks.ids());
        assertEquals(InputOrder.MAX_PAST_CUT + 6, seen.size(), "after the snapshot the table went on");

        List<String> early = new ArrayList<>();
        TaskRig next = rig(early);
        next.barrier(1, 1);
        next.barrier(1, 2);
        next.record(1, "k", "late", 10);
        next.record(0, "k", "o1", 100);
        next.drain();
        assertEquals(List.of("s:o1"), early, "barrier 2 waits at the table's head while 1 aligns");
        next.barrier(0, 1);
        next.drain();
        assertEquals(List.of("s:o1", "t:late"), early);
        assertEquals(List.of(1L), next.acks.ids());
    }

    @Test
    void aTableRecordsDeadLetterPastTheCutGoesToTheNextEpoch() throws Exception {
        List<String> seen = new ArrayList<>();
        TaskRig rig = rig(seen);
        rig.record(1, "k", "bad", 10); // before the cut: epoch 1
        rig.barrier(1, 1);
        rig.record(1, "k", "bad", 20); // after it: read again after a restore of checkpoint 1
        rig.record(0, "k", "o1", 100);
        rig.barrier(0, 1);
        rig.drain();
        assertEquals(1, rig.outputs.values(1, TaskRig.DEAD_LETTERS).size(), "epoch 1: the one before the cut");
        assertEquals(1, rig.outputs.values(2, TaskRig.DEAD_LETTERS).size(), "epoch 2: the one after it");
        assertTrue(seen.contains("s:o1"));
    }

    @Test
    void onATieTheTableGoesFirstSoAStreamRecordSeesTheVersionOfItsOwnMillisecond() throws Exception {
        List<String> seen = new ArrayList<>();
        TaskRig rig = rig(seen);
        rig.record(0, "k", "o1", 100);
        rig.record(1, "k", "v1", 100);
        rig.drain();
        assertEquals(List.of("t:v1", "s:o1"), seen);
    }
}
