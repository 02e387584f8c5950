package io.weir.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RebalanceHoldTest {
    private final RebalanceHold hold = new RebalanceHold();

    /** Runs {@code body} on a thread of its own and returns once that thread waits in the hold. */
    private static Thread waitingIn(Runnable body) {
        Thread t = new Thread(body);
        t.setDaemon(true);
        t.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> t.getState() == Thread.State.TIMED_WAITING);
        return t;
    }

    private Thread commitStarting(AtomicReference<Boolean> ended) {
        return waitingIn(() -> {
            try {
                ended.set(hold.commitStarts(Duration.ofSeconds(30)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Test
    void aCommitOutsideARebalanceDoesNotWait() throws Exception {
        assertTrue(hold.commitStarts(Duration.ZERO));
        hold.commitEnded();
    }

    @Test
    void aCommitDuringARejoinWaitsForTheRebalancesEndAndThenGoesOn() throws Exception {
        hold.rejoining();
        AtomicReference<Boolean> ended = new AtomicReference<>();
        Thread commit = commitStarting(ended);
        assertTrue(ended.get() == null, "the commit waits");
        hold.rebalanced();
        commit.join(10_000);
        assertTrue(ended.get(), "released before its deadline");
    }

    @Test
    void aRejoinWaitsForTheCommitInFlight() throws Exception {
        assertTrue(hold.commitStarts(Duration.ZERO));
        AtomicReference<Boolean> rejoined = new AtomicReference<>(false);
        Thread rejoin = waitingIn(() -> {
            hold.rejoining();
            rejoined.set(true);
        });
        assertFalse(rejoined.get(), "the join request waits while a commit is in flight");
        hold.commitEnded();
        rejoin.join(10_000);
        assertTrue(rejoined.get());
        AtomicReference<Boolean> next = new AtomicReference<>();
        Thread commit = commitStarting(next);
        assertTrue(next.get() == null, "the next commit waits for the rebalance");
        hold.rebalanced();
        commit.join(10_000);
        assertTrue(next.get());
    }

    @Test
    void aRejoinThatDoesNotEndHoldsOneCommitForItsLongestWaitAndNoMoreAfterIt() throws Exception {
        hold.rejoining();
        assertFalse(hold.commitStarts(Duration.ofMillis(5)), "the wait ends at its deadline, unreleased");
        hold.commitEnded();
        assertTrue(hold.commitStarts(Duration.ZERO), "the next commit of the same rejoin does not wait");
        hold.commitEnded();
        hold.rejoining(); // the next rejoin holds again
        assertFalse(hold.commitStarts(Duration.ZERO));
    }

    @Test
    void aRejoinHoldsCommitsTwoSecondsOrAHeartbeatIntervalAndASecondWhenThatIsLonger() {
        assertEquals(Duration.ofSeconds(2), new RebalanceHold().longest());
        assertEquals(Duration.ofSeconds(2), new RebalanceHold(Duration.ofMillis(500)).longest());
        // The other members learn of a rebalance from their next heartbeat: with Kafka's default of
        // 3 s a healthy rebalance outlasts 2 s, and a commit released then would meet the new generation.
        assertEquals(Duration.ofSeconds(4), new RebalanceHold(Duration.ofSeconds(3)).longest());
        KafkaClients clients =
                new KafkaClients("localhost:1", Map.of(), Map.of("heartbeat.interval.ms", "3000"), Map.of(), Map.of());
        assertEquals(Duration.ofSeconds(3), clients.sourceHeartbeatInterval());
        assertEquals(Duration.ofMillis(200), KafkaClients.of("localhost:1").sourceHeartbeatInterval());
        // Given to every client in kafka.properties, it is the consumer's too.
        assertEquals(
                Duration.ofSeconds(5),
                new KafkaClients("localhost:1", Map.of("heartbeat.interval.ms", "5000"), Map.of(), Map.of(), Map.of())
                        .sourceHeartbeatInterval());
    }
}
