package io.weir.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RebalanceHoldTest {
    private final RebalanceHold hold = new RebalanceHold();

    private CompletableFuture<Boolean> commitStarting() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return hold.commitStarts(Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aCommitOutsideARebalanceDoesNotWait() throws Exception {
        assertTrue(hold.commitStarts(Duration.ZERO));
        hold.commitEnded();
    }

    @Test
    void aCommitDuringARejoinWaitsForTheRebalancesEndAndThenGoesOn() {
        hold.rejoining();
        CompletableFuture<Boolean> commit = commitStarting();
        assertFalse(commit.isDone());
        hold.rebalanced();
        await().atMost(Duration.ofSeconds(10)).until(commit::isDone);
        assertTrue(commit.join(), "released before its deadline");
    }

    @Test
    void aRejoinWaitsForTheCommitInFlight() throws Exception {
        assertTrue(hold.commitStarts(Duration.ZERO));
        CompletableFuture<Void> rejoin = CompletableFuture.runAsync(hold::rejoining);
        assertFalse(rejoin.isDone(), "the join request waits while a commit is in flight");
        hold.commitEnded();
        await().atMost(Duration.ofSeconds(10)).until(rejoin::isDone);
        CompletableFuture<Boolean> next = commitStarting();
        assertFalse(next.isDone(), "the next commit waits for the rebalance");
        hold.rebalanced();
        await().atMost(Duration.ofSeconds(10)).until(next::isDone);
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
}
