package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletionException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.junit.jupiter.api.Test;

class FailuresTest {
    @Test
    void anotherMemberWithOurInstanceIdAndMissingPermissionsAreFatalWhereverTheyAreInTheCauses() {
        assertTrue(Failures.isFatal(new FencedInstanceIdException("x")));
        assertTrue(Failures.isFatal(new CompletionException(new KafkaException(new GroupAuthorizationException("g")))));
        assertTrue(Failures.isFatal(new IllegalStateException(new TransactionalIdAuthorizationException("t"))));
    }

    @Test
    void fencedProducersTimeoutsAndOtherFailuresAreRestarted() {
        assertFalse(Failures.isFatal(new ProducerFencedException("transaction timed out")));
        assertFalse(Failures.isFatal(new KafkaException(new InvalidProducerEpochException("e"))));
        assertFalse(Failures.isFatal(new TimeoutException("broker away")));
        assertFalse(Failures.isFatal(new IllegalStateException("boom")));
    }

    @Test
    void aCommitTheGroupRefusedForItsMemberDataCountsAsLostToARebalanceAndNothingElseDoes() {
        assertTrue(Failures.lostToARebalance(new IllegalStateException(
                "commit of checkpoint 42 failed",
                new org.apache.kafka.clients.consumer.CommitFailedException("generation id is not valid"))));
        assertFalse(Failures.lostToARebalance(new ProducerFencedException("x")));
        assertFalse(Failures.lostToARebalance(new IllegalStateException("boom")));
    }

    @Test
    void onlyAnotherMemberWithOurInstanceIdCountsAsFencedInstance() {
        assertTrue(Failures.fencedInstance(
                new SourceLoop.FatalException("cannot go on", new FencedInstanceIdException("x"))));
        assertFalse(Failures.fencedInstance(new SourceLoop.FatalException("restart strategy gave up", null)));
        assertFalse(Failures.fencedInstance(new GroupAuthorizationException("g")));
        assertFalse(Failures.fencedInstance(new ProducerFencedException("x")));
    }

    @Test
    void aDuplicateInstanceIdIsExplained() {
        assertTrue(Failures.hint(new FencedInstanceIdException("x")).contains("give every instance its own"));
        assertEquals("", Failures.hint(new ProducerFencedException("x")));
    }
}
