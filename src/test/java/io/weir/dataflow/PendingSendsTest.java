package io.weir.dataflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.EpochOutput;
import io.weir.element.Header;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class PendingSendsTest {
    /** Records the values sent; the send numbered {@code failAt} fails the way {@code throwing} says. */
    private static final class Output implements EpochOutput {
        final List<String> sent = new ArrayList<>();
        final int failAt;
        final boolean throwing;

        Output(int failAt, boolean throwing) {
            this.failAt = failAt;
            this.throwing = throwing;
        }

        @Override
        public long epoch() {
            return 1;
        }

        @Override
        public void send(
                String topic,
                byte[] key,
                byte[] value,
                long timestamp,
                List<Header> headers,
                Consumer<Exception> onFailure) {
            sent.add(new String(value, StandardCharsets.UTF_8));
            if (sent.size() == failAt) {
                IllegalStateException e = new IllegalStateException("broker unreachable");
                if (throwing) {
                    throw e;
                }
                onFailure.accept(e); // as a producer's callback reports a send that timed out
            }
        }

        @Override
        public void flush() {}
    }

    private static PendingSends holding(int n) {
        PendingSends pending = new PendingSends();
        for (int i = 0; i < n; i++) {
            pending.add("out", -1, null, Integer.toString(i).getBytes(StandardCharsets.UTF_8), i, List.of());
        }
        return pending;
    }

    @Test
    void aBurstSendsEverythingHeldInOrder() {
        PendingSends pending = holding(300);
        Output output = new Output(-1, false);
        AtomicReference<Exception> failed = new AtomicReference<>();

        pending.sendTo(output, e -> failed.compareAndSet(null, e), failed);

        assertEquals(300, output.sent.size());
        for (int i = 0; i < 300; i++) {
            assertEquals(Integer.toString(i), output.sent.get(i));
        }
        assertTrue(pending.isEmpty());
    }

    @Test
    void aBurstStopsAtTheFirstFailureItsCallbackReportsAndDropsTheRest() {
        PendingSends pending = holding(300);
        Output output = new Output(3, false);
        AtomicReference<Exception> failed = new AtomicReference<>();

        pending.sendTo(output, e -> failed.compareAndSet(null, e), failed);

        assertEquals(List.of("0", "1", "2"), output.sent, "no send after the failure (each could block)");
        assertEquals("broker unreachable", failed.get().getMessage());
        assertTrue(pending.isEmpty(), "the rest is dropped: the task fails and its epoch is aborted");
    }

    @Test
    void aBurstSendsNothingAfterAFailureOfAnEarlierBurst() {
        PendingSends pending = holding(5);
        Output output = new Output(-1, false);
        AtomicReference<Exception> failed = new AtomicReference<>(new IllegalStateException("earlier"));

        pending.sendTo(output, e -> failed.compareAndSet(null, e), failed);

        assertEquals(List.of(), output.sent);
        assertTrue(pending.isEmpty());
    }

    @Test
    void aSendThatThrowsEndsTheBurstAndItsErrorReachesTheCaller() {
        PendingSends pending = holding(10);
        Output output = new Output(2, true);
        AtomicReference<Exception> failed = new AtomicReference<>();

        IllegalStateException e = assertThrows(
                IllegalStateException.class, () -> pending.sendTo(output, x -> failed.compareAndSet(null, x), failed));

        assertEquals("broker unreachable", e.getMessage());
        assertEquals(List.of("0", "1"), output.sent);
        assertTrue(pending.isEmpty());
        assertSame(null, failed.get());
    }
}
