package com.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FraudFlagTest {
    // Settings arrive from the job file as text.
    private static final Map<String, Object> WITH = Map.of("threshold", "1000", "max-orders", "2", "window", "1m");

    private static Map<String, Object> order(Object amount) {
        return Map.of("id", "o1", "amount", amount);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> last(FakeContext rig) {
        return (Map<String, Object>) rig.emitted.get(rig.emitted.size() - 1).value();
    }

    @Test
    void anAmountAboveTheThresholdIsFlaggedAndTheOrderKeepsItsFields() throws Exception {
        FakeContext rig = new FakeContext(new FraudFlag(), WITH);

        rig.process("alice", order(1500L), 1_000);

        Map<String, Object> out = last(rig);
        assertEquals("o1", out.get("id"));
        assertEquals(1500L, out.get("amount"));
        assertEquals(true, out.get("flagged"));
        assertEquals(List.of("amount 1500 is above 1000"), out.get("reasons"));
        assertEquals(1_000, rig.emitted.get(0).timestamp());
    }

    @Test
    void anOrdinaryOrderIsEmittedUnflagged() throws Exception {
        FakeContext rig = new FakeContext(new FraudFlag(), WITH);

        rig.process("alice", order(20.5), 1_000);

        assertEquals(false, last(rig).get("flagged"));
        assertEquals(List.of(), last(rig).get("reasons"));
    }

    @Test
    void tooManyOrdersOfOneCustomerWithinTheWindowAreFlaggedPerCustomer() throws Exception {
        FakeContext rig = new FakeContext(new FraudFlag(), WITH);

        rig.process("alice", order(10L), 0);
        rig.process("bob", order(10L), 1_000);
        rig.process("alice", order(10L), 30_000);
        assertEquals(false, last(rig).get("flagged"));
        rig.process("alice", order(10L), 59_999);

        assertEquals(true, last(rig).get("flagged"));
        assertEquals(List.of("3 orders within 60000 ms, more than 2"), last(rig).get("reasons"));
        rig.process("bob", order(10L), 59_999);
        assertEquals(false, last(rig).get("flagged"), "bob's orders are counted apart from alice's");
    }

    @Test
    void ordersThatLeftTheWindowNoLongerCountAndTheirStateIsDropped() throws Exception {
        FakeContext rig = new FakeContext(new FraudFlag(), WITH);
        rig.process("alice", order(10L), 0);
        rig.process("alice", order(10L), 10_000);

        rig.advanceWatermark(70_000);

        assertFalse(rig.hasState("recent-orders", "alice"), "every order left the window");
        assertEquals(0, rig.pendingTimers());
        rig.process("alice", order(10L), 80_000);
        assertEquals(false, last(rig).get("flagged"));
        assertTrue(rig.hasState("recent-orders", "alice"));
    }

    @Test
    void anOrderWithoutANumericAmountIsRefusedBeforeStateChanges() throws Exception {
        FakeContext rig = new FakeContext(new FraudFlag(), WITH);

        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> rig.process("alice", order("lots"), 0));

        assertTrue(e.getMessage().contains("needs a numeric 'amount', was lots"), e.getMessage());
        assertFalse(rig.hasState("recent-orders", "alice"));
        assertEquals(List.of(), rig.emitted);
    }

    @Test
    void aWrongSettingStopsTheStartNamingIt() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> new FakeContext(new FraudFlag(), Map.of("window", "soon")));

        assertTrue(e.getMessage().contains("setting 'window' is 'soon'"), e.getMessage());
    }
}
